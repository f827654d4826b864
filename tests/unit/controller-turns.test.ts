/** Given/when/then tests of the controller's turn lifecycle against the scripted fake adapter. */
import { afterEach, describe, expect, test } from "bun:test";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { kindsOf, ledgerOf, makeTestHome, openTestSession, waitFor, type TestHome } from "../support/session-host.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { INTERRUPTED_NOTICE } from "../../src/controller/finalize.ts";
import { readSummaries } from "../support/summaries.ts";
import { brand } from "../support/ids.ts";

const text = (value: string) => [{ type: "text" as const, text: value }];
let home: TestHome;
let session: OpenedSession | undefined;

afterEach(async () => {
  await session?.close();
  session = undefined;
  home?.cleanup();
});

async function open(definitions: Parameters<typeof openTestSession>[1]["definitions"], extra: Partial<Parameters<typeof openTestSession>[1]> = {}) {
  home = makeTestHome(extra.clock);
  session = await openTestSession(home, { definitions, ...extra });
  return session;
}

describe("driven turn", () => {
  test("a text turn: message and running before open, then attempt phases, output, one terminal, one summary", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "text", text: "hello there" }, { type: "usage", input: 10, output: 5 }]] });
    const s = await open([fake]);
    const outcome = await s.controller.submit("fake", text("hi"));
    expect(outcome).toBe("completed");
    const kinds = kindsOf(ledgerOf(s));
    expect(kinds).toEqual([
      "user_message",
      "state:running",
      "_baton_run_status",
      "_baton_run_status",
      "attempt:prepared",
      "attempt:dispatching",
      "attempt:accepted",
      "agent_message_chunk",
      "agent_message_chunk",
      "agent_message",
      "usage_update",
      "state:idle(end_turn)",
      "attempt:finalized(completed)",
      "_baton_turn_summary",
    ]);
    expect(ledgerOf(s).at(-1)?.kind).toBe("_baton_turn_summary");
    const summary = readSummaries(ledgerOf(s)).at(-1);
    expect(summary).toMatchObject({ userText: "hi", agentText: "hello there", stopReason: "end_turn" });
    expect(summary?.usage?.inputTokens).toBe(10);
    expect(s.controller.state.runState).toBe("idle");
  });

  test("the user message is on disk during a slow cold start, with the 'Starting…' phase", async () => {
    const fake = fakeDefinition({ openDelayMs: 300, turns: [] });
    const s = await open([fake]);
    const done = s.controller.submit("fake", text("first"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("_baton_run_status"));
    const kinds = kindsOf(ledgerOf(s));
    expect(kinds.slice(0, 3)).toEqual(["user_message", "state:running", "_baton_run_status"]);
    const turn = Object.values(s.controller.state.activeTurns)[0];
    expect(turn?.phaseTitle).toBe("Starting Fake fake…");
    await done;
  });

  test("startup failure: error + idle(error) + summary, the message stays, submit rejects with the session prefix", async () => {
    const fake = fakeDefinition({ openError: "binary not found", turns: [] });
    const s = await open([fake]);
    const rejection = s.controller.submit("fake", text("will fail")).then(
      () => "resolved",
      (error: Error) => error.message,
    );
    expect(await rejection).toBe(`BatonSession ${s.ref.batonSessionId} · fake: binary not found`);
    expect(kindsOf(ledgerOf(s))).toEqual(["user_message", "state:running", "_baton_run_status", "_baton_run_status", "_baton_error_update", "state:idle(error)", "_baton_turn_summary"]);
    expect(s.controller.busy).toBe(false);
  });

  test("unknown target fails closed before anything starts", async () => {
    const fake = fakeDefinition({ turns: [] });
    const s = await open([fake]);
    await expect(s.controller.submit("nope", text("x"))).rejects.toThrow(/unknown target 'nope'/);
    expect(fake.adapters.length).toBe(0);
    expect(ledgerOf(s)).toEqual([]);
  });

  test("an unsupported prompt block fails admission naming the block type", async () => {
    const fake = fakeDefinition({ turns: [] });
    const s = await open([fake]);
    await expect(s.controller.submit("fake", [{ type: "image", mimeType: "image/png", data: "AA==" }])).rejects.toThrow(/does not accept image blocks/);
    // Refused before any attempt was prepared: nothing was dispatched.
    expect(kindsOf(ledgerOf(s))).not.toContain("attempt:prepared");
    expect(kindsOf(ledgerOf(s))).toContain("state:idle(error)");
  });

  test("driven turns are serial across targets, in submit order", async () => {
    const a = fakeDefinition({ turns: [[{ type: "wait", ms: 50 }, { type: "text", text: "from a" }]] }, "alpha");
    const b = fakeDefinition({ turns: [[{ type: "text", text: "from b" }]] }, "beta");
    const s = await open([a, b]);
    const first = s.controller.submit("alpha", text("one"));
    const second = s.controller.submit("beta", text("two"));
    expect(s.controller.queued().map((q) => q.targetId)).toEqual([brand.target("beta")]);
    await Promise.all([first, second]);
    const states = ledgerOf(s)
      .filter((e) => e.kind === "state_update")
      .map((e) => `${e.harnessTargetId}:${(e.payload as { state: string }).state}`);
    expect(states).toEqual(["alpha:running", "alpha:idle", "beta:running", "beta:idle"]);
  });

  test("a duplicate terminal is inert: one summary, one queue advance", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "text", text: "x" }, { type: "end", stopReason: "end_turn" }]] });
    const s = await open([fake]);
    await s.controller.submit("fake", text("go"));
    const turnId = ledgerOf(s)[0]?.turnId;
    s.controller.pipeline.append({ kind: "state_update", payload: { state: "idle", stopReason: "end_turn" }, source: { type: "harness", harnessTargetId: "fake" }, turnId: turnId as never, harnessTargetId: "fake" });
    expect(kindsOf(ledgerOf(s)).filter((k) => k === "_baton_turn_summary").length).toBe(1);
  });

  test("trusted attribution: the host stamps source and target over what the adapter wrote", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "text", text: "x" }]] });
    const s = await open([fake]);
    await s.controller.submit("fake", text("go"));
    const chunk = ledgerOf(s).find((e) => e.kind === "agent_message_chunk");
    expect(chunk?.source).toEqual({ type: "harness", harnessTargetId: brand.target("fake") });
    expect(chunk?.harness).toBe("fake-wire");
    expect(chunk?.harnessSessionId).toMatch(/^fake-session-/);
  });

  test("trusted attribution: a draft claiming another target or native session is stamped with the binding's", async () => {
    const spoof = {
      kind: "_baton_notice",
      payload: { level: "info", title: "spoofed" },
      source: { type: "user" },
      harness: "other-wire",
      harnessTargetId: "someone-else",
      harnessSessionId: "not-my-session",
    };
    const fake = fakeDefinition({ turns: [[{ type: "emit", draft: spoof }]] });
    const s = await open([fake]);
    await s.controller.submit("fake", text("go"));
    const spoofed = ledgerOf(s).find((e) => e.kind === "_baton_notice" && (e.payload as { title: string }).title === "spoofed");
    expect(spoofed?.source).toEqual({ type: "harness", harnessTargetId: brand.target("fake") });
    expect(spoofed?.harness).toBe("fake-wire");
    expect(spoofed?.harnessTargetId).toBe(brand.target("fake"));
    expect(spoofed?.harnessSessionId).toBe(s.meta().harnessSessions["fake"]?.harnessSessionId);
  });
});

