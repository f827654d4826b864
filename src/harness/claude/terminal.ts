/** How a Claude `result` ends a Baton turn (CLA-06): stop reason, error text and code. */
import type { SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import type { AdapterDraft } from "../../event/envelope.ts";
import type { LimitCode } from "../../event/limit-codes.ts";
import type { StopReason } from "../../event/stop-reasons.ts";
import type { TurnId } from "../../shared/ids.ts";
import { adapterDraft } from "../drafts.ts";

export function isAborted(result: SDKResultMessage): boolean {
  return result.terminal_reason === "aborted_streaming" || result.terminal_reason === "aborted_tools";
}

export function errorTextOf(result: SDKResultMessage): string {
  const text = result.subtype === "success" ? result.result : result.errors.join("\n");
  return text || `Claude turn failed (${result.subtype})`;
}

export function errorCodeOf(result: SDKResultMessage): string {
  const type = (result as { api_error_type?: unknown }).api_error_type;
  if (typeof type === "string") return type;
  const status = result.subtype === "success" ? result.api_error_status : undefined;
  if (typeof status === "number") return `http_${status}`;
  return result.subtype === "success" ? "error" : result.subtype;
}

/**
 * The closed limit codes at the boundary (#20.3): an Anthropic 429 (`rate_limit_error`, Claude Code's
 * `rate_limit`) is `rate_limited`, unless Claude Code reported the plan's usage limit as reached
 * (`rate_limit_event` status `rejected`): then `quota_exhausted`. Claude's own word is kept as nativeCode.
 */
export function errorCodesOf(result: SDKResultMessage, usageRejected: boolean): { readonly code: string; readonly nativeCode?: string } {
  const native = errorCodeOf(result);
  const status = result.subtype === "success" ? result.api_error_status : undefined;
  if (status !== 429 && native !== "rate_limit_error" && native !== "rate_limit") return { code: native };
  return { code: (usageRejected ? "quota_exhausted" : "rate_limited") satisfies LimitCode, nativeCode: native };
}

/**
 * The Anthropic stop reasons a finished Claude turn can carry, as Baton stop reasons. Measured with Claude Code
 * 2.1.332: a model answer ends `end_turn` (or `stop_sequence`, `pause_turn`); `/compact` and local commands such
 * as `/model` end with `stop_reason: null` (no model answer to stop). Anything else is a word Baton does not know.
 */
const ANTHROPIC_STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: "end_turn",
  stop_sequence: "end_turn",
  pause_turn: "end_turn",
  max_tokens: "max_tokens",
  model_context_window_exceeded: "max_tokens",
  refusal: "refusal",
};

export interface ClaudeTerminal {
  readonly stopReason: StopReason;
  /** Claude's own word when it was not one Baton knows (kept beside the closed reason). */
  readonly unknown?: string;
}

/** How a settled, non-error result ends its turn; an unknown stop reason is a failure, never `end_turn`. */
export function terminalOf(result: SDKResultMessage): ClaudeTerminal {
  if (result.subtype === "error_max_turns") return { stopReason: "max_turn_requests" };
  if (result.subtype !== "success") return { stopReason: "failed" };
  const native = result.stop_reason;
  if (native === null) return { stopReason: "end_turn" };
  const known = Object.hasOwn(ANTHROPIC_STOP_REASONS, native) ? ANTHROPIC_STOP_REASONS[native] : undefined;
  return known === undefined ? { stopReason: "failed", unknown: native } : { stopReason: known };
}

/** HTTP statuses a retry cannot fix (a rejected request, credentials, permission): the turn fails at once. */
const UNRETRYABLE_HINTS: Readonly<Record<number, string>> = {
  400: "the API rejected the request as invalid",
  401: "the API key or login was rejected: check ANTHROPIC_API_KEY, or log in again with claude /login",
  403: "this key or account is not allowed to do this: check its permissions and the model",
};

export function isUnretryable(status: number | null | undefined): status is number {
  return typeof status === "number" && Object.hasOwn(UNRETRYABLE_HINTS, status);
}

export function unretryableMessage(status: number, category: string): string {
  return `Claude API error ${status} (${category}), not retried: ${UNRETRYABLE_HINTS[status] ?? "retrying cannot fix it"}`;
}

/** A warning on the turn when Claude ended it with a stop reason Baton does not know (the turn counts as failed). */
export function unknownStopNotice(terminal: ClaudeTerminal, turnId: TurnId, raw: unknown): AdapterDraft | undefined {
  if (terminal.unknown === undefined) return undefined;
  const title = `Claude Code ended the turn with stop reason '${terminal.unknown}', which Baton does not know; the turn counts as failed`;
  return adapterDraft("_baton_notice", { level: "warning", title }, { turnId, raw });
}
