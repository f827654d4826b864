/**
 * Proposals (`proposed_input`, plugins.md §4) through a real session (temp BATON_HOME, real store) and the fake
 * harness: non-blocking, deduplicated, submitted with provenance, dismissed for good, withdrawn, kept by recovery.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { kindsOf, ledgerOf, makeTestHome, openTestSession, type TestHome } from "../support/session-host.ts";
import type { OpenedSession } from "../../src/app/open-session.ts";
import { selectPendingProposals } from "../../src/projection/index.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { brand } from "../support/ids.ts";

let home: TestHome;
let sessions: OpenedSession[] = [];

afterEach(async () => {
  for (const s of sessions) await s.close();
  sessions = [];
  home?.cleanup();
});

async function open(reuse?: string): Promise<OpenedSession> {
  if (reuse === undefined) home = makeTestHome();
  const definitions = [fakeDefinition({ turns: [[{ type: "text", text: "one" }]] }), fakeDefinition({ turns: [[{ type: "text", text: "two" }]] }, "other")];
  const s = await openTestSession(home, { definitions, ...(reuse === undefined ? {} : { choice: { kind: "id", id: reuse } }) });
  sessions.push(s);
  return s;
}

const request = { text: "fix the failing tests", dedupeKey: "k1", title: "Tests fail", targetId: "fake" };
const users = (events: readonly AnyEvent[]) => events.filter((e) => e.kind === "user_message");
const resolutionOf = (events: readonly AnyEvent[], id: string) =>
  events.find((e) => e.kind === "interaction.resolved" && (e.payload as { interactionId: string }).interactionId === id);

describe("proposed_input", () => {
  test("a proposal is pending without making the session require action, and has no turn", async () => {
    const s = await open();
    const opened = s.controller.proposals.open({ type: "baton" }, request);
    expect(opened.created).toBe(true);
    expect(s.controller.state.runState).toBe("idle");
    expect(selectPendingProposals(s.controller.state).map((p) => p.interactionId)).toEqual([opened.interactionId]);
    const event = ledgerOf(s).find((e) => e.kind === "interaction.opened");
    expect(event?.turnId).toBeUndefined();
    expect(event?.source).toEqual({ type: "baton" });
  });

  test("the same dedupeKey is never proposed twice: not while pending, not after dismissal, not after reopen", async () => {
    const s = await open();
    const first = s.controller.proposals.open({ type: "plugin", pluginInstanceId: "pi_abc" }, request);
    expect(s.controller.proposals.open({ type: "plugin", pluginInstanceId: "pi_abc" }, { ...request, text: "other text" })).toEqual({ interactionId: first.interactionId, created: false });
    s.controller.proposals.dismiss(first.interactionId);
    expect(s.controller.proposals.open({ type: "plugin", pluginInstanceId: "pi_abc" }, request).created).toBe(false);
    const id = s.ref.batonSessionId;
    await s.close();
    sessions = [];
    const reopened = await open(id);
    expect(reopened.controller.proposals.open({ type: "plugin", pluginInstanceId: "pi_abc" }, request).created).toBe(false);
    expect(kindsOf(ledgerOf(reopened)).filter((k) => k === "interaction.opened")).toHaveLength(1);
    expect(kindsOf(ledgerOf(reopened))).toContain("resolved:dismissed");
  });

  test("submit appends the resolution first, then a prompt whose user_message links to it by parentEventId", async () => {
    const s = await open();
    const { interactionId } = s.controller.proposals.open({ type: "baton" }, request);
    expect(await s.controller.proposals.submit(interactionId)).toBe("completed");
    const events = ledgerOf(s);
    const resolved = resolutionOf(events, interactionId);
    const [message] = users(events);
    expect(resolved?.payload).toMatchObject({ resolution: { outcome: "submitted", messageId: (message?.payload as { messageId: string }).messageId, targetId: "fake" } });
    expect(message?.parentEventId).toBe(resolved?.eventId);
    expect(resolved!.seq).toBeLessThan(message!.seq);
    expect(message?.harnessTargetId).toBe(brand.target("fake"));
    expect(s.controller.proposals.pending()).toEqual([]);
  });

  test("the user may edit the text and send it to another target", async () => {
    const s = await open();
    const { interactionId } = s.controller.proposals.open({ type: "baton" }, request);
    await s.controller.proposals.submit(interactionId, { text: "fix only the parser test", targetId: "other" });
    const events = ledgerOf(s);
    const [message] = users(events);
    expect(resolutionOf(events, interactionId)?.payload).toMatchObject({ resolution: { outcome: "submitted", targetId: "other", edited: true } });
    expect(message?.harnessTargetId).toBe(brand.target("other"));
    expect(message?.payload).toMatchObject({ content: [{ type: "text", text: "fix only the parser test" }] });
  });

  test("an unknown target appends a notice, keeps the proposal pending and sends nothing", async () => {
    const s = await open();
    const { interactionId } = s.controller.proposals.open({ type: "baton" }, request);
    await expect(s.controller.proposals.submit(interactionId, { targetId: "nope" })).rejects.toThrow(/nope/);
    const events = ledgerOf(s);
    expect(users(events)).toHaveLength(0);
    expect(resolutionOf(events, interactionId)).toBeUndefined();
    expect(events.some((e) => e.kind === "_baton_notice" && /not sent/.test((e.payload as { title: string }).title))).toBe(true);
    expect(s.controller.proposals.pending().map((p) => p.interactionId)).toEqual([interactionId]);
  });

  test("a resolved proposal cannot be submitted or dismissed again (nothing written)", async () => {
    const s = await open();
    const { interactionId } = s.controller.proposals.open({ type: "baton" }, request);
    s.controller.proposals.dismiss(interactionId);
    const before = ledgerOf(s).length;
    await expect(s.controller.proposals.submit(interactionId)).rejects.toThrow(/no longer pending/);
    expect(() => s.controller.proposals.dismiss(interactionId)).toThrow(/no longer pending/);
    expect(ledgerOf(s).length).toBe(before);
  });

  test("withdrawal resolves a pending proposal cancelled by its requester", async () => {
    const s = await open();
    const { interactionId } = s.controller.proposals.open({ type: "plugin", pluginInstanceId: "pi_abc" }, request);
    expect(s.controller.proposals.withdraw(interactionId)).toBe(true);
    expect(s.controller.proposals.withdraw(interactionId)).toBe(false);
    const resolved = resolutionOf(ledgerOf(s), interactionId);
    expect(resolved?.payload).toMatchObject({ resolution: { outcome: "cancelled", reason: "requester" } });
    expect(resolved?.source).toEqual({ type: "plugin", pluginInstanceId: "pi_abc" });
  });

  test("recovery on reopen keeps a Baton proposal pending (it waits for no process)", async () => {
    const s = await open();
    const { interactionId } = s.controller.proposals.open({ type: "baton" }, request);
    const id = s.ref.batonSessionId;
    await s.close();
    sessions = [];
    const reopened = await open(id);
    expect(reopened.controller.proposals.pending().map((p) => p.interactionId)).toEqual([interactionId]);
    expect(await reopened.controller.proposals.submit(interactionId)).toBe("completed");
  });
});
