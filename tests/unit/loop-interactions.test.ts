/**
 * The loops' interactions (#18): proposals and what plugins asked are indexed in the order they opened
 * (`loopInteractionIds`), and the interaction a turn waited on last is known (`lastTurnCardId`), so the loops' lookups
 * (a proposal by dedupe key, a plugin's questions, "the same question again?") and the inbox's "exited while waiting"
 * read those, not every approval of the session — which, in a session opened from a checkpoint, read every
 * interaction's record from the node file. Proofs: the index is exactly the filter over all interactions, in open
 * order; on a checkpoint of 300 approvals the lookups read a handful of records.
 */
import { afterEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EventDraft } from "../../src/event/envelope.ts";
import { findProposal, isProposal, loopInteractions, selectWaiting, tableValues, type ProjectionState } from "../../src/projection/index.ts";
import { pluginInteractionsOf } from "../../src/plugin/resources/snapshot.ts";
import type { ResourceObject } from "../../src/plugin/resources/schema.ts";
import { loadState, writeCheckpoint } from "../../src/store/checkpoint.ts";
import { loadedNodeStats, trimLoadedNodes } from "../../src/store/checkpoint-nodes.ts";
import { append, FOLD, ledgerAt } from "../support/checkpointed-session.ts";

const dirs: string[] = [];
afterEach(() => {
  trimLoadedNodes(0);
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const PLUGIN = "pi_0123456789abcdef";
const TASK = { apiVersion: "example.dev/v1", kind: "Task", metadata: { name: "lint", uid: "pr_task" } } as unknown as ResourceObject;
const harness = { source: { type: "harness", harnessTargetId: "codex" }, harness: "codex", harnessTargetId: "codex" } as const;

/** An approval the agent asked for in turn `n` (a record of its own: its draft is long), resolved. */
function* approval(n: number): Generator<EventDraft> {
  const turnId = `t_${String(n).padStart(5, "0")}` as never;
  const interactionId = `ix_approval_${n}`;
  const command = `npm test -- --grep "case ${n}" ${"--reporter=verbose ".repeat(12)}`;
  yield { kind: "interaction.opened", ...harness, turnId, payload: { interactionId, requester: { type: "harness", harnessTargetId: "codex" }, draft: { type: "permission", title: `Bash: ${command}`, toolCallId: `call_${n}`, options: [{ optionId: "allow", name: "Allow", polarity: "allow", lifetime: "once" }, { optionId: "reject", name: "Deny", polarity: "reject", lifetime: "once" }] } } } as EventDraft;
  yield { kind: "interaction.resolved", ...harness, turnId, payload: { interactionId, resolution: { outcome: "selected", optionId: "allow" }, resolvedBy: { type: "user" } } } as EventDraft;
}

/** A resolved event of interaction `interactionId` (the session waits for nothing). */
const resolved = (interactionId: string, resolution: unknown): EventDraft => ({ kind: "interaction.resolved", source: { type: "baton" }, payload: { interactionId, resolution, resolvedBy: { type: "user" } } }) as EventDraft;

function* proposal(n: number): Generator<EventDraft> {
  yield { kind: "interaction.opened", source: { type: "baton" }, payload: { interactionId: `ix_proposal_${n}`, requester: { type: "plugin", pluginInstanceId: PLUGIN }, draft: { type: "proposed_input", title: `try ${n}`, text: "run it", dedupeKey: `key_${n}` } } } as EventDraft;
  yield resolved(`ix_proposal_${n}`, { outcome: "dismissed" });
}

function* question(n: number): Generator<EventDraft> {
  const pluginContext = { decisionKey: `decide_${n}`, resource: { apiVersion: "example.dev/v1", kind: "Task", name: "lint", uid: "pr_task" } };
  yield { kind: "interaction.opened", source: { type: "baton" }, payload: { interactionId: `ix_question_${n}`, requester: { type: "plugin", pluginInstanceId: PLUGIN }, draft: { type: "question", questions: [{ questionId: "q", header: "Pick", question: "Which?", options: [{ label: "a" }, { label: "b" }] }], pluginContext } } } as EventDraft;
  yield resolved(`ix_question_${n}`, { outcome: "answered", answers: { q: ["a"] } });
}

function* session(approvals: number): Generator<EventDraft> {
  for (let n = 0; n < approvals; n++) {
    yield* approval(n);
    if (n % 100 === 50) yield* proposal(n);
    if (n % 100 === 70) yield* question(n);
  }
}

const idsOf = (items: readonly { readonly interactionId: string }[]): string[] => items.map((item) => item.interactionId);
const expectedLoop = (state: ProjectionState): string[] =>
  tableValues(state.interactions)
    .filter((item) => isProposal(item) || item.requester.type === "plugin")
    .sort((a, b) => a.openedSeq - b.openedSeq)
    .map((item) => item.interactionId as string);

test("the loops' interactions are the proposals and plugin questions in open order; the last turn-bound card is the newest one", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-loops-"));
  dirs.push(dir);
  const ledger = ledgerAt(path.join(dir, "session.jsonl"));
  let state = FOLD.initial();
  expect(state.lastTurnCardId).toBeNull();
  state = append(ledger, state, session(230));
  expect(idsOf(loopInteractions(state))).toEqual(expectedLoop(state));
  expect(idsOf(loopInteractions(state))).toEqual(["ix_proposal_50", "ix_question_70", "ix_proposal_150", "ix_question_170"]);
  expect(String(state.lastTurnCardId)).toBe("ix_approval_229");
  state = append(ledger, state, proposal(999)); // a proposal is no turn's card
  expect(String(state.lastTurnCardId)).toBe("ix_approval_229");
  expect(String(findProposal(state, "key_999")?.interactionId)).toBe("ix_proposal_999");
  await ledger.close();
});

test("on a session of 300 approvals opened from a checkpoint, the loops' lookups read the loops' records, not every approval's", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-loops-"));
  dirs.push(dir);
  const file = path.join(dir, "session.jsonl");
  const writer = ledgerAt(file);
  const built = append(writer, FOLD.initial(), session(300));
  await writer.sync();
  expect(await writeCheckpoint(writer, FOLD, built, writer.position)).toBe(true);
  await writer.close();

  const reader = ledgerAt(file, true);
  const loaded = loadState(reader, FOLD, { verify: "sync" });
  expect(loaded.fromCheckpoint).toBe(true);
  const state = loaded.state;
  trimLoadedNodes(0);
  const reads = (): number => loadedNodeStats().count + loadedNodeStats().evictions;
  const before = reads();
  expect(String(findProposal(state, "key_250")?.interactionId)).toBe("ix_proposal_250");
  expect(findProposal(state, "no such key")).toBeUndefined();
  expect(pluginInteractionsOf(state, PLUGIN, TASK).map((item) => item["decisionKey"])).toEqual(["decide_70", "decide_170", "decide_270"]);
  expect(selectWaiting(state)).toBeUndefined(); // the last card was answered
  // Six loop interactions and the last card, and the index paths to them: every approval is > 300 records.
  expect(reads() - before).toBeLessThan(60);
  expect(tableValues(state.interactions)).toHaveLength(306);
  expect(reads() - before).toBeGreaterThan(300);
  await reader.close();
});
