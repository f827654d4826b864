/**
 * A queued prompt is a durable Input (issue 12.1, seed kernel §7): a prompt that has to wait is recorded the
 * moment it is queued, its admission refers to that one stored copy, recall and drop are recorded, and what a
 * dead (or quitting) process left queued comes back paused — shown as queued, never sent by itself — until the
 * user sends, edits or drops it. In process, against the fake harness and the real store.
 */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { fakeDefinition, type FakeScript } from "../support/fake-adapter.ts";
import { kindsOf, ledgerOf, testSessions, waitFor } from "../support/session-host.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { tableGet } from "../../src/projection/index.ts";
import { brand } from "../support/ids.ts";

const text = (value: string) => [{ type: "text" as const, text: value }];
const sessions = testSessions();

/** A session with a `fake` target and a second target `other` of the same harness (a prompt for it queues). */
async function open(script: FakeScript, choice?: { kind: "id"; id: string }) {
  const fake = fakeDefinition(script);
  const s = await sessions.open({ definitions: [fake], config: { harnesses: {}, targets: { other: { harness: "fake" } } }, ...(choice ? { choice } : {}) }, choice !== undefined);
  return { s, fake };
}

/** kill -9, in process: the lock goes, nothing is shut down, the next open finds the ledger as it was. */
function crash(s: OpenedSession): void {
  s.lock.release();
  sessions.forget(s);
}

const hang: FakeScript = { turns: [[{ type: "text", text: "working" }, { type: "waitForCancel" }]] };

async function withTwoQueued() {
  const { s, fake } = await open(hang);
  void s.controller.submit("fake", text("the running turn"));
  await waitFor(() => kindsOf(ledgerOf(s)).includes("agent_message_chunk") || kindsOf(ledgerOf(s)).includes("agent_message"));
  const first = s.controller.submit("other", text("first follow-up"));
  const second = s.controller.submit("other", text("second follow-up"));
  for (const settled of [first, second]) settled.catch(() => undefined);
  return { s, fake };
}

describe("a waiting prompt is recorded when it is queued", () => {
  test("the queueing is on disk before submit returns, with target, turn and content; nothing reaches the harness", async () => {
    const { s, fake } = await withTwoQueued();
    const queued = ledgerOf(s).filter((event) => event.kind === "_baton_input_queued");
    expect(queued.map((event) => (event.payload as { content: { text: string }[] }).content[0]?.text)).toEqual(["first follow-up", "second follow-up"]);
    expect(queued[0]?.payload).toMatchObject({ targetId: "other", content: text("first follow-up") });
    expect(s.controller.queued().map((q) => [q.text, q.paused])).toEqual([
      ["first follow-up", false],
      ["second follow-up", false],
    ]);
    expect(fake.adapters.flatMap((adapter) => adapter.record.prompts.map((prompt) => prompt.blocks))).toEqual([text("the running turn")]);
  });

  test("its admission is its user message, which refers to the queued copy: the prompt is stored once, the transcript shows it", async () => {
    const { s } = await open({ turns: [[{ type: "text", text: "a" }, { type: "wait", ms: 40 }], [{ type: "text", text: "b" }]] });
    const first = s.controller.submit("fake", text("the first"));
    const followUp = s.controller.submit("other", text("a follow-up with a unique phrase"));
    expect(await first).toBe("completed");
    expect(await followUp).toBe("completed");
    const raw = fs.readFileSync(s.ref.paths.ledger, "utf8");
    expect(raw.split("a follow-up with a unique phrase").length - 1).toBe(1);
    const users = ledgerOf(s).filter((event) => event.kind === "user_message");
    expect(users.map((event) => event.payload)).toEqual([
      { messageId: expect.any(String), content: text("the first"), delivery: "prompt" },
      { messageId: expect.any(String), delivery: "follow_up" },
    ]);
    const message = tableGet(s.controller.state.messages, (users[1]!.payload as { messageId: string }).messageId);
    expect(message?.content).toEqual(text("a follow-up with a unique phrase"));
    expect(s.controller.state.queuedInputs).toEqual([]);
  });

  test("recall (↑) is recorded: the input leaves the queue for good", async () => {
    const { s } = await withTwoQueued();
    expect(s.controller.recall()).toEqual({ text: "second follow-up", targetId: brand.target("other") });
    expect(kindsOf(ledgerOf(s)).filter((kind) => kind.startsWith("_baton_input"))).toEqual(["_baton_input_queued", "_baton_input_queued", "_baton_input_update"]);
    crash(s);
    const { s: reopened } = await open({ turns: [] }, { kind: "id", id: s.ref.batonSessionId });
    expect(reopened.controller.queued().map((q) => q.text)).toEqual(["first follow-up"]);
  });
});

