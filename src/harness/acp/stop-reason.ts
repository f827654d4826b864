/**
 * ACP's stop reasons in Baton's closed vocabulary (src/event/stop-reasons.ts), at the boundary. The table is typed
 * over the SDK's own union, so a stop reason a newer SDK adds fails the typecheck until it is mapped here. What an
 * agent sends outside the union is `failed` (never a success); a prompt result without one is `unknown`. The
 * agent's own word is kept as `nativeStopReason` whenever it is not a Baton member as is.
 */
import type { StopReason as AcpStopReason } from "@agentclientprotocol/sdk/unstable";
import type { StopReason } from "../../event/stop-reasons.ts";

const MAPPED: Readonly<Record<AcpStopReason, StopReason>> = {
  end_turn: "end_turn",
  max_tokens: "max_tokens",
  max_turn_requests: "max_turn_requests",
  refusal: "refusal",
  cancelled: "cancelled",
};

export function acpStopReason(raw: unknown): StopReason {
  if (raw === undefined || raw === null || raw === "") return "unknown";
  return typeof raw === "string" && Object.hasOwn(MAPPED, raw) ? MAPPED[raw as AcpStopReason] : "failed";
}
