/**
 * Turns (TURN-01/02, IX-04): the active set keyed by turnId, per-turn phase, and the session runState.
 * Turn projection machine: running ⇄ requires_action → removed on idle(turnId). Role and startedAt come
 * from the first running. A turn closed once stays closed: a late running for it is inert.
 */
import type { EventOf } from "../event/envelope.ts";
import type { StopReason } from "../event/stop-reasons.ts";
import type { TurnId } from "../shared/ids.ts";
import { assign } from "./draft.ts";
import { ownGet, recordDelete, recordSet } from "./record.ts";
import type { ActiveTurn, ProjectionState, SessionRunState, TurnRole, TurnStreaming } from "./state.ts";
import { tableGet, tableHas, tableSet } from "./table.ts";
import { withTurnData } from "./turn-data.ts";

function roleOf(event: EventOf<"state_update">): TurnRole {
  return event.source.type === "harness" ? "observed" : "driven";
}

function hasPendingFor(state: ProjectionState, turnId: TurnId): boolean {
  for (const id of state.pendingInteractionIds) {
    if (tableGet(state.interactions, id)?.turnId === turnId) return true;
  }
  return false;
}

/**
 * `pendingCount` counts the pending interactions that block: those of a turn (plugins.md §4). A proposal, or a
 * question Baton or a plugin asks outside any turn, waits for the user without making the session require action.
 */
/** Pending interactions that block: those of a turn (plugins.md §4). */
export function blockingInteractionCount(state: Pick<ProjectionState, "pendingInteractionIds" | "interactions">): number {
  let count = 0;
  for (const id of state.pendingInteractionIds) if ((tableGet(state.interactions, id)?.turnId ?? null) !== null) count++;
  return count;
}

export function deriveRunState(activeTurns: Readonly<Record<TurnId, ActiveTurn>>, pendingCount: number): SessionRunState {
  if (pendingCount > 0) return "requires_action";
  let any = false;
  for (const turn of Object.values(activeTurns)) {
    any = true;
    if (turn.state === "requires_action") return "requires_action";
  }
  return any ? "running" : "idle";
}

/** Re-derives each active turn's state and the session runState; same object when nothing moved. */
export function settleTurns(state: ProjectionState): ProjectionState {
  let active = state.activeTurns;
  for (const turn of Object.values(state.activeTurns)) {
    const turnId = turn.turnId;
    const desired = turn.nativeState === "requires_action" || hasPendingFor(state, turnId) ? "requires_action" : "running";
    if (desired !== turn.state) active = recordSet(active, turnId, { ...turn, state: desired });
  }
  const runState = deriveRunState(active, blockingInteractionCount(state));
  if (active === state.activeTurns && runState === state.runState) return state;
  return { ...state, activeTurns: active, runState };
}

function closeTurn(state: ProjectionState, turnId: TurnId, stopReason: StopReason | null): ProjectionState {
  const activeTurns = recordDelete(state.activeTurns, turnId);
  const stopReasons = tableHas(state.stopReasons, turnId) ? state.stopReasons : tableSet(state.stopReasons, turnId, stopReason);
  if (activeTurns === state.activeTurns && stopReasons === state.stopReasons) return state;
  return { ...state, activeTurns, stopReasons };
}

function openOrUpdateTurn(state: ProjectionState, event: EventOf<"state_update">, turnId: TurnId): ProjectionState {
  if (tableHas(state.stopReasons, turnId)) return state;
  const nativeState = event.payload.state === "requires_action" ? "requires_action" : "running";
  const target = event.harnessTargetId ?? null;
  const existing = ownGet(state.activeTurns, turnId);
  if (existing !== undefined) {
    const harnessTargetId = existing.harnessTargetId ?? target;
    if (existing.nativeState === nativeState && existing.harnessTargetId === harnessTargetId) return state;
    return { ...state, activeTurns: recordSet(state.activeTurns, turnId, { ...existing, nativeState, harnessTargetId }) };
  }
  const role = roleOf(event);
  const turn: ActiveTurn = {
    turnId,
    role,
    state: nativeState,
    nativeState,
    startedAt: event.ts,
    startedSeq: event.seq,
    harnessTargetId: target,
    phase: null,
    phaseTitle: null,
    retrying: false,
    streaming: null,
  };
  const next = { ...state, activeTurns: recordSet(state.activeTurns, turnId, turn) };
  return withTurnData(next, turnId, (data) =>
    data.role !== null
      ? data
      : { ...data, role, startedAt: data.startedAt ?? event.ts, harnessTargetId: data.harnessTargetId ?? target },
  );
}

export function reduceStateUpdate(state: ProjectionState, event: EventOf<"state_update">): ProjectionState {
  const turnId = event.turnId ?? null;
  const stopReason = event.payload.stopReason ?? null;
  let next = state;
  if (event.payload.state === "idle") {
    if (turnId !== null) {
      next = closeTurn(state, turnId, stopReason);
    } else {
      // Legacy: an idle without turnId clears every active turn.
      for (const turn of Object.values(state.activeTurns)) next = closeTurn(next, turn.turnId, stopReason);
    }
  } else if (turnId !== null) {
    next = openOrUpdateTurn(state, event, turnId);
  }
  return next === state ? state : settleTurns(next);
}

/** `_baton_run_status`: a transient per-turn phase; dropped when the turn is not active; null clears. */
export function reduceRunStatus(state: ProjectionState, event: EventOf<"_baton_run_status">): ProjectionState {
  const turnId = event.turnId;
  if (turnId === undefined) return state;
  const turn = ownGet(state.activeTurns, turnId);
  if (turn === undefined) return state;
  const phase = event.payload.phase;
  const phaseTitle = phase === null ? null : (event.payload.title ?? null);
  if (turn.phase === phase && turn.phaseTitle === phaseTitle) return state;
  return assign(state, "activeTurns", recordSet(state.activeTurns, turnId, { ...turn, phase, phaseTitle }));
}

function setRetrying(state: ProjectionState, turnId: TurnId | null, retrying: boolean): ProjectionState {
  if (turnId === null) return state;
  const turn = ownGet(state.activeTurns, turnId);
  if (turn === undefined || turn.retrying === retrying) return state;
  return assign(state, "activeTurns", recordSet(state.activeTurns, turnId, { ...turn, retrying }));
}

/** An error that will be retried marks its turn `retrying` (activity label "retrying…"). */
export function markRetrying(state: ProjectionState, turnId: TurnId | null): ProjectionState {
  return setRetrying(state, turnId, true);
}

/** Any output of the turn ends its retrying state. */
export function clearRetrying(state: ProjectionState, turnId: TurnId | null): ProjectionState {
  return setRetrying(state, turnId, false);
}

/** Notes what an active turn streams now (drives "responding…" vs "thinking…"); same state when unchanged. */
export function noteStreaming(state: ProjectionState, turnId: TurnId | null, streaming: TurnStreaming): ProjectionState {
  if (turnId === null) return state;
  const turn = ownGet(state.activeTurns, turnId);
  if (turn === undefined || turn.streaming === streaming) return state;
  return assign(state, "activeTurns", recordSet(state.activeTurns, turnId, { ...turn, streaming }));
}
