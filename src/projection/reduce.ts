/**
 * The projection fold: `reduce(state, event) → state`, used identically live, on reopen and for
 * checkpoints. Pure: no I/O, no clock, no id minting.
 *
 * - Unknown kinds (not in the registry) return the same state (EV-08).
 * - An event whose seq is not above `lastSeq` was already folded in and returns the same state.
 * - An event that changes nothing returns the same state object; `lastSeq` only moves when something
 *   changed, so replaying the events after a checkpoint's `lastSeq` is always safe.
 * - Structural sharing: unchanged sub-trees keep their identity.
 * - Each `reduce` is a draft (`draft.ts`), and `replay`/`storedProjectionFold.batch` fold many events in
 *   one: nodes created during it are updated in place, nothing that existed before it is changed.
 */
import { isKnownEvent, type AnyEvent, type KnownEvent } from "../event/envelope.ts";
import { assertNever } from "../shared/assert.ts";
import { BatonError } from "../shared/errors.ts";
import { checkAttemptTransition, reduceAttemptUpdate } from "./attempts.ts";
import { decodeState, encodeState } from "./checkpoint-codec.ts";
import { assign, closeDraft, edits, inDraft, openDraft } from "./draft.ts";
import { reduceContextReceipt, reduceContextSnapshot } from "./context.ts";
import { reduceInputQueued, reduceInputUpdate } from "./inputs.ts";
import { reduceInteractionOpened, reduceInteractionResolved } from "./interactions.ts";
import { reduceFullMessage, reduceMessageChunk, reduceUserMessage } from "./messages.ts";
import { reduceFileCheckpoint } from "./file-checkpoints.ts";
import { reduceError, reduceNotice, reduceStallCleared, reduceStallNotice } from "./notices.ts";
import { reducePluginBinding } from "./plugins.ts";
import { reducePlanImplementationStarted, reducePlanUpdate, reduceProposedPlan } from "./plans.ts";
import { reduceApprovalReview } from "./reviews.ts";
import { extendTail, forgetTail, noteTail } from "./stream-tail.ts";
import { initialState, PROJECTION_VERSION, type ProjectionState } from "./state.ts";
import { reduceTurnSummary } from "./summary.ts";
import { reduceApprovalRoute, reduceAvailableCommands, reduceConfigOptions, reduceContextUsage } from "./targets.ts";
import { reduceTaskUpdate } from "./tasks.ts";
import { reduceToolCallUpdate, reduceToolContentChunk } from "./tools.ts";
import { reduceRunStatus, reduceStateUpdate } from "./turns.ts";
import { reduceUsage } from "./usage.ts";

function reduceKnown(state: ProjectionState, event: KnownEvent): ProjectionState {
  switch (event.kind) {
    case "state_update":
      return reduceStateUpdate(state, event);
    case "user_message":
      return reduceUserMessage(state, event);
    case "user_message_chunk":
      return reduceMessageChunk(state, event, "user");
    case "agent_message_chunk":
      return reduceMessageChunk(state, event, "agent");
    case "agent_thought_chunk":
      return reduceMessageChunk(state, event, "thought");
    case "agent_message":
      return reduceFullMessage(state, event, "agent");
    case "agent_thought":
      return reduceFullMessage(state, event, "thought");
    case "tool_call_update":
      return reduceToolCallUpdate(state, event);
    case "tool_call_content_chunk":
      return reduceToolContentChunk(state, event);
    case "plan_update":
      return reducePlanUpdate(state, event);
    case "proposed_plan":
      return reduceProposedPlan(state, event);
    case "proposed_plan_implementation_started":
      return reducePlanImplementationStarted(state, event);
    case "task_update":
      return reduceTaskUpdate(state, event);
    case "interaction.opened":
      return reduceInteractionOpened(state, event);
    case "interaction.resolved":
      return reduceInteractionResolved(state, event);
    case "approval_review_update":
      return reduceApprovalReview(state, event);
    case "approval_route_update":
      return reduceApprovalRoute(state, event);
    case "usage_update":
      return reduceUsage(state, event);
    case "context_usage_update":
      return reduceContextUsage(state, event);
    case "available_commands_update":
      return reduceAvailableCommands(state, event);
    case "config_option_update":
      return reduceConfigOptions(state, event);
    case "_baton_error_update":
      return reduceError(state, event);
    case "_baton_notice":
      return reduceNotice(state, event);
    case "_baton_run_status":
      return reduceRunStatus(state, event);
    case "_baton_stall_notice":
      return reduceStallNotice(state, event);
    case "_baton_stall_cleared":
      return reduceStallCleared(state, event);
    case "_baton_context_snapshot":
      return reduceContextSnapshot(state, event);
    case "_baton_context_delivery_receipt":
      return reduceContextReceipt(state, event);
    case "_baton_delivery_attempt_update":
      return reduceAttemptUpdate(state, event);
    case "_baton_turn_summary":
      return reduceTurnSummary(state, event);
    case "_baton_plugin_binding_update":
      return reducePluginBinding(state, event);
    case "_baton_input_queued":
      return reduceInputQueued(state, event);
    case "_baton_input_update":
      return reduceInputUpdate(state, event);
    case "_baton_checkpoint":
      return reduceFileCheckpoint(state, event);
    default:
      return assertNever(event, "event kind");
  }
}

