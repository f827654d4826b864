/**
 * Turn summaries (EV-09). `buildTurnSummary` builds the `_baton_turn_summary` payload from the in-memory
 * per-turn data (O(turn), no ledger re-read); reducing a summary appends it once per turn (first wins)
 * and drops that turn's per-turn data.
 */
import { textOf } from "../event/content.ts";
import type { EventOf } from "../event/envelope.ts";
import type { TurnSummaryPayload } from "../event/kinds.ts";
import type { StopReason } from "../event/stop-reasons.ts";
import type { TargetId, TurnId } from "../shared/ids.ts";
import { assign } from "./draft.ts";
import { displayUserText } from "./display-text.ts";
import type { ProjectionState, TurnSummaryEntry, UsageTotals } from "./state.ts";
import { listPush, listToArray, type PagedList } from "./paged-list.ts";
import { tableDelete, tableGet, tableHas, tableSet } from "./table.ts";

type SummaryUsage = NonNullable<TurnSummaryPayload["usage"]>;
type SummaryToolCall = TurnSummaryPayload["toolCalls"][number];

function summaryUsage(usage: UsageTotals): SummaryUsage | undefined {
  if (usage.inputTokens === 0 && usage.outputTokens === 0) return undefined;
  const out: { -readonly [K in keyof SummaryUsage]: SummaryUsage[K] } = {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
  };
  if (usage.cacheReadTokens !== 0) out.cacheReadTokens = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== 0) out.cacheWriteTokens = usage.cacheWriteTokens;
  if (usage.reasoningTokens !== 0) out.reasoningTokens = usage.reasoningTokens;
  if (usage.isEstimated) out.isEstimated = true;
  return out;
}

/**
 * The summary payload for `turnId` from the projection alone. `stopReason` falls back to the one its
 * idle recorded. Usage is included only when input or output tokens are non-zero.
 */
export function buildTurnSummary(
  state: ProjectionState,
  turnId: TurnId,
  stopReason: StopReason | null | undefined,
  endedAt: string | null | undefined,
): TurnSummaryPayload {
  const data = tableGet(state.turnData, turnId);
  const reason = stopReason ?? tableGet(state.stopReasons, turnId) ?? null;
  const userMessageId = data?.userMessageId && tableHas(state.messages, data.userMessageId) ? data.userMessageId : undefined;
  const steerMessageIds = idsOf(data?.steerMessageIds).filter((id) => tableHas(state.messages, id));
  const agentMessageIds = idsOf(data?.agentMessageIds).filter((id) => textOf(tableGet(state.messages, id)?.content).trim() !== "");
  const toolCalls: SummaryToolCall[] = [];
  for (const id of idsOf(data?.toolCallIds)) {
    const tool = tableGet(state.toolCalls, id);
    if (tool === undefined) continue;
    toolCalls.push({ toolCallId: tool.toolCallId, title: tool.title ?? "", kind: tool.kind ?? "other", status: tool.status });
  }
  const usage = data === undefined ? undefined : summaryUsage(data.usage);
  // Keys in the order of the event schema: the summary is written to the ledger as built here.
  return {
    turnId,
    ...(data?.role ? { role: data.role } : {}),
    ...(reason !== null ? { stopReason: reason } : {}),
    ...(userMessageId !== undefined ? { userMessageId } : {}),
    ...(steerMessageIds.length > 0 ? { steerMessageIds } : {}),
    ...(agentMessageIds.length > 0 ? { agentMessageIds } : {}),
    toolCalls,
    ...(usage !== undefined ? { usage } : {}),
    ...(data?.startedAt ? { startedAt: data.startedAt } : {}),
    ...(endedAt !== null && endedAt !== undefined ? { endedAt } : {}),
  };
}

export interface SummaryTexts {
  readonly userText: string;
  /** What the user steered into the turn after its prompt, in order. */
  readonly steers: readonly string[];
  readonly agentText: string;
}

/**
 * What a summary says in words: the prompt as the user typed it (injected context stripped, CTX-04), the steers
 * and the agent's text. Resolved from the messages it names — each text is stored once — or, for wave-1 ledgers,
 * from the copies the summary itself carries.
 */
export function summaryTexts(state: ProjectionState, summary: TurnSummaryPayload): SummaryTexts {
  const userText = summary.userText ?? userTextOf(state, summary.userMessageId);
  const steers =
    summary.steers ?? (summary.steerMessageIds ?? []).map((id) => userTextOf(state, id)).filter((text) => text !== "");
  const agentText =
    summary.agentText ??
    (summary.agentMessageIds ?? [])
      .map((id) => textOf(tableGet(state.messages, id)?.content).trim())
      .filter((text) => text !== "")
      .join("\n\n");
  return { userText, steers, agentText };
}

function userTextOf(state: ProjectionState, messageId: string | undefined): string {
  const message = messageId === undefined ? undefined : tableGet(state.messages, messageId);
  return message === undefined ? "" : displayUserText(message.content).trim();
}

/** Copies the payload without `undefined` values so the entry stays plain JSON. */
function entryOf(event: EventOf<"_baton_turn_summary">, harnessTargetId: TargetId | null): TurnSummaryEntry {
  const entry: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event.payload)) if (value !== undefined) entry[key] = value;
  entry["seq"] = event.seq;
  entry["harnessTargetId"] = harnessTargetId;
  return entry as TurnSummaryEntry;
}

export function reduceTurnSummary(state: ProjectionState, event: EventOf<"_baton_turn_summary">): ProjectionState {
  const turnId = event.payload.turnId;
  if (tableHas(state.summaryIndex, turnId)) return state;
  const data = tableGet(state.turnData, turnId);
  const entry = entryOf(event, event.harnessTargetId ?? data?.harnessTargetId ?? null);
  const index = state.turnSummaries.length; // before the push: inside a draft the list grows in place
  const summaryIndex = tableSet(state.summaryIndex, turnId, index);
  const turnSummaries = listPush(state.turnSummaries, entry);
  const turnData = tableDelete(state.turnData, turnId);
  return assign(assign(assign(state, "summaryIndex", summaryIndex), "turnSummaries", turnSummaries), "turnData", turnData);
}

function idsOf<Id extends string>(ids: PagedList<Id> | undefined): Id[] {
  return ids === undefined ? [] : listToArray(ids);
}
