/**
 * Plugin questions (plugins.md §4, PIX-01) through a real session (temp BATON_HOME, real store, fake harness) and the
 * Board fixture in a real runner: a Card whose spec.ask is set makes its reconcile return an `interaction`; that is
 * a `question` interaction requested by the plugin with no turn (it blocks nothing), one per card incarnation and
 * decisionKey; the answer — given as the TUI gives it, by label — is checked, stored as the optionId and synced
 * before the card is reconciled again, whose reconcile reads it from `pluginInteractions` and writes
 * status.answer; a deletion or a spec change withdraws a pending one; a reopened session still has it.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { tableGet, type InteractionItem } from "../../src/projection/index.ts";
import { mapCards } from "../../src/tui/map-cards.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { waitUntil } from "../support/baton-process.ts";
import { BOARD_DIR } from "../support/plugin-rig.ts";
import { pluginSessions, type PluginSession } from "../support/plugin-session.ts";
import { ledgerOf, type TestHome } from "../support/session-host.ts";

setDefaultTimeout(30_000);

const CARD = { apiVersion: "board.baton.dev/v1", kind: "Card" };
const card = (name: string) => ({ ...CARD, name });

const plugins = pluginSessions();

interface Board extends PluginSession {
  questions(): readonly InteractionItem[];
  reconciles(): string[];
}

async function board(options: { home?: TestHome; reopen?: string } = {}): Promise<Board> {
  const opened = await plugins.open({ dir: BOARD_DIR, definitions: [fakeDefinition({ turns: [[{ type: "text", text: "done" }]] })], ...options });
  const log = path.join(opened.session.ref.paths.dir, "plugins", "baton-test%2Fboard", opened.pluginInstanceId, "reconciles.log");
  return {
    ...opened,
    questions: () => opened.session.controller.pluginQuestions.pending(),
    reconciles: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []),
  };
}

const questionEvents = (events: readonly AnyEvent[]) => events.filter((e) => e.kind === "interaction.opened" && (e.payload as { draft: { type: string } }).draft.type === "question");

describe("plugin questions", () => {
  test("given a card that asks, then one question interaction is requested by the plugin, with no turn, and blocks nothing; reconciling again opens no second one", async () => {
    const b = await board();
    await b.store().create({ ...CARD, metadata: { name: "c1" }, spec: { title: "One", ask: "ship-c1" } });
    await b.settle();
    const [question, ...rest] = b.questions();
    expect(rest).toEqual([]);
    expect(question).toMatchObject({ requester: { type: "plugin", pluginInstanceId: b.pluginInstanceId }, turnId: null });
    const uid = (await b.store().get(card("c1")))?.metadata.uid;
    expect(question?.draft).toMatchObject({
      type: "question",
      questions: [{ questionId: "decision", header: "Card c1", question: "Ship card c1?", allowOther: false, options: [{ optionId: "ship", label: "Ship it" }, { optionId: "hold", label: "Hold", role: "reject" }] }],
      pluginContext: { decisionKey: "ship-c1", pluginId: "baton-test/board", resource: { ...card("c1"), uid }, basedOnGeneration: 1 },
    });
    expect(b.session.controller.state.runState).toBe("idle");
    // The TUI's dock shows it as a question card naming the plugin.
    const [shown] = mapCards(b.session.controller.state, b.questions(), () => ({ id: "x", label: "x", author: "x" }) as never);
    expect(shown).toMatchObject({ kind: "question", title: "Question from baton-test/board" });

    await b.store().patchStatus(card("c1"), { poke: 1 });
    await b.settle();
    expect(questionEvents(ledgerOf(b.session))).toHaveLength(1);
  });

  test("given an answer by label (as the TUI gives it), then the optionId is stored and synced first, and the next reconcile reads it and writes status.answer", async () => {
    const b = await board();
    await b.store().create({ ...CARD, metadata: { name: "c1" }, spec: { ask: "ship-c1" } });
    await b.settle();
    const [question] = b.questions();
    const id = question?.interactionId ?? "";
    await expect(b.session.controller.resolveInteraction(id, { outcome: "answered", answers: { decision: ["Maybe later"] } })).rejects.toThrow('"Maybe later" is not one of Ship it, Hold');
    expect(tableGet(b.session.controller.state.interactions, id)?.status).toBe("pending");

    await b.session.controller.resolveInteraction(id, { outcome: "answered", answers: { decision: ["Ship it"] } });
    expect(tableGet(b.session.controller.state.interactions, id)?.resolution).toEqual({ outcome: "answered", answers: { decision: ["ship"] } });
    await waitUntil(() => b.reconciles().includes('c1 {"type":"answered","values":["ship"]}'), 10_000, "the reconcile that reads the answer");
    await b.settle();
    expect((await b.store().get(card("c1")))?.status).toEqual({ answer: "ship" });
    expect(b.questions()).toEqual([]);
  });

  test.each([
    ["deleting the card", async (b: Board) => void (await b.store().delete(card("c1")))],
    ["a spec change", async (b: Board) => void (await b.store().replaceSpec(card("c1"), { ask: "ship-c1", title: "changed" }))],
  ])("given a pending question, when %s, then it is withdrawn (cancelled by the requester)", async (_what, change) => {
    const b = await board();
    await b.store().create({ ...CARD, metadata: { name: "c1" }, spec: { ask: "ship-c1" } });
    await b.settle();
    const id = b.questions()[0]?.interactionId ?? "";
    await change(b);
    await b.settle();
    expect(tableGet(b.session.controller.state.interactions, id)?.resolution).toEqual({ outcome: "cancelled", reason: "requester" });
    await expect(b.session.controller.resolveInteraction(id, { outcome: "answered", answers: { decision: ["ship"] } })).rejects.toThrow("no longer pending");
  });

  test("given a question still pending when the session closes, then the reopened session has it (recovery leaves it), and an answer there reaches the reconcile", async () => {
    const home = plugins.home();
    const first = await board({ home });
    await first.store().create({ ...CARD, metadata: { name: "c1" }, spec: { ask: "ship-c1" } });
    await first.settle();
    const id = first.questions()[0]?.interactionId;
    if (id === undefined) throw new Error("the plugin asked no question before the reopen");
    const sessionId = first.session.ref.batonSessionId;
    await first.rig.manager.close();
    await first.session.close();

    const again = await board({ home, reopen: sessionId });
    await again.settle();
    expect(again.questions().map((q) => q.interactionId)).toEqual([id]);
    expect(questionEvents(ledgerOf(again.session))).toHaveLength(1);
    await again.session.controller.resolveInteraction(id, { outcome: "answered", answers: { decision: ["hold"] } });
    await waitUntil(() => again.reconciles().includes('c1 {"type":"answered","values":["hold"]}'), 10_000, "the answer after the reopen");
    await again.settle();
    expect((await again.store().get(card("c1")))?.status).toEqual({ answer: "hold" });
  });
});
