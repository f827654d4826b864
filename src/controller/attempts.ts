/** Delivery Attempts (ATT-01..05): phases recorded on the turn record and appended as facts. */
import type { AttemptOutcome, AttemptPhase, LaunchSnapshot } from "../event/kinds.ts";
import { outcomeOfStopReason, type StopReason } from "../event/stop-reasons.ts";
import { checkAttemptTransition } from "../projection/index.ts";
import type { AppendFn } from "./pipeline.ts";
import type { TurnRecord } from "./turn-record.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

/** The §3.5 machine, shared with the reducer (which skips what this refuses). */
export function canMoveAttempt(from: AttemptPhase | undefined, to: AttemptPhase): boolean {
  return checkAttemptTransition(from ?? null, to).ok;
}

export interface AttemptFields {
  readonly inputId?: string;
  readonly launchSnapshot?: LaunchSnapshot;
  readonly outcome?: AttemptOutcome;
  readonly detail?: string;
}

/** Append one attempt phase for the record's attempt; invalid transitions are a bug and throw. */
export function recordAttempt(append: AppendFn, record: TurnRecord, phase: AttemptPhase, fields: AttemptFields = {}): void {
  if (!record.attemptId) throw new Error(`turn ${record.turnId} has no attempt`);
  if (!canMoveAttempt(record.attemptPhase, phase)) {
    throw new Error(`attempt ${record.attemptId}: ${record.attemptPhase ?? "none"} → ${phase} is not allowed`);
  }
  append({
    kind: "_baton_delivery_attempt_update",
    payload: { attemptId: record.attemptId, phase, ...fields },
    source: BATON_SOURCE,
    ...(record.admissionEventId !== undefined ? { parentEventId: record.admissionEventId } : {}),
    turnId: record.turnId,
    harnessTargetId: record.targetId,
  });
  record.attemptPhase = phase;
}

/** ATT-03: the outcome a harness terminal implies (a terminal without a reason is a failure). */
export function outcomeOf(stopReason: StopReason | null | undefined): AttemptOutcome {
  return outcomeOfStopReason(stopReason ?? undefined);
}