describe("queue and recall", () => {
  test("only the latest not-yet-started input can be recalled", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "wait", ms: 100 }], [], []] });
    const s = await open([fake]);
    const running = s.controller.submit("fake", text("running"));
    const queued1 = s.controller.submit("fake", text("queued one"));
    const queued2 = s.controller.submit("fake", text("queued two"));
    expect(s.controller.recall()).toEqual({ text: "queued two", targetId: brand.target("fake") });
    expect(await queued2).toBe("recalled");
    expect(s.controller.queued().map((q) => q.text)).toEqual(["queued one"]);
    await Promise.all([running, queued1]);
    expect(s.controller.recall()).toBeUndefined();
    const users = ledgerOf(s).filter((e) => e.kind === "user_message").map((e) => (e.payload as { delivery?: string }).delivery);
    expect(users).toEqual(["prompt", "follow_up"]);
  });
});

describe("cancel", () => {
  test("cancel while preparing closes the turn at once, without an error", async () => {
    const fake = fakeDefinition({ openDelayMs: 200, turns: [] });
    const s = await open([fake]);
    const outcome = s.controller.submit("fake", text("stop me"));
    await waitFor(() => s.controller.activeDrivenTurn() !== undefined);
    expect(s.controller.interrupt()).toBe(true);
    expect(await outcome).toBe("interrupted");
    const kinds = kindsOf(ledgerOf(s));
    expect(kinds).toContain("state:idle(cancelled)");
    expect(kinds).not.toContain("_baton_error_update");
    expect(kinds.slice(-2)).toEqual(["_baton_notice", "_baton_turn_summary"]);
  });

  test("confirmed cancel: harness terminal, attempt cancelled, interrupted notice, summary; a queued follow-up then runs", async () => {
    const fake = fakeDefinition({ turns: [[{ type: "text", text: "working" }, { type: "waitForCancel" }], [{ type: "text", text: "next" }]] });
    const s = await open([fake]);
    const first = s.controller.submit("fake", text("long task"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("agent_message"));
    const followUp = s.controller.submit("fake", text("after"));
    s.controller.interrupt();
    expect(await first).toBe("interrupted");
    expect(await followUp).toBe("completed");
    const kinds = kindsOf(ledgerOf(s));
    const idle = kinds.indexOf("state:idle(cancelled)");
    expect(kinds.slice(idle, idle + 4)).toEqual(["state:idle(cancelled)", "attempt:finalized(cancelled)", "_baton_notice", "_baton_turn_summary"]);
    const notice = ledgerOf(s).find((e) => e.kind === "_baton_notice");
    expect((notice?.payload as { title: string }).title).toBe(INTERRUPTED_NOTICE);
  });

  test("a harness that ignores interrupt gets an error + idle(cancelled) after the grace period; the attempt is uncertain", async () => {
    const clock = new ManualClock();
    const fake = fakeDefinition({ ignoreCancel: true, turns: [[{ type: "text", text: "x" }, { type: "hang" }], []] });
    const s = await open([fake], { clock });
    const first = s.controller.submit("fake", text("stuck"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("agent_message"));
    const next = s.controller.submit("fake", text("next"));
    s.controller.interrupt();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(kindsOf(ledgerOf(s))).not.toContain("state:idle(cancelled)");
    clock.advance(10_000);
    expect(await first).toBe("interrupted");
    const kinds = kindsOf(ledgerOf(s));
    const error = kinds.indexOf("_baton_error_update");
    expect(kinds.slice(error, error + 3)).toEqual(["_baton_error_update", "state:idle(cancelled)", "attempt:uncertain"]);
    expect(await next).toBe("completed");
  });

  test("pressing Esc again does not postpone the grace deadline", async () => {
    const clock = new ManualClock();
    const fake = fakeDefinition({ ignoreCancel: true, turns: [[{ type: "text", text: "x" }, { type: "hang" }]] });
    const s = await open([fake], { clock });
    const first = s.controller.submit("fake", text("stuck"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("agent_message"));
    s.controller.interrupt();
    clock.advance(6000);
    s.controller.interrupt();
    clock.advance(4000);
    expect(await first).toBe("interrupted");
    expect(fake.adapters[0]?.record.cancels.length).toBe(2);
  });

  test("a late harness terminal settles an uncertain attempt", async () => {
    const clock = new ManualClock();
    const fake = fakeDefinition({ ignoreCancel: true, turns: [[{ type: "hang" }]] });
    const s = await open([fake], { clock });
    const first = s.controller.submit("fake", text("stuck"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("attempt:accepted"));
    s.controller.interrupt();
    clock.advance(10_000);
    await first;
    // The wedged harness is closed; its own (late) terminal for the turn then arrives.
    await waitFor(() => kindsOf(ledgerOf(s)).includes("attempt:finalized(cancelled)"));
    const kinds = kindsOf(ledgerOf(s));
    expect(kinds.indexOf("attempt:uncertain")).toBeLessThan(kinds.indexOf("attempt:finalized(cancelled)"));
    expect(kinds.filter((k) => k.startsWith("state:idle")).length).toBe(2);
    expect(kinds.filter((k) => k === "_baton_turn_summary").length).toBe(1);
  });
});

describe("dead harness", () => {
  test("a crash gives one error and one failed terminal; the next prompt starts a fresh process", async () => {
    const fake = fakeDefinition(() => ({ turns: [[{ type: "text", text: "x" }, { type: "crash" }]] }));
    const s = await open([fake]);
    expect(await s.controller.submit("fake", text("crash please"))).toBe("failed");
    const kinds = kindsOf(ledgerOf(s));
    expect(kinds.filter((k) => k === "_baton_error_update").length).toBe(1);
    expect(kinds.filter((k) => k.startsWith("state:idle")).length).toBe(1);
    expect(kinds).toContain("state:idle(failed)");
    expect(await s.controller.submit("fake", text("again"))).toBe("completed");
    expect(fake.adapters[0]?.record.opens.length).toBe(2);
    // the reopened process resumed the same native session
    expect(fake.adapters[0]?.record.opens[1]?.resumeState?.data["sessionId"]).toMatch(/^fake-session-/);
  });
});
