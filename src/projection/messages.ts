/**
 * Messages (EV-05): upsert by messageId. Chunks append (adjacent text merges) and mark agent/thought
 * messages in progress; a full `agent_message`/`agent_thought` replaces the accumulated content (when it
 * carries content) and marks the message completed. A chunk arriving after its message completed is a
 * stale re-delivery and is ignored, so reordered streams are healed by the completed item.
 */
import type { ContentBlock } from "../event/content.ts";
import type { AnyEvent, EventOf } from "../event/envelope.ts";
import type { MessageId } from "../shared/ids.ts";
import { appendBlock, appendsNothing } from "./blocks.ts";
import { assign, editable, type Mutable } from "./draft.ts";
import { jsonEqual } from "./json-equal.ts";
import type { MessageItem, MessageRole, MessageStatus, ProjectionState } from "./state.ts";
import { tableGet, tableSet } from "./table.ts";
import { pushTimeline } from "./timeline.ts";
import { noteAgentMessage, noteUserMessage, withTurnData } from "./turn-data.ts";
import { clearRetrying, noteStreaming } from "./turns.ts";
import { queuedInput, withoutInput } from "./inputs.ts";

type ChunkEvent = EventOf<"user_message_chunk"> | EventOf<"agent_message_chunk"> | EventOf<"agent_thought_chunk">;
type FullEvent = EventOf<"agent_message"> | EventOf<"agent_thought">;

function createMessage(
  event: AnyEvent,
  messageId: MessageId,
  role: MessageRole,
  content: readonly ContentBlock[],
  status: MessageStatus,
): MessageItem {
  return {
    messageId,
    role,
    content,
    status,
    delivery: null,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    firstSeq: event.seq,
    ts: event.ts,
  };
}

/**
 * Stores a changed `message`, adds it to the timeline on first sight and to its turn's summary data.
 * `before` is the stored item's turn before this event (`undefined`: first sight), taken before any
 * in-place edit of a draft-owned item.
 */
function commitMessage(
  state: ProjectionState,
  before: { readonly turnId: string | null; readonly stored: MessageItem } | undefined,
  message: MessageItem,
  event: AnyEvent,
): ProjectionState {
  // An item the draft edited in place is stored already.
  let next = before?.stored === message ? state : assign(state, "messages", tableSet(state.messages, message.messageId, message));
  if (before === undefined) next = pushTimeline(next, "message", message.messageId);
  const joinedTurn = message.turnId !== null && before?.turnId !== message.turnId;
  if (joinedTurn) {
    if (message.role === "user") next = withTurnData(next, message.turnId, (d) => noteUserMessage(d, message.messageId));
    if (message.role === "agent") next = withTurnData(next, message.turnId, (d) => noteAgentMessage(d, message.messageId));
  }
  if (message.role !== "user") {
    next = clearRetrying(next, event.turnId ?? null);
    const streaming = message.status === "completed" ? null : message.role === "agent" ? "answer" : "thought";
    next = noteStreaming(next, event.turnId ?? null, streaming);
  }
  return next;
}

function patched(
  existing: MessageItem,
  event: AnyEvent,
  content: readonly ContentBlock[],
  status: MessageStatus,
  delivery: MessageItem["delivery"],
): MessageItem {
  const turnId = existing.turnId ?? event.turnId ?? null;
  if (
    content === existing.content &&
    status === existing.status &&
    delivery === existing.delivery &&
    turnId === existing.turnId
  ) {
    return existing;
  }
  return { ...existing, content, status, delivery, turnId };
}

function replaceContent(existing: readonly ContentBlock[], incoming: readonly ContentBlock[] | undefined): readonly ContentBlock[] {
  if (incoming === undefined || jsonEqual(existing, incoming)) return existing;
  return incoming;
}

/**
 * A user message upserts by messageId. The admission of a queued input is its user message: it carries no
 * content of its own (the queued input holds the one stored copy, which moves into the message) and takes
 * the input out of the queue.
 */
export function reduceUserMessage(state: ProjectionState, event: EventOf<"user_message">): ProjectionState {
  const queued = queuedInput(state, event.payload.messageId);
  if (queued !== undefined) state = withoutInput(state, queued.messageId);
  const { messageId, delivery } = event.payload;
  const content = event.payload.content ?? queued?.content;
  const existing = tableGet(state.messages, messageId);
  const message =
    existing === undefined
      ? { ...createMessage(event, messageId, "user", content ?? [], "completed"), delivery: delivery ?? null }
      : patched(existing, event, replaceContent(existing.content, content), "completed", delivery ?? existing.delivery);
  return message === existing ? state : commitMessage(state, existing && { turnId: existing.turnId, stored: existing }, message, event);
}

/** The hot path of every fold (most of a ledger): in a draft the message, its content and last block are extended in place. */
export function reduceMessageChunk(state: ProjectionState, event: ChunkEvent, role: MessageRole): ProjectionState {
  const { messageId, content: block } = event.payload;
  const existing = tableGet(state.messages, messageId);
  if (existing === undefined) {
    return commitMessage(state, undefined, createMessage(event, messageId, role, appendBlock([], block), "in_progress"), event);
  }
  if (existing.status === "completed") return state;
  const before = { turnId: existing.turnId, stored: existing };
  const turnId = existing.turnId ?? event.turnId ?? null;
  if (appendsNothing(block) && turnId === existing.turnId) return state;
  const message = editable(existing) as Mutable<MessageItem>;
  message.content = appendBlock(existing.content, block);
  message.turnId = turnId;
  return commitMessage(state, before, message, event);
}

export function reduceFullMessage(state: ProjectionState, event: FullEvent, role: MessageRole): ProjectionState {
  const { messageId, content } = event.payload;
  const existing = tableGet(state.messages, messageId);
  const message =
    existing === undefined
      ? createMessage(event, messageId, role, content ?? [], "completed")
      : patched(existing, event, replaceContent(existing.content, content), "completed", existing.delivery);
  return message === existing ? state : commitMessage(state, existing && { turnId: existing.turnId, stored: existing }, message, event);
}
