/** One error type for Baton, with a literal code. Domain failures are events; this is for bugs, I/O and usage. */
export type BatonErrorCode =
  | "usage"
  | "config_invalid"
  | "ledger_corrupt"
  | "ledger_io"
  | "session_not_found"
  | "session_id_invalid"
  | "session_locked"
  | "session_ambiguous"
  | "project_mismatch"
  | "meta_invalid"
  | "disk_full"
  | "target_unknown"
  | "target_ambiguous"
  | "harness_missing"
  | "harness_start_failed"
  | "harness_dead"
  | "prompt_unsupported"
  | "contract_violation"
  | "timeout"
  | "cancelled"
  | "not_pending"
  | "busy"
  | "native_unreadable"
  | "native_incomplete"
  | "native_diverged"
  | "plugin_invalid"
  | "plugin_not_found"
  | "plugin_exists"
  | "plugin_failed"
  | "plugin_consent"
  | "plugin_conflict"
  | "git_failed"
  | "rewind_refused"
  | "approvals_invalid"
  | "rule_not_found"
  | "internal";

export class BatonError extends Error {
  readonly code: BatonErrorCode;
  readonly hint: string | undefined;

  constructor(code: BatonErrorCode, message: string, options: { cause?: unknown; hint?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "BatonError";
    this.code = code;
    this.hint = options.hint;
  }
}

export function isBatonError(value: unknown, code?: BatonErrorCode): value is BatonError {
  return value instanceof BatonError && (code === undefined || value.code === code);
}

/** A short message for any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(error);
}
