/**
 * What a turn's terminal decides (TURN-02/03, ATT-03), as a pure function of the facts at hand: the first
 * terminal closes the turn (its delivery attempt observes it, a cancelled driven turn or a compaction says so);
 * a later one is inert, except that a late harness terminal settles an attempt a synthesized terminal left
 * `uncertain`. `TurnFinalizer` carries the decision out; this file only decides.
 */
import type { AttemptOutcome, AttemptPhase, TurnRole } from "../event/kinds.ts";
import { outcomeOfStopReason, type StopReason } from "../event/stop-reasons.ts";

export interface TerminalFacts {
  /** The terminal came from the harness (else Baton synthesized it: cancel grace, crash, close, admission). */
  readonly fromHarness: boolean;
  readonly stopReason: StopReason | undefined;
  /** The turn's live record, or undefined when there is none or it is already finalized. */
  readonly open?: {
    readonly role: TurnRole;
    readonly compact: boolean;
    /** The phase of its delivery attempt; undefined when it has none. */
    readonly attemptPhase: AttemptPhase | undefined;
  };
  /** An attempt of this turn was left `uncertain` by an earlier, synthesized terminal. */
  readonly uncertain: boolean;
}

export type AttemptStep =
  | { readonly phase: "accepted" }
  | { readonly phase: "finalized"; readonly outcome: AttemptOutcome; readonly detail?: string }
  | { readonly phase: "uncertain"; readonly detail: string };

export type TerminalDecision =
  | { readonly kind: "inert" }
  | { readonly kind: "settle_late"; readonly step: AttemptStep }
  | {
      readonly kind: "close";
      /** Attempt phases to append, in order. */
      readonly attempt: readonly AttemptStep[];
      /** Remember the attempt as uncertain: a late harness terminal may still settle it. */
      readonly awaitLate: boolean;
      readonly notice: "interrupted" | "compaction" | null;
    };

export function decideTerminal(facts: TerminalFacts): TerminalDecision {
  const { open, fromHarness, stopReason } = facts;
  const outcome = outcomeOfStopReason(stopReason);
  if (open === undefined) {
    return fromHarness && facts.uncertain ? { kind: "settle_late", step: { phase: "finalized", outcome, detail: "late harness terminal" } } : { kind: "inert" };
  }
  const notice = open.compact ? "compaction" : open.role === "driven" && stopReason === "cancelled" ? "interrupted" : null;
  const phase = open.attemptPhase;
  if (phase === undefined || phase === "finalized") return { kind: "close", attempt: [], awaitLate: false, notice };
  if (fromHarness) {
    const finalized: AttemptStep = { phase: "finalized", outcome };
    return { kind: "close", attempt: phase === "dispatching" ? [{ phase: "accepted" }, finalized] : [finalized], awaitLate: false, notice };
  }
  if (phase === "prepared") return { kind: "close", attempt: [{ phase: "finalized", outcome: "not_accepted", detail: "closed before dispatch" }], awaitLate: false, notice };
  const uncertain: AttemptStep[] = phase === "uncertain" ? [] : [{ phase: "uncertain", detail: `Baton closed the turn (${stopReason ?? "unknown"}) without a harness terminal` }];
  return { kind: "close", attempt: uncertain, awaitLate: true, notice };
}
