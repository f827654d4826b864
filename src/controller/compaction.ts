/**
 * What a `/compact` control turn leaves in the transcript (#11.15): "Context compacted (N → M tokens)" from
 * the target's context use when the turn started and when it ended, or why it did not happen. Pure.
 */
import { outcomeOfStopReason, type StopReason } from "../event/stop-reasons.ts";
import type { DraftPayloadOf } from "../event/kinds.ts";
import { ownGet, type ProjectionState } from "../projection/index.ts";
import type { TargetId } from "../shared/ids.ts";

/** The target's context-window use as the projection last heard it, if it did. */
export function contextUsedOf(state: ProjectionState, targetId: TargetId): number | undefined {
  return ownGet(state.perTarget, targetId)?.contextUsage?.contextUsed ?? undefined;
}

/** The turn-record fields of a compaction admitted now. */
export function compactFields(state: ProjectionState, targetId: TargetId): { compact: true; contextBefore?: number } {
  const before = contextUsedOf(state, targetId);
  return before === undefined ? { compact: true } : { compact: true, contextBefore: before };
}

/** Made at the first compaction: building an Intl.NumberFormat costs 2–5 ms (ICU data), paid by every session open otherwise. */
let tokens: Intl.NumberFormat | undefined;
const formatTokens = (value: number): string => (tokens ??= new Intl.NumberFormat("en-US")).format(value);

export function compactionNotice(before: number | undefined, after: number | undefined, stopReason: StopReason | undefined): DraftPayloadOf<"_baton_notice"> {
  const outcome = outcomeOfStopReason(stopReason);
  if (outcome === "completed") {
    const known = before !== undefined && after !== undefined && after !== before;
    return { level: "info", title: known ? `Context compacted (${formatTokens(before)} → ${formatTokens(after)} tokens)` : "Context compacted" };
  }
  if (outcome === "cancelled") return { level: "info", title: "Compaction cancelled" };
  return { level: "warning", title: `Compaction failed (${stopReason ?? "unknown"})` };
}
