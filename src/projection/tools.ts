/**
 * Tool calls (EV-05): upsert by toolCallId. Field omitted = unchanged, `null` = cleared, value = replaced;
 * a `null` status is ignored. Streamed output appends to content until the call reaches a terminal status.
 */
import type { ContentBlock } from "../event/content.ts";
import type { AnyEvent, EventOf } from "../event/envelope.ts";
import { appendBlock, appendsNothing } from "./blocks.ts";
import { assign, editable, fresh, type Mutable } from "./draft.ts";
import { jsonEqual } from "./json-equal.ts";
import type { ProjectionState, ToolCallItem } from "./state.ts";
import { tableGet, tableSet } from "./table.ts";
import { pushTimeline } from "./timeline.ts";
import { noteToolCall, withTurnData } from "./turn-data.ts";
import { clearRetrying, noteStreaming } from "./turns.ts";

const TERMINAL_TOOL_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "declined", "interrupted"]);

function createToolCall(event: AnyEvent, toolCallId: string): ToolCallItem {
  return {
    toolCallId,
    title: null,
    kind: null,
    status: "pending",
    content: [],
    locations: [],
    rawInput: null,
    rawOutput: null,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    firstSeq: event.seq,
  };
}

/** omitted → keep; null → cleared value; else the new value unless deep-equal to the old one. */
function patchValue<T>(current: T, incoming: T | null | undefined, cleared: T): T {
  if (incoming === undefined) return current;
  const next = incoming === null ? cleared : incoming;
  return jsonEqual(current, next) ? current : next;
}

/** Stores a changed `tool`; `before` is the stored item's turn before this event (`undefined`: first sight). */
function commitToolCall(
  state: ProjectionState,
  before: { readonly turnId: string | null; readonly stored: ToolCallItem } | undefined,
  tool: ToolCallItem,
  event: AnyEvent,
): ProjectionState {
  // An item the draft edited in place is stored already.
  let next = before?.stored === tool ? state : assign(state, "toolCalls", tableSet(state.toolCalls, tool.toolCallId, tool));
  if (before === undefined) next = pushTimeline(next, "tool_call", tool.toolCallId);
  if (tool.turnId !== null && before?.turnId !== tool.turnId) {
    next = withTurnData(next, tool.turnId, (d) => noteToolCall(d, tool.toolCallId));
  }
  return noteStreaming(clearRetrying(next, event.turnId ?? null), event.turnId ?? null, null);
}

export function reduceToolCallUpdate(state: ProjectionState, event: EventOf<"tool_call_update">): ProjectionState {
  const p = event.payload;
  const existing = tableGet(state.toolCalls, p.toolCallId);
  if (existing === undefined) return commitToolCall(state, undefined, fresh(newToolCall(event, p)), event);
  const title = patchValue(existing.title, p.title, null);
  const kind = patchValue(existing.kind, p.kind, null);
  const status = p.status === undefined || p.status === null ? existing.status : p.status;
  const content = patchValue<readonly ContentBlock[]>(existing.content, p.content, []);
  const locations = patchValue(existing.locations, p.locations, []);
  const rawInput = patchValue<unknown>(existing.rawInput, p.rawInput, null);
  const rawOutput = patchValue<unknown>(existing.rawOutput, p.rawOutput, null);
  const turnId = existing.turnId ?? event.turnId ?? null;
  const unchanged =
    title === existing.title &&
    kind === existing.kind &&
    status === existing.status &&
    content === existing.content &&
    locations === existing.locations &&
    rawInput === existing.rawInput &&
    rawOutput === existing.rawOutput &&
    turnId === existing.turnId;
  if (unchanged) return state;
  const before = { turnId: existing.turnId, stored: existing };
  // In a draft, an item the draft created (a call started earlier in the same load) is updated in place.
  const tool = editable(existing) as Mutable<ToolCallItem>;
  tool.title = title;
  tool.kind = kind;
  tool.status = status;
  tool.content = content;
  tool.locations = locations;
  tool.rawInput = rawInput;
  tool.rawOutput = rawOutput;
  tool.turnId = turnId;
  return commitToolCall(state, before, tool, event);
}

/**
 * A call's first update, as `patchValue` over a fresh `createToolCall` would make it: an omitted or `null` field
 * is the blank value, any other is taken (an empty list stays the blank one, as it is equal to it).
 */
function newToolCall(event: AnyEvent, p: EventOf<"tool_call_update">["payload"]): ToolCallItem {
  return {
    toolCallId: p.toolCallId,
    title: p.title ?? null,
    kind: p.kind ?? null,
    status: p.status ?? "pending",
    content: p.content === undefined || p.content === null || p.content.length === 0 ? [] : p.content,
    locations: p.locations === undefined || p.locations === null || p.locations.length === 0 ? [] : p.locations,
    rawInput: p.rawInput ?? null,
    rawOutput: p.rawOutput ?? null,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    firstSeq: event.seq,
  };
}

export function reduceToolContentChunk(state: ProjectionState, event: EventOf<"tool_call_content_chunk">): ProjectionState {
  const { toolCallId, content: block } = event.payload;
  const existing = tableGet(state.toolCalls, toolCallId);
  if (existing !== undefined && TERMINAL_TOOL_STATUSES.has(existing.status)) return state;
  if (existing === undefined) {
    const created = createToolCall(event, toolCallId);
    return commitToolCall(state, undefined, { ...created, content: appendBlock(created.content, block) }, event);
  }
  const before = { turnId: existing.turnId, stored: existing };
  const turnId = existing.turnId ?? event.turnId ?? null;
  if (appendsNothing(block) && turnId === existing.turnId) return state;
  const tool = editable(existing) as Mutable<ToolCallItem>;
  tool.content = appendBlock(existing.content, block);
  tool.turnId = turnId;
  return commitToolCall(state, before, tool, event);
}
