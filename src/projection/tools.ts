/**
 * Tool calls (EV-05): upsert by toolCallId. Field omitted = unchanged, `null` = cleared, value = replaced;
 * a `null` status is ignored. Streamed output appends to content until the call reaches a terminal status.
 */
import type { ContentBlock } from "../event/content.ts";
import type { AnyEvent, EventOf } from "../event/envelope.ts";
import { appendBlock, appendsNothing } from "./blocks.ts";
import { assign, editable, type Mutable } from "./draft.ts";
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
  const base = existing ?? createToolCall(event, p.toolCallId);
  const title = patchValue(base.title, p.title, null);
  const kind = patchValue(base.kind, p.kind, null);
  const status = p.status === undefined || p.status === null ? base.status : p.status;
  const content = patchValue<readonly ContentBlock[]>(base.content, p.content, []);
  const locations = patchValue(base.locations, p.locations, []);
  const rawInput = patchValue<unknown>(base.rawInput, p.rawInput, null);
  const rawOutput = patchValue<unknown>(base.rawOutput, p.rawOutput, null);
  const turnId = base.turnId ?? event.turnId ?? null;
  const unchanged =
    existing !== undefined &&
    title === base.title &&
    kind === base.kind &&
    status === base.status &&
    content === base.content &&
    locations === base.locations &&
    rawInput === base.rawInput &&
    rawOutput === base.rawOutput &&
    turnId === base.turnId;
  if (unchanged) return state;
  const tool: ToolCallItem = { ...base, title, kind, status, content, locations, rawInput, rawOutput, turnId };
  return commitToolCall(state, existing && { turnId: existing.turnId, stored: existing }, tool, event);
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