describe("after Baton stopped, the queue comes back paused", () => {
  test("kill -9 with two queued follow-ups: both are restored paused, in order, and neither is sent by itself", async () => {
    const { s } = await withTwoQueued();
    crash(s);
    const { s: reopened, fake } = await open({ turns: [[{ type: "text", text: "one" }], [{ type: "text", text: "two" }]] }, { kind: "id", id: s.ref.batonSessionId });
    expect(reopened.recovery).toMatchObject({ turnsClosed: 1, inputsPaused: 2 });
    expect(reopened.controller.queued().map((q) => [q.text, q.targetId, q.paused])).toEqual([
      ["first follow-up", "other", true],
      ["second follow-up", "other", true],
    ]);
    // nothing waits on them and nothing runs them
    expect(reopened.controller.busy).toBe(false);
    await reopened.controller.whenIdle();
    expect(fake.adapters.length).toBe(0);
    expect(kindsOf(ledgerOf(reopened)).filter((kind) => kind === "user_message").length).toBe(1);
  });

  test("a paused input keeps the plugin context it was queued with: after kill -9 and send, the context is delivered with it (snapshot, then receipt), and its provenance stays", async () => {
    const { s } = await open(hang);
    void s.controller.submit("fake", text("the running turn"));
    await waitFor(() => kindsOf(ledgerOf(s)).includes("agent_message_chunk") || kindsOf(ledgerOf(s)).includes("agent_message"));
    const context = [{ token: "@board.card:alpha", source: { kind: "plugin_resource" as const, owner: "pi_0123456789abcdef", key: "board.baton.dev/v1/Card/alpha#pr_1" }, text: "ALPHA-BODY" }];
    const parentEventId = ledgerOf(s).at(-1)?.eventId;
    void s.controller.submit("other", text("look at @board.card:alpha"), { context, provenance: { messageId: "m_fromproposal" as never, parentEventId: parentEventId as never } }).catch(() => undefined);
    await waitFor(() => kindsOf(ledgerOf(s)).includes("_baton_input_queued"));
    crash(s);
    const { s: reopened, fake } = await open({ turns: [[{ type: "text", text: "seen" }]] }, { kind: "id", id: s.ref.batonSessionId });
    expect(reopened.controller.queued().map((q) => [q.text, q.paused])).toEqual([["look at @board.card:alpha", true]]);
    expect(await Promise.all(reopened.controller.resumePaused())).toEqual(["completed"]);
    const ledger = ledgerOf(reopened);
    const snapshot = ledger.find((event) => event.kind === "_baton_context_snapshot" && (event.payload as { source: { kind: string } }).source.kind === "plugin_resource");
    expect(snapshot?.payload).toMatchObject({ source: context[0]?.source, text: "ALPHA-BODY" });
    expect(ledger.some((event) => event.kind === "_baton_context_delivery_receipt" && event.parentEventId === snapshot?.eventId)).toBe(true);
    expect(fake.adapters.flatMap((adapter) => adapter.record.synced).join("\n")).toContain("ALPHA-BODY");
    // Provenance: its user message points at its queueing, which points at where it came from.
    const queued = ledger.find((event) => event.kind === "_baton_input_queued");
    expect(queued?.parentEventId).toBe(parentEventId);
    expect(ledger.filter((event) => event.kind === "user_message").at(-1)?.parentEventId).toBe(queued?.eventId);
  });

  test("a clean quit with a full queue keeps it too (paused next time)", async () => {
    const { s } = await withTwoQueued();
    await s.close();
    sessions.forget(s);
    const { s: reopened } = await open({ turns: [] }, { kind: "id", id: s.ref.batonSessionId });
    expect(reopened.controller.queued().map((q) => q.paused)).toEqual([true, true]);
  });

  test("send (Enter) runs them in their order as follow-ups; the ledger then shows them admitted", async () => {
    const { s } = await withTwoQueued();
    crash(s);
    const { s: reopened, fake } = await open({ turns: [[{ type: "text", text: "one" }], [{ type: "text", text: "two" }]] }, { kind: "id", id: s.ref.batonSessionId });
    const outcomes = await Promise.all(reopened.controller.resumePaused());
    expect(outcomes).toEqual(["completed", "completed"]);
    expect(fake.adapters.flatMap((adapter) => adapter.record.prompts.map((prompt) => prompt.blocks[prompt.blocks.length - 1]))).toEqual([
      { type: "text", text: "first follow-up" },
      { type: "text", text: "second follow-up" },
    ]);
    expect(reopened.controller.queued()).toEqual([]);
    crash(reopened);
    const { s: again } = await open({ turns: [] }, { kind: "id", id: s.ref.batonSessionId });
    expect(again.recovery.inputsPaused).toBeUndefined();
  });

  test("edit (↑) and drop (Esc) take the latest paused input out, recorded; a new prompt runs while others stay paused", async () => {
    const { s } = await withTwoQueued();
    crash(s);
    const { s: reopened, fake } = await open({ turns: [[{ type: "text", text: "fresh" }]] }, { kind: "id", id: s.ref.batonSessionId });
    expect(await reopened.controller.submit("fake", text("something new"))).toBe("completed");
    expect(reopened.controller.queued().map((q) => [q.text, q.paused])).toEqual([
      ["first follow-up", true],
      ["second follow-up", true],
    ]);
    expect(reopened.controller.dropPaused()).toEqual({ text: "second follow-up", targetId: brand.target("other") });
    expect(reopened.controller.recall()).toEqual({ text: "first follow-up", targetId: brand.target("other") });
    expect(reopened.controller.queued()).toEqual([]);
    const exits = ledgerOf(reopened).filter((event) => event.kind === "_baton_input_update").map((event) => (event.payload as { state: string }).state);
    expect(exits).toEqual(["dropped", "recalled"]);
    expect(fake.adapters.flatMap((adapter) => adapter.record.prompts.map((prompt) => prompt.blocks))).toEqual([text("something new")]);
    crash(reopened);
    const { s: again } = await open({ turns: [] }, { kind: "id", id: s.ref.batonSessionId });
    expect(again.controller.queued()).toEqual([]);
  });

  test("a queued /compact (a control turn) is recorded admitted when it runs", async () => {
    const { s } = await open({ turns: [[{ type: "text", text: "a" }, { type: "wait", ms: 40 }]] });
    const first = s.controller.submit("fake", text("the first"));
    const compacted = s.controller.compact("fake");
    await Promise.all([first, compacted]);
    const inputs = ledgerOf(s).filter((event) => event.kind.startsWith("_baton_input"));
    expect(inputs.map((event) => [event.kind, (event.payload as { state?: string; control?: string }).state ?? (event.payload as { control?: string }).control])).toEqual([
      ["_baton_input_queued", "compact"],
      ["_baton_input_update", "admitted"],
    ]);
    expect(s.controller.state.queuedInputs).toEqual([]);
  });
});
