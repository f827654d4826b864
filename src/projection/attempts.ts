/**
 * Delivery Attempts (ATT-*, §3.5): `prepared → dispatching | finalized`; `dispatching → accepted |
 * uncertain | finalized`; `accepted → uncertain | finalized`; `uncertain → accepted | finalized`;
 * `finalized` is terminal. The `accepted` flag survives `uncertain`.
 *
 * The reducer never throws: a repeated phase is a re-delivery and changes nothing; any other disallowed
 * update is ignored and listed once in `attemptAnomalies`. The controller checks a transition before
 * appending with `checkAttemptTransition`.
 */
import type { EventOf } from "../event/envelope.ts";
import type { AttemptPhase } from "../event/kinds.ts";
import type { AttemptAnomaly, AttemptItem, ProjectionState } from "./state.ts";
import { tableGet, tableSet } from "./table.ts";

const ALLOWED: Readonly<Record<AttemptPhase, readonly AttemptPhase[]>> = {
  prepared: ["dispatching", "finalized"],
  dispatching: ["accepted", "uncertain", "finalized"],
  accepted: ["uncertain", "finalized"],
  uncertain: ["accepted", "finalized"],
  finalized: [],
};

export type AttemptTransitionVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly duplicate: boolean; readonly reason: string };

/** Is `from → to` allowed? `from` is null when no attempt with that id exists yet. */
export function checkAttemptTransition(from: AttemptPhase | null, to: AttemptPhase): AttemptTransitionVerdict {
  if (from === null) {
    return to === "prepared"
      ? { ok: true }
      : { ok: false, duplicate: false, reason: `attempt phase '${to}' before 'prepared'` };
  }
  if (from === to) return { ok: false, duplicate: true, reason: `attempt is already '${to}'` };
  if (ALLOWED[from].includes(to)) return { ok: true };
  return { ok: false, duplicate: false, reason: `attempt transition '${from}' → '${to}' is not allowed` };
}

function noteAnomaly(state: ProjectionState, anomaly: AttemptAnomaly): ProjectionState {
  const seen = state.attemptAnomalies.some(
    (a) => a.attemptId === anomaly.attemptId && a.from === anomaly.from && a.to === anomaly.to,
  );
  return seen ? state : { ...state, attemptAnomalies: [...state.attemptAnomalies, anomaly] };
}

export function reduceAttemptUpdate(
  state: ProjectionState,
  event: EventOf<"_baton_delivery_attempt_update">,
): ProjectionState {
  const p = event.payload;
  const existing = tableGet(state.attempts, p.attemptId);
  const from = existing?.phase ?? null;
  const verdict = checkAttemptTransition(from, p.phase);
  if (!verdict.ok) {
    if (verdict.duplicate) return state;
    return noteAnomaly(state, { seq: event.seq, attemptId: p.attemptId, from, to: p.phase });
  }
  let attempt: AttemptItem;
  if (existing === undefined) {
    attempt = {
      attemptId: p.attemptId,
      phase: p.phase,
      accepted: false,
      inputId: p.inputId ?? null,
      launchSnapshot: p.launchSnapshot ?? null,
      outcome: null,
      detail: p.detail ?? null,
      turnId: event.turnId ?? null,
      harnessTargetId: event.harnessTargetId ?? null,
      admissionEventId: event.parentEventId ?? null,
      preparedSeq: event.seq,
      updatedSeq: event.seq,
    };
  } else {
    attempt = {
      ...existing,
      phase: p.phase,
      accepted: existing.accepted || p.phase === "accepted",
      outcome: p.phase === "finalized" ? (p.outcome ?? existing.outcome) : existing.outcome,
      detail: p.detail ?? existing.detail,
      turnId: existing.turnId ?? event.turnId ?? null,
      updatedSeq: event.seq,
    };
  }
  return { ...state, attempts: tableSet(state.attempts, p.attemptId, attempt) };
}
