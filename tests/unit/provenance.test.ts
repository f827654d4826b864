/**
 * Provenance (issue 12.6, ATT-01, inventory §3.1 `parentEventId`): every event Baton writes for a driven
 * turn points at the event that admitted it — the attempt's phases, `running`, a steer, the summary, and
 * the attempt updates recovery writes after a crash; a follow-up's user message points at its queueing,
 * a recall or drop at the queueing too, a context receipt at its snapshot. In process, fake harness, real store.
 */
import { describe, expect, test } from "bun:test";
import { fakeDefinition, type FakeScript } from "../support/fake-adapter.ts";
import { ledgerOf, testSessions, waitFor, type HostOptions } from "../support/session-host.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";

const text = (value: string) => [{ type: "text" as const, text: value }];
const sessions = testSessions();

function open(definitions: HostOptions["definitions"], id?: string): Promise<OpenedSession> {
  return sessions.open({ definitions, config: { harnesses: {}, targets: { other: { harness: "fake" } } }, ...(id ? { choice: { kind: "id", id } } : {}) }, id !== undefined);
}

const isUser = (event: AnyEvent, needle: string) => event.kind === "user_message" && JSON.stringify(event.payload).includes(needle);
const parentOf = (event: AnyEvent | undefined) => event?.parentEventId;
const attemptsOf = (events: readonly AnyEvent[], turnId: string | undefined) => events.filter((e) => e.kind === "_baton_delivery_attempt_update" && e.turnId === turnId);

describe("parentEventId links a turn's facts to its admission", () => {
  test("a prompt: running, every attempt phase, a steer and the summary point at its user message", async () => {
    const script: FakeScript = { steer: "steer", turns: [[{ type: "text", text: "working" }, { type: "wait", ms: 150 }, { type: "text", text: "done" }]] };
    const s = await open([fakeDefinition(script)]);
    const done = s.controller.submit("fake", text("the prompt"));
    await waitFor(() => ledgerOf(s).some((e) => e.kind === "_baton_delivery_attempt_update" && (e.payload as { phase: string }).phase === "accepted"));
    expect(await s.controller.submit("fake", text("a steer"))).toBe("completed");
    expect(await done).toBe("completed");
    const events = ledgerOf(s);
    const user = events.find((e) => isUser(e, "the prompt"))!;
    expect(user.parentEventId).toBeUndefined(); // typed, not queued: nothing upstream
    const attempts = attemptsOf(events, user.turnId);
    expect(attempts.map((e) => (e.payload as { phase: string }).phase)).toEqual(["prepared", "dispatching", "accepted", "finalized"]);
    for (const attempt of attempts) expect(attempt.parentEventId).toBe(user.eventId);
    expect(parentOf(events.find((e) => e.kind === "state_update" && e.turnId === user.turnId && e.source.type === "baton"))).toBe(user.eventId);
    expect(parentOf(events.find((e) => isUser(e, "a steer")))).toBe(user.eventId);
    expect(parentOf(events.find((e) => e.kind === "_baton_turn_summary"))).toBe(user.eventId);
  });

  test("a follow-up: its user message points at its queueing; its attempt at that user message; a recall at the queueing", async () => {
    const s = await open([fakeDefinition({ turns: [[{ type: "text", text: "a" }, { type: "wait", ms: 60 }], [{ type: "text", text: "b" }]] })]);
    const first = s.controller.submit("fake", text("the first"));
    const followUp = s.controller.submit("other", text("the follow-up"));
    const recalled = s.controller.submit("other", text("taken back"));
    expect(s.controller.recall()?.text).toBe("taken back");
    expect(await recalled).toBe("recalled");
    await Promise.all([first, followUp]);
    const events = ledgerOf(s);
    const queued = events.filter((e) => e.kind === "_baton_input_queued");
    expect(queued).toHaveLength(2);
    const user = events.find((e) => isUser(e, (queued[0]!.payload as { messageId: string }).messageId))!;
    expect(user.parentEventId).toBe(queued[0]!.eventId);
    for (const attempt of attemptsOf(events, user.turnId)) expect(attempt.parentEventId).toBe(user.eventId);
    expect(parentOf(events.find((e) => e.kind === "_baton_input_update"))).toBe(queued[1]!.eventId);
  });

  test("a queued /compact: its admission points at its queueing, and running and its attempt at the admission", async () => {
    const s = await open([fakeDefinition({ turns: [[{ type: "text", text: "a" }, { type: "wait", ms: 40 }]] })]);
    await Promise.all([s.controller.submit("fake", text("the first")), s.controller.compact("fake")]);
    const events = ledgerOf(s);
    const queued = events.find((e) => e.kind === "_baton_input_queued")!;
    const admitted = events.find((e) => e.kind === "_baton_input_update")!;
    expect(admitted.parentEventId).toBe(queued.eventId);
    const turnId = (queued.payload as { turnId: string }).turnId;
    expect(parentOf(events.find((e) => e.kind === "state_update" && e.turnId === turnId && e.source.type === "baton"))).toBe(admitted.eventId);
    for (const attempt of attemptsOf(events, turnId)) expect(attempt.parentEventId).toBe(admitted.eventId);
  });

  test("a context receipt points at its snapshot", async () => {
    const a = fakeDefinition({ turns: [[{ type: "text", text: "answer from alpha" }]] }, "alpha");
    const b = fakeDefinition({ turns: [[{ type: "text", text: "beta here" }]] }, "beta");
    const s = await sessions.open({ definitions: [a, b] });
    await s.controller.submit("alpha", text("question one"));
    await s.controller.submit("beta", text("question two"));
    const events = ledgerOf(s);
    const snapshot = events.find((e) => e.kind === "_baton_context_snapshot")!;
    expect(parentOf(events.find((e) => e.kind === "_baton_context_delivery_receipt"))).toBe(snapshot.eventId);
  });

  test("after a crash, recovery's attempt update points at the admission of the attempt it settles", async () => {
    const s = await open([fakeDefinition({ turns: [[{ type: "text", text: "working" }, { type: "waitForCancel" }]] })]);
    void s.controller.submit("fake", text("cut off")).catch(() => undefined);
    await waitFor(() => ledgerOf(s).some((e) => e.kind === "agent_message_chunk" || e.kind === "agent_message"));
    s.lock.release(); // kill -9: no shutdown
    sessions.forget(s);
    const reopened = await open([fakeDefinition({ turns: [] })], s.ref.batonSessionId);
    const events = ledgerOf(reopened);
    const user = events.find((e) => isUser(e, "cut off"))!;
    const settled = attemptsOf(events, user.turnId).at(-1)!;
    expect((settled.payload as { phase: string }).phase).toBe("uncertain");
    expect(settled.parentEventId).toBe(user.eventId);
  });
});
