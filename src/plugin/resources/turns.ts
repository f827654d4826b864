/**
 * Baton's reserved read-only Turn resources (RES-06): `baton.dev/v1alpha1 Turn` in namespace `baton-system`,
 * one per `_baton_turn_summary` of the session, derived from the projection (never stored by a plugin): name =
 * turnId, uid = `turn-<seq>` (the summary's ledger seq; the projection keeps no event id), resourceVersion =
 * that seq, generation 1; spec = the summary in words (prompt, steers, agent text, tool calls, how it ended)
 * with its target, harness and session. Pure.
 */
import { allSummaries, summaryTexts, type ProjectionState, type TurnSummaryEntry } from "../../projection/index.ts";
import { BATON_SYSTEM_NAMESPACE, TURN_TYPE, type Json, type ResourceObject } from "./schema.ts";

const EPOCH = new Date(0).toISOString();

function plain(value: Record<string, unknown>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined && item !== null) out[key] = item as Json;
  return out;
}

/** The Turn resource of one summary entry. */
export function turnResource(state: ProjectionState, entry: TurnSummaryEntry): ResourceObject {
  const texts = summaryTexts(state, entry);
  const target = entry.harnessTargetId === null ? undefined : state.perTarget[entry.harnessTargetId];
  return {
    ...TURN_TYPE,
    metadata: {
      name: entry.turnId,
      namespace: BATON_SYSTEM_NAMESPACE,
      uid: `turn-${entry.seq}`,
      generation: 1,
      resourceVersion: String(entry.seq),
      creationTimestamp: entry.endedAt ?? entry.startedAt ?? EPOCH,
    },
    spec: plain({
      turnId: entry.turnId,
      batonSessionId: state.batonSessionId ?? undefined,
      harnessTargetId: entry.harnessTargetId ?? undefined,
      harness: target?.harness ?? undefined,
      role: entry.role,
      stopReason: entry.stopReason,
      userText: texts.userText,
      steers: [...texts.steers],
      agentText: texts.agentText,
      toolCalls: entry.toolCalls.map((t) => ({ toolCallId: t.toolCallId, title: t.title, kind: t.kind, status: t.status })),
      startedAt: entry.startedAt,
      endedAt: entry.endedAt,
      revision: entry.seq,
    }),
    status: {},
  };
}

/** Every Turn of the session, oldest first (memoized on the summaries array, which only grows by copy). */
let memo: { summaries: ProjectionState["turnSummaries"]; turns: readonly ResourceObject[] } | undefined;
export function turnResources(state: ProjectionState): readonly ResourceObject[] {
  if (memo?.summaries === state.turnSummaries) return memo.turns;
  const turns = allSummaries(state).map((entry) => turnResource(state, entry));
  memo = { summaries: state.turnSummaries, turns };
  return turns;
}
