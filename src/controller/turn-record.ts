/** The controller's turn ledger entry (§3.5 "Turn (controller ledger)"): live bookkeeping for one turn. */
import type { AttemptId, EventId, TargetId, TurnId } from "../shared/ids.ts";
import type { TimerHandle } from "../shared/clock.ts";
import type { PromptInputRecord } from "../input/input.ts";
import type { AttemptPhase, TurnRole } from "../event/kinds.ts";

export interface TurnRecord {
  readonly turnId: TurnId;
  readonly role: TurnRole;
  readonly targetId: TargetId;
  /** The admitted input of a driven prompt turn (absent for control and observed turns). */
  readonly input?: PromptInputRecord;
  /** Compaction control turn (TURN-10). */
  readonly compact?: boolean;
  /** A compaction's target context use when it started (its notice says "N → M tokens"). */
  readonly contextBefore?: number;
  readonly steers: string[];
  /** preparing: nothing dispatched yet (cancel closes it at once); dispatched: the harness has it. */
  phase: "preparing" | "dispatched";
  /**
   * The event that admitted the turn (ATT-01): its user message, or for a control turn its admission
   * (`_baton_input_update`) or `running`. The attempt's events, steers and the summary point at it.
   */
  admissionEventId?: EventId;
  attemptId?: AttemptId;
  attemptPhase?: AttemptPhase;
  cancelRequested: boolean;
  graceTimer?: TimerHandle;
  /** Set when admission or startup failed: the submitter's promise rejects with it. */
  failure?: Error;
  finalized: boolean;
  /** Seq of the turn's user message, set at admission (a rewind to before this turn forks just before it). */
  firstSeq?: number;
  /** The before-turn file checkpoint being taken (started at admission, awaited before dispatch). */
  checkpoint?: Promise<void>;
  /** A before-turn file checkpoint was recorded: one is taken after the turn too. */
  checkpointed?: boolean;
}
