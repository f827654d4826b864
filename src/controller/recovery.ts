/**
 * Recovery on open (ATT-04, IX-05, TURN-02): what a dead process left running is closed — never re-sent.
 * Attempts: prepared-only → not_accepted; a harness terminal in the ledger → finalized; else → uncertain.
 * Pending harness/Baton interactions → cancelled/recovery; plugin ones and proposals (they wait for no process) stay pending.
 */
import { buildTurnSummary, type ProjectionState } from "../projection/index.ts";
import type { TargetId, TurnId } from "../shared/ids.ts";
import { tableGet, tableValues } from "../projection/table.ts";
import type { Clock } from "../shared/clock.ts";
import { outcomeOf } from "./attempts.ts";
import { repairOpenTools } from "./repair.ts";
import type { AppendFn } from "./pipeline.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

export const RECOVERY_NOTICE = "Baton exited while this turn was running; the turn was closed when the session was reopened";
export const TORN_TAIL_NOTICE = "The session's last line was incomplete (a crash or a full disk); it was moved aside and the session continues from its last complete event";

export interface RecoveryReport {
  readonly turnsClosed: number;
  readonly attemptsSettled: number;
  readonly interactionsCancelled: number;
  /** A torn last line the store moved aside when the session was opened. */
  readonly tornTail?: TornTailRepair;
  /** Inputs left queued (never sent): restored paused. */
  readonly inputsPaused?: number;
}

/** A torn last line moved aside by the store at open (what the user is told). */
export interface TornTailRepair {
  readonly sidecar: string;
  readonly bytes: number;
}

export function recoverOnOpen(current: () => ProjectionState, append: AppendFn, clock: Clock, tornTail?: TornTailRepair): RecoveryReport {
  if (tornTail !== undefined) {
    append({
      kind: "_baton_notice",
      payload: { level: "warning", title: TORN_TAIL_NOTICE, detail: `${tornTail.bytes} bytes were moved to ${tornTail.sidecar}` },
      source: BATON_SOURCE,
    });
  }
  const state = current();
  let attemptsSettled = 0;
  let interactionsCancelled = 0;
  // Unfinished turns: running ones, and admitted ones that died before `running` or before their summary.
  const openTurns = new Map<TurnId, { turnId: TurnId; harnessTargetId: TargetId | null; closed: boolean }>();
  for (const turn of Object.values(state.activeTurns)) openTurns.set(turn.turnId, { turnId: turn.turnId, harnessTargetId: turn.harnessTargetId, closed: false });
  for (const data of tableValues(state.turnData)) {
    if (openTurns.has(data.turnId)) continue;
    openTurns.set(data.turnId, { turnId: data.turnId, harnessTargetId: data.harnessTargetId, closed: tableGet(state.stopReasons, data.turnId) !== undefined });
  }

  for (const interactionId of state.pendingInteractionIds) {
    const interaction = tableGet(state.interactions, interactionId);
    if (!interaction || interaction.requester.type === "plugin" || interaction.draft.type === "proposed_input") continue;
    append({
      kind: "interaction.resolved",
      payload: { interactionId, resolution: { outcome: "cancelled", reason: "recovery" } },
      source: BATON_SOURCE,
      ...(interaction.turnId ? { turnId: interaction.turnId } : {}),
      ...(interaction.harnessTargetId ? { harnessTargetId: interaction.harnessTargetId } : {}),
    });
    interactionsCancelled++;
  }

  for (const attempt of tableValues(state.attempts)) {
    if (attempt.phase === "finalized") continue;
    const base = {
      source: BATON_SOURCE,
      ...(attempt.admissionEventId ? { parentEventId: attempt.admissionEventId } : {}),
      ...(attempt.turnId ? { turnId: attempt.turnId } : {}),
      ...(attempt.harnessTargetId ? { harnessTargetId: attempt.harnessTargetId } : {}),
    };
    const turnClosed = attempt.turnId !== null && tableGet(state.stopReasons, attempt.turnId) !== undefined && !state.activeTurns[attempt.turnId];
    if (attempt.phase === "prepared") {
      append({ kind: "_baton_delivery_attempt_update", payload: { attemptId: attempt.attemptId, phase: "finalized", outcome: "not_accepted", detail: "Baton exited before dispatch began" }, ...base });
    } else if (turnClosed && attempt.turnId !== null) {
      const stopReason = tableGet(state.stopReasons, attempt.turnId) ?? undefined;
      append({ kind: "_baton_delivery_attempt_update", payload: { attemptId: attempt.attemptId, phase: "finalized", outcome: outcomeOf(stopReason), detail: "terminal found in the ledger" }, ...base });
    } else if (attempt.phase !== "uncertain") {
      append({ kind: "_baton_delivery_attempt_update", payload: { attemptId: attempt.attemptId, phase: "uncertain", detail: "Baton exited after dispatch; whether the harness finished the turn is unknown" }, ...base });
    } else {
      continue;
    }
    attemptsSettled++;
  }

  for (const turn of openTurns.values()) {
    const coordinates = {
      source: BATON_SOURCE,
      turnId: turn.turnId,
      ...(turn.harnessTargetId ? { harnessTargetId: turn.harnessTargetId } : {}),
    };
    if (!turn.closed) {
      append({ kind: "_baton_notice", payload: { level: "warning", title: RECOVERY_NOTICE }, ...coordinates });
      append({ kind: "state_update", payload: { state: "idle", stopReason: "unknown" }, ...coordinates });
    }
    // #11.15: the tool row of a turn closed here would read "Running" forever.
    repairOpenTools(current(), append, turn.turnId, turn.harnessTargetId);
    append({
      kind: "_baton_turn_summary",
      payload: buildTurnSummary(current(), turn.turnId, turn.closed ? undefined : "unknown", new Date(clock.now()).toISOString()),
      ...coordinates,
    });
  }
  return { turnsClosed: openTurns.size, attemptsSettled, interactionsCancelled, ...(tornTail === undefined ? {} : { tornTail }) };
}

