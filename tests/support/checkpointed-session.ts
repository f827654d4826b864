/**
 * A ledger of realistic turns with an incremental checkpoint at its end, for tests of states opened from one
 * (eviction, reading ahead): each turn a prompt, an answer of ~5 KB, a tool call with ~4 KB of output, a summary —
 * ≈ 9 KB of records per turn, every item a record of its own.
 */
import * as path from "node:path";
import { expect } from "bun:test";
import type { EventDraft } from "../../src/event/envelope.ts";
import { initialState, storedProjectionFold, type ProjectionState } from "../../src/projection/index.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type BatonSessionId, type TurnId } from "../../src/shared/ids.ts";
import { loadState, writeCheckpoint, type StateFold } from "../../src/store/checkpoint.ts";
import { openLedger, type Ledger } from "../../src/store/ledger.ts";

export const SESSION = "bs_0000000000000000000000000E" as BatonSessionId;
export const FOLD: StateFold<ProjectionState> = { ...storedProjectionFold, initial: () => initialState(SESSION) };

let idBlock = 0;

/** The ledger at `file` (each opener mints ids from its own block, so two never collide). */
export function ledgerAt(file: string, readOnly = false, batonSessionId: BatonSessionId = SESSION): Ledger {
  idBlock += 1_000_000;
  return openLedger({ path: file, batonSessionId, clock: new ManualClock(), ids: createSequentialIdSource(idBlock), readOnly });
}

const text = (chars: number, salt: string): string => `${salt} `.repeat(Math.ceil(chars / (salt.length + 1))).slice(0, chars);

/** Turn `turn`: ids `m_u_<turn>`, `m_a_<turn>`, `call_<turn>`, `t_<turn, 5 digits>`. */
export function* turnOf(turn: number): Generator<EventDraft> {
  const turnId = `t_${String(turn).padStart(5, "0")}` as TurnId;
  const h = { source: { type: "harness", harnessTargetId: "codex" }, harness: "codex", harnessTargetId: "codex", turnId } as const;
  yield { kind: "user_message", source: { type: "user" }, turnId, payload: { messageId: `m_u_${turn}`, content: [{ type: "text", text: `ask ${turn}` }], delivery: "prompt" } };
  yield { kind: "state_update", ...h, payload: { state: "running" } };
  yield { kind: "agent_message", ...h, payload: { messageId: `m_a_${turn}`, content: [{ type: "text", text: text(5000, `answer${turn}`) }] } };
  yield { kind: "tool_call_update", ...h, payload: { toolCallId: `call_${turn}`, title: `run ${turn}`, status: "completed", content: [{ type: "text", text: text(4000, `out${turn}`) }] } };
  yield { kind: "state_update", ...h, payload: { state: "idle", stopReason: "end_turn" } };
  yield { kind: "_baton_turn_summary", source: { type: "baton" }, turnId, payload: { turnId, role: "driven", stopReason: "end_turn", toolCalls: [] } } as EventDraft;
}

/** `drafts` appended to `ledger`, each folded into `state` as the live session does. */
export function append(ledger: Ledger, state: ProjectionState, drafts: Iterable<EventDraft>): ProjectionState {
  let next = state;
  for (const draft of drafts) next = FOLD.fold(next, ledger.append(draft));
  return next;
}

/** A session of `turns` turns in `dir` (its `session.jsonl`), with a checkpoint at its end; returns the ledger's path. */
export async function checkpointedSession(dir: string, turns: number, batonSessionId: BatonSessionId = SESSION): Promise<string> {
  const file = path.join(dir, "session.jsonl");
  const ledger = ledgerAt(file, false, batonSessionId);
  let state = initialState(batonSessionId);
  for (let turn = 0; turn < turns; turn++) state = append(ledger, state, turnOf(turn));
  await ledger.sync();
  expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
  await ledger.close();
  return file;
}

/** The ledger folded from its first line, the checkpoint ignored. */
export const fullReduce = (file: string): ProjectionState => loadState(ledgerAt(file, true), FOLD, { useCheckpoint: false }).state;
