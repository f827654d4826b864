/**
 * The closed terminal vocabulary (invariant 2): how a turn ended, defined once. Adapters map their harness's
 * open strings into it at the boundary (the original goes in `nativeStopReason` and `raw`); everything after
 * the boundary switches over this union exhaustively. Unknown never means success.
 */
import { assertNever } from "../shared/assert.ts";

export const STOP_REASONS = [
  /** The agent finished its answer. */
  "end_turn",
  /** The answer was cut at the model's output limit. */
  "max_tokens",
  /** The harness stopped after its own limit of model requests. */
  "max_turn_requests",
  /** The model refused. */
  "refusal",
  /** Interrupted (by the user, or by Baton shutting down). */
  "cancelled",
  /** The harness reported a failure, or died. */
  "failed",
  /** Baton could not start or admit the turn. */
  "error",
  /** Closed by Baton without knowing how it ended (recovery after a crash, a reconcile that found it idle). */
  "unknown",
] as const;

export type StopReason = (typeof STOP_REASONS)[number];

/** What a stop reason means for the turn's input and its Delivery Attempt. */
export type TurnOutcome = "completed" | "cancelled" | "failed";

const MEMBERS: ReadonlySet<string> = new Set(STOP_REASONS);

export function isStopReason(value: unknown): value is StopReason {
  return typeof value === "string" && MEMBERS.has(value);
}

/**
 * A stop reason read from somewhere this Baton did not write it (an older ledger, a checkpoint): members pass,
 * absent stays absent, anything else is `unknown` — classified as a failure, never as a success.
 */
export function readStopReason(value: unknown): StopReason | undefined {
  if (value === undefined || value === null) return undefined;
  return isStopReason(value) ? value : "unknown";
}

/** ATT-03 / IN-08: a terminal's outcome. A terminal without a reason is a failure. */
export function outcomeOfStopReason(reason: StopReason | undefined): TurnOutcome {
  if (reason === undefined) return "failed";
  switch (reason) {
    case "end_turn":
    case "max_tokens":
    case "max_turn_requests":
    case "refusal":
      return "completed";
    case "cancelled":
      return "cancelled";
    case "failed":
    case "error":
    case "unknown":
      return "failed";
    default:
      return assertNever(reason, "stop reason");
  }
}
