/**
 * Per-turn accumulation for the turn summary (EV-09) without re-reading the ledger: the first user
 * message, the steers, the agent messages and tool calls in first-seen order, the turn's usage. Kept until that
 * turn's `_baton_turn_summary` is reduced, then dropped.
 */
import { assign } from "./draft.ts";
import { emptyList, listAt, listPush, type PagedList } from "./paged-list.ts";
import { ZERO_USAGE, type ProjectionState, type TurnData } from "./state.ts";
import { tableGet, tableHas, tableSet } from "./table.ts";
import type { MessageId, TurnId } from "../shared/ids.ts";

function blankTurnData(turnId: TurnId): TurnData {
  return {
    turnId,
    role: null,
    harnessTargetId: null,
    startedAt: null,
    userMessageId: null,
    steerMessageIds: emptyList(),
    agentMessageIds: emptyList(),
    toolCallIds: emptyList(),
    usage: ZERO_USAGE,
  };
}

/**
 * Applies `update` to the turn's data; a turn whose summary is already reduced collects nothing more. A turn
 * with data has no summary yet (the summary takes the data out), so only a turn without data looks the
 * summaries up: the running turn's data is the table's recent entry, found without a walk.
 */
export function withTurnData(
  state: ProjectionState,
  turnId: TurnId | null,
  update: (data: TurnData) => TurnData,
): ProjectionState {
  if (turnId === null) return state;
  const stored = tableGet(state.turnData, turnId);
  if (stored === undefined && tableHas(state.summaryIndex, turnId)) return state;
  const previous = stored ?? blankTurnData(turnId);
  const next = update(previous);
  if (next === previous) return state;
  return assign(state, "turnData", tableSet(state.turnData, turnId, next));
}

/**
 * Callers note an item when it first joins the turn (first sight, or its turn set from none: an item's
 * turn never changes once set), so `id` is new to `ids` and no scan is needed (a scan made a turn with
 * thousands of tool calls quadratic); the check of the last id keeps an immediate repeat inert. The ids
 * are a paged list, so that noting one copies a tail chunk, not every id of the turn so far.
 */
function appendOnce<Id extends string>(ids: PagedList<Id>, id: Id): PagedList<Id> {
  if (listAt(ids, ids.length - 1) === id) return ids;
  return listPush(ids, id);
}

export function noteAgentMessage(data: TurnData, messageId: MessageId): TurnData {
  const ids = appendOnce(data.agentMessageIds, messageId);
  return ids === data.agentMessageIds ? data : { ...data, agentMessageIds: ids };
}

export function noteToolCall(data: TurnData, toolCallId: string): TurnData {
  const ids = appendOnce(data.toolCallIds, toolCallId);
  return ids === data.toolCallIds ? data : { ...data, toolCallIds: ids };
}

/** The first user message of the turn is its prompt; later ones are steers, kept in order. */
export function noteUserMessage(data: TurnData, messageId: MessageId): TurnData {
  if (data.userMessageId === null) return { ...data, userMessageId: messageId };
  if (data.userMessageId === messageId) return data;
  const ids = appendOnce(data.steerMessageIds, messageId);
  return ids === data.steerMessageIds ? data : { ...data, steerMessageIds: ids };
}
