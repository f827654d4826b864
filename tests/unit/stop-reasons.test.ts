/** The closed stop-reason vocabulary (invariant 2): defined once, unknown never counts as success, old ledgers still open. */
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import type { SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import { validatePayload } from "../../src/event/envelope.ts";
import { outcomeOfStopReason, readStopReason, STOP_REASONS, type StopReason } from "../../src/event/stop-reasons.ts";
import { terminalOf } from "../../src/harness/claude/terminal.ts";
import { normalizeStopReason } from "../../src/harness/normalize.ts";
import { tableGet } from "../../src/projection/table.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { createEventFactory } from "../support/events.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { kindsOf, ledgerOf, makeTestHome, openTestSession, type TestHome } from "../support/session-host.ts";
import { readSummaries } from "../support/summaries.ts";

const text = (value: string) => [{ type: "text" as const, text: value }];
let home: TestHome | undefined;
const sessions: OpenedSession[] = [];

afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
  home?.cleanup();
  home = undefined;
});

describe("the vocabulary", () => {
  test("each stop reason has one outcome; only the four answer kinds are a success", () => {
    const outcomes = Object.fromEntries(STOP_REASONS.map((reason) => [reason, outcomeOfStopReason(reason)]));
    expect(outcomes).toEqual({
      end_turn: "completed",
      max_tokens: "completed",
      max_turn_requests: "completed",
      refusal: "completed",
      cancelled: "cancelled",
      failed: "failed",
      error: "failed",
      unknown: "failed",
    });
    expect(outcomeOfStopReason(undefined)).toBe("failed");
  });

  test("a terminal or summary with a word outside the vocabulary is refused on append", () => {
    expect(validatePayload("state_update", { state: "idle", stopReason: "stop" })).toContain("payload.stopReason");
    expect(validatePayload("_baton_turn_summary", { turnId: "t_1", toolCalls: [], stopReason: "done" })).toContain("payload.stopReason");
    expect(validatePayload("state_update", { state: "idle", stopReason: "end_turn", nativeStopReason: "stop_sequence" })).toBeUndefined();
  });

  test("a value read from elsewhere: members pass, anything else is unknown, absent stays absent", () => {
    expect(readStopReason("cancelled")).toBe("cancelled");
    expect(readStopReason("completed")).toBe("unknown");
    expect(readStopReason(undefined)).toBeUndefined();
    expect(normalizeStopReason("brand_new")).toBe("failed");
  });
});

describe("Claude's terminal mapping", () => {
  const result = (stop_reason: string | null): SDKResultMessage => ({ type: "result", subtype: "success", is_error: false, stop_reason }) as unknown as SDKResultMessage;

  test("an unknown Anthropic stop reason is a failure that keeps Claude's word, never end_turn", () => {
    expect(terminalOf(result("brand_new_reason"))).toEqual({ stopReason: "failed", unknown: "brand_new_reason" });
  });

  test("measured reasons: stop_sequence and pause_turn finish the answer, null is /compact or a local command", () => {
    const mapped: Record<string, StopReason> = {};
    for (const reason of ["end_turn", "stop_sequence", "pause_turn", "max_tokens", "refusal"]) mapped[reason] = terminalOf(result(reason)).stopReason;
    expect(mapped).toEqual({ end_turn: "end_turn", stop_sequence: "end_turn", pause_turn: "end_turn", max_tokens: "max_tokens", refusal: "refusal" });
    expect(terminalOf(result(null))).toEqual({ stopReason: "end_turn" });
  });
});

describe("in a session", () => {
  test("an adapter that ends a turn with a word outside the vocabulary: the turn fails, the word is kept", async () => {
    home = makeTestHome();
    const s = await openTestSession(home, { definitions: [fakeDefinition({ turns: [[{ type: "text", text: "hm" }, { type: "end", stopReason: "stop" }]] })] });
    sessions.push(s);
    expect(await s.controller.submit("fake", text("go"))).toBe("failed");
    const events = ledgerOf(s);
    expect(kindsOf(events)).toContain("attempt:finalized(failed)");
    expect(events.find((e) => e.kind === "state_update" && (e.payload as { state: string }).state === "idle")?.payload).toEqual({ state: "idle", stopReason: "failed", nativeStopReason: "stop" });
    expect(events.find((e) => e.kind === "_baton_turn_summary")?.payload).toMatchObject({ stopReason: "failed" });
  });

  test("an older ledger whose terminal says 'stop' opens, reads it as unknown and settles its attempt as failed", async () => {
    home = makeTestHome();
    const created = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })] });
    const ledgerPath = created.ref.paths.ledger;
    const id = created.ref.batonSessionId;
    await created.close();
    const start = ledgerOf(created).length + 1;
    const f = createEventFactory({ sessionId: id, startSeq: start });
    const turn = "t_01JOLDLEDGER00000000000001";
    const lines = [
      f.make("user_message", { messageId: "m_1", content: text("old prompt") }, { turn, source: "user", target: "fake" }),
      f.make("state_update", { state: "running" }, { turn, source: "baton", target: "fake" }),
      f.make("_baton_delivery_attempt_update", { attemptId: "att_1", phase: "prepared", inputId: "m_1" }, { turn, source: "baton", target: "fake" }),
      f.make("_baton_delivery_attempt_update", { attemptId: "att_1", phase: "dispatching" }, { turn, source: "baton", target: "fake" }),
      f.make("_baton_delivery_attempt_update", { attemptId: "att_1", phase: "accepted" }, { turn, source: "baton", target: "fake" }),
      f.any("state_update", { state: "idle", stopReason: "stop" }, { turn, target: "fake" }),
    ];
    fs.appendFileSync(ledgerPath, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));

    const reopened = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })], choice: { kind: "id", id } });
    sessions.push(reopened);
    expect(tableGet(reopened.controller.state.stopReasons, turn)).toBe("unknown");
    const after = ledgerOf(reopened).slice(start - 1 + lines.length);
    expect(kindsOf(after)).toEqual(["attempt:finalized(failed)", "_baton_turn_summary"]);
    expect(after.at(-1)?.payload).toMatchObject({ stopReason: "unknown" });
    expect(readSummaries(ledgerOf(reopened)).at(-1)).toMatchObject({ stopReason: "unknown", userText: "old prompt" });
  });
});