export function reduce(state: ProjectionState, event: AnyEvent): ProjectionState {
  // A batch's run of chunks into one text block (`stream-tail.ts`): most of a load, folded before anything else.
  return extendTail(state, event) ? state : reduceEvent(state, event);
}

/** `reduce` of an event the stream tail did not take: anything folded through here forgets the tail. */
function reduceEvent(state: ProjectionState, event: AnyEvent): ProjectionState {
  if (event.seq <= state.lastSeq || !isKnownEvent(event)) return state;
  forgetTail();
  const opened = openDraft();
  try {
    const before = edits();
    const next = reduceKnown(state, event);
    if (next === state && edits() === before) return state;
    const stamped = assign(next, "lastSeq", event.seq);
    const result = assign(stamped, "batonSessionId", next.batonSessionId ?? event.scope?.batonSessionId ?? null);
    if (!opened) noteTail(result, event);
    return result;
  } finally {
    if (opened) closeDraft();
  }
}

/** Folds `events` onto `from` (default: a fresh state) in one draft; `from` is not changed. */
export function replay(events: Iterable<AnyEvent>, from: ProjectionState = initialState()): ProjectionState {
  return inDraft(() => {
    let state = from;
    for (const event of events) state = reduce(state, event);
    return state;
  });
}

/**
 * The fold for a stored ledger (open, export, doctor, checkpoints): `reduce`, except that an event the
 * transition guards refuse (ATT-05: e.g. `accepted` before `prepared`) is an error rather than an
 * anomaly noted and ignored — a ledger that breaks the state machine does not open. The live pipeline
 * keeps `reduce`: the controller checks each transition before appending.
 */
export function reduceStored(state: ProjectionState, event: AnyEvent): ProjectionState {
  if (extendTail(state, event)) return state; // a chunk the stream tail folds changes no attempt
  const anomalies = state.attemptAnomalies;
  const next = reduceEvent(state, event);
  if (next.attemptAnomalies !== anomalies) {
    const anomaly = next.attemptAnomalies.at(-1);
    if (anomaly !== undefined) {
      const verdict = checkAttemptTransition(anomaly.from, anomaly.to);
      const reason = verdict.ok ? "transition not allowed" : verdict.reason;
      throw new BatonError("ledger_corrupt", `delivery attempt ${anomaly.attemptId}: ${reason}`);
    }
  }
  return next;
}

/** A checkpointed state must not carry anomalies a full replay would refuse. */
export function checkStoredState(state: ProjectionState): ProjectionState {
  const anomaly = state.attemptAnomalies[0];
  if (anomaly !== undefined) throw new BatonError("ledger_corrupt", `the state records a refused attempt transition of ${anomaly.attemptId} (seq ${anomaly.seq})`);
  return state;
}

/** How a stored ledger folds into the projection (the store's `StateFold` shape: checkpoints, open, export). */
export const storedProjectionFold = {
  version: PROJECTION_VERSION,
  initial: (): ProjectionState => initialState(),
  fold: reduceStored,
  /** Nothing in the projection reads `raw` (the verbatim wire message): a load leaves it unparsed. */
  readsRaw: false,
  /** A load folds its events in one draft (the state it returns is immutable from then on). */
  batch: inDraft,
  decode: (value: unknown): ProjectionState => checkStoredState(value as ProjectionState),
  /** Incremental checkpoints (`checkpoint-codec.ts`): a turn end writes what the turn changed. */
  encodeNodes: encodeState,
  decodeNodes: decodeState,
};
