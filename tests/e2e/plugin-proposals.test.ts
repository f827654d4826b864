/**
 * Proposals from plugins (plugins.md §4, PRO-01, RES-06) through a real session (temp BATON_HOME, real store,
 * fake harnesses) and the loops fixture in a real runner: a reconcile's `proposed-input` is a `proposed_input`
 * interaction that blocks nothing; it is deduplicated (also across dismissal and reopen); submitting writes the
 * resolution first and links the prompt by parentEventId; a newer generation or a deletion withdraws it; a
 * finished turn is a Turn resource the fixture's Turn controller proposes after.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { selectPendingProposals, type ProposalItem } from "../../src/projection/index.ts";
import { fakeDefinition, type FakeAdapter } from "../support/fake-adapter.ts";
import { waitUntil } from "../support/baton-process.ts";
import { LOOPS_DIR } from "../support/plugin-rig.ts";
import { pluginSessions, type PluginSession } from "../support/plugin-session.ts";
import { kindsOf, ledgerOf, type TestHome } from "../support/session-host.ts";

setDefaultTimeout(30_000);

const TASK = { apiVersion: "loops.baton.dev/v1", kind: "Task" };
const task = (name: string) => ({ ...TASK, name });

const plugins = pluginSessions();

interface Loop extends PluginSession {
  readonly fake: { adapters: FakeAdapter[] };
  readonly other: { adapters: FakeAdapter[] };
  proposals(): readonly ProposalItem[];
}

async function loop(options: { config?: unknown; home?: TestHome; reopen?: string } = {}): Promise<Loop> {
  const fake = fakeDefinition({ turns: [[{ type: "text", text: "done" }], [{ type: "text", text: "again" }]] });
  const other = fakeDefinition({ turns: [[{ type: "text", text: "other done" }]] }, "other");
  const opened = await plugins.open({ dir: LOOPS_DIR, definitions: [fake, other], ...options });
  return { ...opened, fake, other, proposals: () => selectPendingProposals(opened.session.controller.state) };
}

const opened = (events: readonly AnyEvent[]) => events.filter((e) => e.kind === "interaction.opened" && (e.payload as { draft: { type: string } }).draft.type === "proposed_input");

describe("plugin proposals", () => {
  test("a proposed-input is one proposed_input card from the plugin, with its basis; it blocks nothing; a status write adds no second card", async () => {
    const l = await loop();
    await l.store().create({ ...TASK, metadata: { name: "p" }, spec: { mode: "propose", text: "run the tests" } });
    await l.settle();
    const [card, ...more] = l.proposals();
    expect(more).toEqual([]);
    expect(card?.draft).toMatchObject({ type: "proposed_input", text: "run the tests (gen 1)" });
    expect(card?.requester).toEqual({ type: "plugin", pluginInstanceId: l.pluginInstanceId });
    const created = await l.store().get(task("p"));
    expect(card?.draft.pluginContext).toMatchObject({
      pluginId: "baton-test/loops",
      resource: { ...TASK, name: "p", uid: created?.metadata.uid },
      basedOnGeneration: 1,
      basedOnResourceVersion: "1",
    });
    expect(card?.draft.dedupeKey).toMatch(/^pp_[0-9a-f]{64}$/);
    expect(card?.turnId).toBeNull();
    expect(l.session.controller.state.runState).toBe("idle");

    // The status write wakes the controller, which says the same again: same suggestion, no second card.
    await l.store().patchStatus(task("p"), { seen: 1 });
    await l.settle();
    expect(l.proposals()).toHaveLength(1);
    expect(opened(ledgerOf(l.session))).toHaveLength(1);
  });

  test("a dismissed proposal never returns: not on the next reconcile, not after the session and its plugins reopen", async () => {
    const home = plugins.home();
    const first = await loop({ home });
    await first.store().create({ ...TASK, metadata: { name: "p" }, spec: { mode: "propose", text: "look again" } });
    await first.settle();
    const [card] = first.proposals();
    first.session.controller.proposals.dismiss(card?.interactionId ?? "");
    await first.store().patchStatus(task("p"), { poke: 1 });
    await first.settle();
    expect(first.proposals()).toEqual([]);
    const id = first.session.ref.batonSessionId;
    await first.rig.manager.close();
    await first.session.close();

    // Reopened: the initial pass reconciles p again and the plugin proposes the same text — nothing appears.
    const again = await loop({ home, reopen: id });
    await again.settle();
    const ledger = ledgerOf(again.session);
    expect(opened(ledger)).toHaveLength(1);
    expect(kindsOf(ledger)).toContain("resolved:dismissed");
    expect(again.proposals()).toEqual([]);
  });

  test("submit: the resolution is written first, the prompt links to it by parentEventId, with the user's text and target", async () => {
    const l = await loop();
    await l.store().create({ ...TASK, metadata: { name: "p" }, spec: { mode: "propose", text: "write docs" } });
    await l.settle();
    const [card] = l.proposals();
    const outcome = await l.session.controller.proposals.submit(card?.interactionId ?? "", { text: "write the docs, briefly", targetId: "other" });
    expect(outcome).toBe("completed");
    const ledger = ledgerOf(l.session);
    const resolved = ledger.find((e) => e.kind === "interaction.resolved" && (e.payload as { interactionId: string }).interactionId === card?.interactionId);
    const user = ledger.find((e) => e.kind === "user_message");
    expect(resolved?.payload).toMatchObject({ resolution: { outcome: "submitted", targetId: "other", edited: true } });
    expect(user?.parentEventId).toBe(resolved?.eventId);
    expect((user?.payload as { messageId: string }).messageId).toBe((resolved?.payload as { resolution: { messageId: string } }).resolution.messageId);
    expect((resolved?.seq ?? 0) < (user?.seq ?? 0)).toBe(true);
    expect(JSON.stringify(l.other.adapters[0]?.record.prompts.at(-1))).toContain("write the docs, briefly");
    expect(l.fake.adapters.flatMap((a) => a.record.prompts)).toEqual([]);
    expect(l.proposals()).toEqual([]);
  });

  test("a newer generation withdraws the pending proposal (cancelled by the requester) and proposes anew; deleting the resource withdraws that one", async () => {
    const l = await loop();
    await l.store().create({ ...TASK, metadata: { name: "p" }, spec: { mode: "propose", text: "step" } });
    await l.settle();
    const [gen1] = l.proposals();
    await l.store().replaceSpec(task("p"), { mode: "propose", text: "step" });
    await l.settle();
    expect(l.proposals()).toHaveLength(1);
    await l.store().replaceSpec(task("p"), { mode: "propose", text: "next step" });
    await l.settle();
    const [gen2, ...rest] = l.proposals();
    expect(rest).toEqual([]);
    expect(gen2?.draft.text).toBe("next step (gen 2)");
    const resolutions = ledgerOf(l.session).filter((e) => e.kind === "interaction.resolved");
    expect(resolutions.map((e) => [(e.payload as { interactionId: string }).interactionId, e.source] as unknown[])).toEqual([
      [gen1?.interactionId, { type: "plugin", pluginInstanceId: l.pluginInstanceId }],
    ]);
    expect(kindsOf(resolutions)).toEqual(["resolved:cancelled/requester"]);
    await l.store().delete(task("p"));
    await l.settle();
    expect(l.proposals()).toEqual([]);
    expect(kindsOf(ledgerOf(l.session).filter((e) => e.kind === "interaction.resolved"))).toEqual(["resolved:cancelled/requester", "resolved:cancelled/requester"]);
  });

  test("RES-06: a finished turn is a Turn resource (name = turnId, resourceVersion = its summary's seq) the Turn controller proposes after", async () => {
    const l = await loop({ config: { turns: "propose", target: "other" } });
    expect(await l.session.controller.submit("fake", [{ type: "text", text: "hello there" }], { displayText: "hello there" })).toBe("completed");
    await l.session.controller.pipeline.sync();
    const summary = ledgerOf(l.session).find((e) => e.kind === "_baton_turn_summary");
    const turnId = (summary?.payload as { turnId: string }).turnId;
    await waitUntil(() => l.proposals().length === 1, 10_000, "the proposal after the turn");
    await l.settle();
    const [card] = l.proposals();
    expect(card?.draft).toMatchObject({ text: 'Follow up on "hello there" (end_turn)', targetId: "other", title: "Loops follow-up" });
    expect(card?.draft.pluginContext).toMatchObject({ resource: { apiVersion: "baton.dev/v1alpha1", kind: "Turn", name: turnId, uid: `turn-${summary?.seq}` }, basedOnResourceVersion: String(summary?.seq) });
    const turn = await l.store().get({ apiVersion: "baton.dev/v1alpha1", kind: "Turn", name: turnId });
    expect(turn).toMatchObject({ metadata: { namespace: "baton-system", generation: 1, resourceVersion: String(summary?.seq) }, spec: { turnId, userText: "hello there", agentText: "done", harnessTargetId: "fake" } });
    await expect((async () => l.store().patchStatus({ apiVersion: "baton.dev/v1alpha1", kind: "Turn", name: turnId }, { x: 1 }))()).rejects.toThrow("read-only");

    // Sent as suggested: it goes to the suggested target and that turn, too, gets its follow-up.
    await l.session.controller.proposals.submit(card?.interactionId ?? "");
    await waitUntil(() => l.proposals().length === 1 && l.proposals()[0]?.interactionId !== card?.interactionId, 10_000, "the second follow-up");
    expect(l.proposals()[0]?.draft.text).toBe('Follow up on "Follow up on "hello there" (end_turn)" (end_turn)');
  });
});
