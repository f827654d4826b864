/**
 * Per-turn cost in a long session (issue #18): a turn's catch-up resolves the texts of the turns it may deliver
 * (after the binding's epoch), not of every earlier turn — same catch-up, byte for byte, for every cut; and it reads
 * only the summaries after the cut (`deliverableRecords`), numbered as in the whole session.
 */
import { afterEach, expect, test } from "bun:test";
import { assembleCatchUp } from "../../src/context/catch-up.ts";
import { deliverableRecords, summaryRecords } from "../../src/controller/context-delivery.ts";
import { PAGE_SIZE } from "../../src/projection/index.ts";
import { targetIdOf, type TurnId } from "../../src/shared/ids.ts";
import { READ_AHEAD } from "../../src/app/read-ahead.ts";
import { loadedNodeStats, trimLoadedNodes } from "../../src/store/checkpoint-nodes.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { testSessions } from "../support/session-host.ts";

const sessions = testSessions();
const readAheadDelay = READ_AHEAD.delayMs;
afterEach(() => {
  READ_AHEAD.delayMs = readAheadDelay;
});

test("summaryRecords since a seq: texts only after it, and the same catch-up as from every record", async () => {
  const said = (text: string) => [{ type: "text" as const, text }, { type: "end" as const }];
  const opened = await sessions.open({ definitions: [fakeDefinition({ turns: [said("one"), said("two"), said("three"), said("four")] })] });
  for (const prompt of ["first", "second", "third", "fourth"]) expect(await opened.controller.submit("fake", [{ type: "text", text: prompt }])).toBe("completed");
  const state = opened.controller.state;
  const label = (id: string): string => id;
  const full = summaryRecords(state, label);
  expect(full.map((record) => record.userText)).toEqual(["first", "second", "third", "fourth"]);
  for (const sinceSeq of [0, ...full.map((record) => record.seq)]) {
    const since = summaryRecords(state, label, sinceSeq);
    expect(since.filter((record) => record.seq <= sinceSeq).every((record) => record.userText === "" && record.agentText === "")).toBe(true);
    for (const fresh of [true, false]) {
      for (const targetId of [targetIdOf("fake"), targetIdOf("other")]) {
        for (const budgetChars of [100_000, 60, 0]) {
          const request = { sinceSeq, fresh, targetId, budgetChars };
          expect(assembleCatchUp({ ...request, summaries: since })).toEqual(assembleCatchUp({ ...request, summaries: full }));
        }
      }
    }
  }
});

test("deliverableRecords: only the summaries after a seq, numbered in the session, texts only of turns that may be relayed; the same catch-up as from every record (pages and tail, opened from a checkpoint)", async () => {
  const definitions = [fakeDefinition({ turns: [] })];
  const first = await sessions.open({ definitions });
  const TURNS = PAGE_SIZE + 40; // full pages and a tail
  for (let turn = 0; turn < TURNS; turn++) {
    const turnId = `t_01KCATCHUP${String(turn).padStart(15, "0")}` as TurnId;
    const harnessTargetId = targetIdOf(turn % 3 === 0 ? "other" : "fake");
    const harness = { source: { type: "harness" as const, harnessTargetId }, harness: "fake", harnessTargetId };
    const append = first.controller.pipeline.append;
    append({ kind: "user_message", source: { type: "user" }, turnId, harnessTargetId, payload: { messageId: `m_u${turn}`, content: [{ type: "text", text: `question ${turn}` }], delivery: "prompt" } });
    append({ kind: "agent_message_chunk", ...harness, turnId, payload: { messageId: `m_a${turn}`, content: { type: "text", text: `answer ${turn}` } } });
    append({ kind: "state_update", ...harness, turnId, payload: { state: "idle", stopReason: turn % 7 === 0 ? "failed" : "end_turn" } });
    const now = new Date().toISOString();
    append({ kind: "_baton_turn_summary", source: { type: "baton" }, turnId, harnessTargetId, payload: { turnId, role: "driven", stopReason: turn % 7 === 0 ? "failed" : "end_turn", userText: `question ${turn}`, agentText: turn % 7 === 0 ? "" : `answer ${turn}`, toolCalls: [], startedAt: now, endedAt: now } } as never);
  }
  await first.close();
  sessions.forget(first);
  const opened = await sessions.open({ definitions, choice: { kind: "id", id: first.ref.batonSessionId } }, true);
  expect(opened.loaded.fromCheckpoint).toBe(true);
  const state = opened.controller.state;
  const label = (id: string): string => id;
  const full = summaryRecords(state, label);
  expect(full.length).toBe(TURNS);
  const cuts = [0, 1, full[0]!.seq, full[PAGE_SIZE - 1]!.seq, full[PAGE_SIZE]!.seq, full[TURNS - 2]!.seq, full[TURNS - 1]!.seq, ...full.filter((_, i) => i % 37 === 5).map((record) => record.seq + 1)];
  for (const sinceSeq of cuts) {
    const { records, firstNumber } = deliverableRecords(state, label, sinceSeq);
    expect(records.map((record) => record.seq)).toEqual(full.filter((record) => record.seq > sinceSeq).map((record) => record.seq));
    expect(firstNumber).toBe(full.length - records.length);
    for (const fresh of [true, false]) {
      for (const targetId of [targetIdOf("fake"), targetIdOf("other")]) {
        // As planDelivery asks: a resumed target's own turns are not resolved (never relayed back to it).
        const asked = fresh ? records : deliverableRecords(state, label, sinceSeq, (id) => id !== targetId).records;
        if (!fresh) expect(asked.filter((record) => record.targetId === targetId).every((record) => record.userText === "" && record.agentText === "")).toBe(true);
        for (const budgetChars of [100_000, 400, 0]) {
          const request = { sinceSeq, fresh, targetId, budgetChars };
          expect(assembleCatchUp({ ...request, summaries: asked, firstNumber })).toEqual(assembleCatchUp({ ...request, summaries: full }));
        }
      }
    }
  }
});

