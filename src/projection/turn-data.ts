/**
 * Per-turn accumulation for the turn summary (EV-09) without re-reading the ledger: the first user
 * message, the steers, the agent messages and tool calls in first-seen order, the turn's usage. Kept until that
 * turn's `_baton_turn_summary` is reduced, then dropped.
 */
import { ZERO_USAGE, type ProjectionState, type TurnData } from "./state.ts";
import { tableGet, tableHas, tableSet } from "./table.ts";

function blankTurnData(turnId: string): TurnData {
  return {
    turnId,
    role: null,
    harnessTargetId: null,
    startedAt: null,
    userMessageId: null,
    steerMessageIds: [],
    agentMessageIds: [],
    toolCallIds: [],
    usage: ZERO_USAGE,
  };
}

/** Applies `update` to the turn's data; a turn whose summary is already reduced collects nothing more. */
export function withTurnData(
  state: ProjectionState,
  turnId: string | null,
  update: (data: TurnData) => TurnData,
): ProjectionState {
  if (turnId === null || tableHas(state.summaryIndex, turnId)) return state;
  const previous = tableGet(state.turnData, turnId) ?? blankTurnData(turnId);
  const next = update(previous);
  if (next === previous) return state;
  return { ...state, turnData: tableSet(state.turnData, turnId, next) };
}

function appendOnce(ids: readonly string[], id: string): readonly string[] {
  if (ids[ids.length - 1] === id || ids.includes(id)) return ids;
  return [...ids, id];
}

export function noteAgentMessage(data: TurnData, messageId: string): TurnData {
  const ids = appendOnce(data.agentMessageIds, messageId);
  return ids === data.agentMessageIds ? data : { ...data, agentMessageIds: ids };
}

export function noteToolCall(data: TurnData, toolCallId: string): TurnData {
  const ids = appendOnce(data.toolCallIds, toolCallId);
  return ids === data.toolCallIds ? data : { ...data, toolCallIds: ids };
}

/** The first user message of the turn is its prompt; later ones are steers, kept in order. */
export function noteUserMessage(data: TurnData, messageId: string): TurnData {
  if (data.userMessageId === null) return { ...data, userMessageId: messageId };
  if (data.userMessageId === messageId) return data;
  const ids = appendOnce(data.steerMessageIds, messageId);
  return ids === data.steerMessageIds ? data : { ...data, steerMessageIds: ids };
}
