/**
 * Baton's reserved read-only Turn resources (RES-06): `baton.dev/v1alpha1 Turn` in namespace `baton-system`,
 * one per `_baton_turn_summary` of the session, derived from the projection (never stored by a plugin): name =
 * turnId, uid = `turn-<seq>` (the summary's ledger seq; the projection keeps no event id), resourceVersion =
 * that seq, generation 1; spec = the summary in words (prompt, steers, agent text, tool calls, how it ended)
 * with its target, harness and session. Pure.
 */
import { listAt, listSlice, summaryTexts, type ProjectionState, type TurnSummaryEntry } from "../../projection/index.ts";
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

/**
 * Every Turn of the session, oldest first. Summaries are only ever appended, so after a turn end the list is the
 * previous one plus the new turns' resources: building every turn's again resolved each earlier turn's texts (its
 * messages, read from the checkpoint in a session opened from one) at every turn end of a session with a loop.
 * A state whose summaries do not extend the ones listed (another session's, a rebuilt projection) is listed afresh.
 */
let memo: { readonly summaries: ProjectionState["turnSummaries"]; readonly last: TurnSummaryEntry | undefined; readonly turns: readonly ResourceObject[] } | undefined;
export function turnResources(state: ProjectionState): readonly ResourceObject[] {
  const summaries = state.turnSummaries;
  if (memo?.summaries === summaries) return memo.turns;
  const known = memo !== undefined && summaries.length >= memo.turns.length && listAt(summaries, memo.turns.length - 1) === memo.last ? memo.turns : [];
  const added = listSlice(summaries, known.length).map((entry) => turnResource(state, entry));
  const turns = added.length === 0 ? known : [...known, ...added];
  memo = { summaries, last: listAt(summaries, summaries.length - 1), turns };
  return turns;
}
