/**
 * Turn usage from a `session/prompt` result (an unstable field: the SDK's stable entry strips it). The schema calls
 * these totals "across the session", but both agents measured report the turn's own usage (claude-agent-acp 0.49
 * and codex-acp 2.6: two identical turns give identical figures, a turn with two model calls gives twice the
 * figures), which is what Baton's `usage_update` (a delta, accumulated) wants. Absent or zero usage adds nothing.
 */
import type { Usage } from "@agentclientprotocol/sdk/unstable";
import type { DraftPayloadOf } from "../../event/kinds.ts";

const count = (value: number | null | undefined): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);

export function turnUsage(usage: Usage | null | undefined): DraftPayloadOf<"usage_update"> | undefined {
  if (usage === undefined || usage === null) return undefined;
  const payload = {
    inputTokens: count(usage.inputTokens),
    outputTokens: count(usage.outputTokens),
    cacheReadTokens: count(usage.cachedReadTokens),
    cacheWriteTokens: count(usage.cachedWriteTokens),
    reasoningTokens: count(usage.thoughtTokens),
  };
  return Object.values(payload).some((value) => value > 0) ? payload : undefined;
}
