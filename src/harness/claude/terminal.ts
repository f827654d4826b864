/** How a Claude `result` ends a Baton turn (CLA-06): stop reason, error text and code. */
import type { SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import { normalizeStopReason } from "../normalize.ts";

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

export function stopReasonOf(result: SDKResultMessage): string {
  if (result.subtype === "error_max_turns") return "max_turn_requests";
  if (result.subtype !== "success") return "failed";
  return normalizeStopReason(result.stop_reason === "max_tokens" || result.stop_reason === "refusal" ? result.stop_reason : "end_turn");
}
