/** The closed vocabularies the event registry's payloads are made of (each value list once). */
export const TOOL_KINDS = ["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"] as const;
/** `interrupted`: the call's turn ended without a result Baton saw (a Baton repair, never claimed as completed). */
export const TOOL_STATUSES = ["pending", "in_progress", "completed", "failed", "declined", "interrupted"] as const;
export const RUN_STATES = ["running", "idle", "requires_action"] as const;
export const ATTEMPT_PHASES = ["prepared", "dispatching", "accepted", "uncertain", "finalized"] as const;
export const ATTEMPT_OUTCOMES = ["completed", "not_accepted", "failed", "cancelled"] as const;
/** `submit_side_channel` is read in older ledgers only; this Baton delivers by `sync_context` or `prompt_prepend`. */
export const CONTEXT_TRANSPORTS = ["sync_context", "submit_side_channel", "prompt_prepend"] as const;
/** Where a context snapshot's text comes from: the session's own history, or a plugin's Resource (plugins.md §5). */
export const CONTEXT_SOURCE_KINDS = ["session_history", "plugin_resource"] as const;
export const TASK_STATUSES = ["in_progress", "completed", "failed", "stopped"] as const;
export const RECONCILE_STATES = ["idle", "active", "waiting_approval", "waiting_input", "unknown"] as const;
/** Who answers a target's approvals, as its harness reported it (IX-08): the user, or a reviewer the harness runs. */
export const APPROVAL_ROUTES = ["user", "delegated"] as const;
/** The plugin binding states that are facts in the ledger (the transient ones live only in the manager). */
export const PLUGIN_BINDING_STATES = ["active", "failed", "closed"] as const;
/**
 * Why a binding failed (exit, hung, protocol, memory, activation, spawn) or closed (the rest). Unknown codes
 * from a newer Baton are shown as they are; an unknown state is read as failed.
 */
export const PLUGIN_REASON_CODES = [
  "exit",
  "hung",
  "protocol",
  "memory",
  "activation",
  "spawn",
  "disabled",
  "removed",
  "restart",
  "update",
  "reload",
  "shutdown",
  "recovery",
] as const;
/** How a queued input leaves the queue without a user message: taken back (↑), dropped (Esc), or admitted as a control turn. */
export const INPUT_EXITS = ["recalled", "dropped", "admitted"] as const;
export const CHECKPOINT_BOUNDARIES = ["before", "after", "rewind"] as const;
/** A turn Baton sent (driven) or one it saw run on the native session (observed). */
export const TURN_ROLES = ["driven", "observed"] as const;
/**
 * How a kind streams. `content`: a piece of a message or output that the complete one repairs (the ledger
 * batches its writes, the TUI throttles its publish); `tick`: a frequent counter (throttled publish, written at
 * once). A kind without `stream` is neither.
 */
export const STREAM_CLASSES = ["content", "tick"] as const;
