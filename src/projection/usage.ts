/** Token usage (EV-06): `usage_update` carries deltas, accumulated per session and per turn. */
import type { EventOf } from "../event/envelope.ts";
import type { PayloadOf } from "../event/kinds.ts";
import { assign } from "./draft.ts";
import type { ProjectionState, UsageTotals } from "./state.ts";
import { withTurnData } from "./turn-data.ts";

type UsageDelta = PayloadOf<"usage_update">;

function count(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** `total + delta`; the same object when the delta adds nothing. `isEstimated` sticks once seen. */
export function addUsage(total: UsageTotals, delta: UsageDelta): UsageTotals {
  const next: UsageTotals = {
    inputTokens: total.inputTokens + count(delta.inputTokens),
    outputTokens: total.outputTokens + count(delta.outputTokens),
    cacheReadTokens: total.cacheReadTokens + count(delta.cacheReadTokens),
    cacheWriteTokens: total.cacheWriteTokens + count(delta.cacheWriteTokens),
    reasoningTokens: total.reasoningTokens + count(delta.reasoningTokens),
    isEstimated: total.isEstimated || delta.isEstimated === true,
  };
  const same =
    next.inputTokens === total.inputTokens &&
    next.outputTokens === total.outputTokens &&
    next.cacheReadTokens === total.cacheReadTokens &&
    next.cacheWriteTokens === total.cacheWriteTokens &&
    next.reasoningTokens === total.reasoningTokens &&
    next.isEstimated === total.isEstimated;
  return same ? total : next;
}

export function reduceUsage(state: ProjectionState, event: EventOf<"usage_update">): ProjectionState {
  const usage = addUsage(state.usage, event.payload);
  const next = assign(state, "usage", usage);
  return withTurnData(next, event.turnId ?? null, (data) => {
    const turnUsage = addUsage(data.usage, event.payload);
    return turnUsage === data.usage ? data : { ...data, usage: turnUsage };
  });
}
