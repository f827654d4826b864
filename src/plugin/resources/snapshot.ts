/**
 * The BatonSnapshot a reconcile receives (REC-09), built from projection selectors: the session, active
 * turns, targets, pending interactions and the latest turn summaries (the last 50: a snapshot is sent on
 * every reconcile, so it stays small). Pure; the controller host deep-freezes it, the runner again.
 */
import type { ProjectionState } from "../../projection/index.ts";
import { selectPendingInteractions } from "../../projection/selectors.ts";

const TURNS_IN_SNAPSHOT = 50;

export function batonSnapshot(state: ProjectionState, cwd: string): Record<string, unknown> {
  const turns = state.turnSummaries.slice(-TURNS_IN_SNAPSHOT).map((s) => ({
    turnId: s.turnId,
    harnessTargetId: s.harnessTargetId,
    ...(s.stopReason === undefined ? {} : { stopReason: s.stopReason }),
    ...(s.userText === undefined ? {} : { userText: s.userText }),
    ...(s.agentText === undefined ? {} : { agentText: s.agentText }),
    toolCalls: s.toolCalls.map((t) => ({ toolCallId: t.toolCallId, title: t.title, kind: t.kind, status: t.status })),
    ...(s.startedAt === undefined ? {} : { startedAt: s.startedAt }),
    ...(s.endedAt === undefined ? {} : { endedAt: s.endedAt }),
    revision: s.seq,
  }));
  const latest = turns.at(-1);
  return {
    session: { batonSessionId: state.batonSessionId ?? "", cwd, runState: state.runState, revision: state.lastSeq },
    activeTurns: Object.values(state.activeTurns).map((t) => ({ turnId: t.turnId, harnessTargetId: t.harnessTargetId, state: t.state })),
    harnessTargets: Object.values(state.perTarget).map((t) => ({ harnessTargetId: t.harnessTargetId, harness: t.harness })),
    pendingInteractions: selectPendingInteractions(state).map((i) => ({ interactionId: i.interactionId, kind: i.draft.type, turnId: i.turnId })),
    ...(latest === undefined ? {} : { latestTurn: latest }),
    turns,
  };
}