test("a fresh agent in a long session reads the messages of the turns it is sent, not of every turn (opened from a checkpoint)", async () => {
  READ_AHEAD.delayMs = 60_000; // nothing read in the background meanwhile
  const definitions = [fakeDefinition({ turns: [] })];
  const first = await sessions.open({ definitions });
  const TURNS = 300;
  const answer = (turn: number): string => `answer ${turn}: ${"the module is renamed and its tests pass. ".repeat(70)}`;
  for (let turn = 0; turn < TURNS; turn++) {
    const turnId = `t_01KCATCHUP${String(turn).padStart(15, "0")}` as TurnId;
    const harnessTargetId = targetIdOf("fake");
    const harness = { source: { type: "harness" as const, harnessTargetId }, harness: "fake", harnessTargetId };
    const append = first.controller.pipeline.append;
    append({ kind: "user_message", source: { type: "user" }, turnId, harnessTargetId, payload: { messageId: `m_u${turn}`, content: [{ type: "text", text: `question ${turn}` }], delivery: "prompt" } });
    append({ kind: "agent_message", ...harness, turnId, payload: { messageId: `m_a${turn}`, content: [{ type: "text", text: answer(turn) }] } });
    append({ kind: "state_update", ...harness, turnId, payload: { state: "idle", stopReason: "end_turn" } });
    // As the controller writes it (buildTurnSummary): the texts are named by their messages, not copied.
    append({ kind: "_baton_turn_summary", source: { type: "baton" }, turnId, harnessTargetId, payload: { turnId, role: "driven", stopReason: "end_turn", userMessageId: `m_u${turn}`, agentMessageIds: [`m_a${turn}`], toolCalls: [] } } as never);
  }
  await first.close();
  sessions.forget(first);
  const opened = await sessions.open({ definitions, choice: { kind: "id", id: first.ref.batonSessionId } }, true);
  expect(opened.loaded.fromCheckpoint).toBe(true);
  trimLoadedNodes(0);
  const reads = (): number => loadedNodeStats().count + loadedNodeStats().evictions;
  const before = reads();
  const { records, firstNumber } = deliverableRecords(opened.controller.state, (id) => id, 0);
  const catchUp = assembleCatchUp({ summaries: records, firstNumber, sinceSeq: 0, fresh: true, targetId: targetIdOf("other"), budgetChars: 4 * answer(0).length });
  expect(catchUp?.turns).toBe(4); // three whole, the oldest of them cut to fit
  expect(catchUp?.omitted).toBe(TURNS - 4);
  expect(catchUp?.text.includes(answer(TURNS - 1).trim())).toBe(true);
  expect(catchUp?.text).toContain(`question ${TURNS - 3}`);
  // The four turns' messages and the paths to them, and the summaries' pages: resolving every turn read > 600.
  expect(reads() - before).toBeLessThan(40);
});
