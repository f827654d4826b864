/**
 * Queued inputs (IN-01, IN-02): prompts waiting for the driven-turn slot, in queue order, with their one
 * stored copy of the content. An input leaves the slice when its user message is reduced (admission — the
 * content then lives on in the message), or by `_baton_input_update` (recalled, dropped, or a control turn
 * admitted). What is still here when a session is opened was never sent: the controller restores it paused.
 */
import type { EventOf } from "../event/envelope.ts";
import type { ProjectionState, QueuedInputItem } from "./state.ts";
import { tableHas } from "./table.ts";

export function reduceInputQueued(state: ProjectionState, event: EventOf<"_baton_input_queued">): ProjectionState {
  const { messageId, turnId, targetId, content, displayText, implementsPlan, control, context } = event.payload;
  if (state.queuedInputs.some((input) => input.messageId === messageId) || tableHas(state.messages, messageId)) return state;
  const item: QueuedInputItem = {
    messageId,
    turnId,
    targetId,
    content,
    displayText: displayText ?? null,
    implementsPlan: implementsPlan ?? null,
    control: control ?? null,
    context: context ?? [],
    queuedSeq: event.seq,
    eventId: event.eventId ?? null,
    ts: event.ts,
  };
  return { ...state, queuedInputs: [...state.queuedInputs, item] };
}

/** Removes the input (recalled, dropped, admitted); an unknown or already gone id changes nothing. */
export function reduceInputUpdate(state: ProjectionState, event: EventOf<"_baton_input_update">): ProjectionState {
  return withoutInput(state, event.payload.messageId);
}

export function queuedInput(state: ProjectionState, messageId: string): QueuedInputItem | undefined {
  return state.queuedInputs.find((input) => input.messageId === messageId);
}

export function withoutInput(state: ProjectionState, messageId: string): ProjectionState {
  const index = state.queuedInputs.findIndex((input) => input.messageId === messageId);
  if (index === -1) return state;
  return { ...state, queuedInputs: [...state.queuedInputs.slice(0, index), ...state.queuedInputs.slice(index + 1)] };
}
