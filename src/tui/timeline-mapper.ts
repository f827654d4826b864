/**
 * The timeline of one view, kept up to date cheaply and windowed: a full pass walks the timeline references of
 * its window (the tail the view shows, grown on demand; never the whole history of a long session, whose old
 * turns stay on disk when it was opened from a checkpoint), looks an item up only when its table changed and
 * re-maps it only when its object (or streaming flag) changed. Between
 * full passes, a publication caused only by streamed chunks (TUI-12) re-maps just the items those chunks named:
 * a chunk changes exactly the message or tool call in its payload, so the rest is known to be unchanged.
 */
import {
  listAt,
  selectTargetPlan,
  tableGet,
  type MessageItem,
  type ProjectionState,
  type Table,
  type TimelineItem as TimelineRef,
  type TimelineItemType,
  type TranscriptEntry,
} from "../projection/index.ts";
import { assertNever } from "../shared/assert.ts";
import { terminalSafeDeep } from "../shared/terminal-text.ts";
import type { PinnedPlan, TimelineItem } from "chat-tui";
import { isTurnActive, mapEntry, type LocalItem, type LookFn, type TimelineOutput } from "./map-transcript.ts";
import type { TargetId } from "../shared/ids.ts";

/** A timeline item a streamed chunk changed. */
export interface DirtyRef {
  readonly type: TimelineItemType;
  readonly id: string;
}

/**
 * `want`: shown items to map at least (the view's window), counted back from the end; the rest of the history
 * is not read. Unbounded by default.
 */
export type TimelineMapper = (state: ProjectionState, target: TargetId, local: readonly LocalItem[], dirty?: readonly DirtyRef[], want?: number) => TimelineOutput;

/** The item a stream event changes, if any (the stream kinds of TUI-12). */
export function dirtyRefOf(kind: string, payload: unknown): DirtyRef | undefined {
  const p = payload as { messageId?: unknown; toolCallId?: unknown } | null;
  if ((kind === "agent_message_chunk" || kind === "agent_thought_chunk") && typeof p?.messageId === "string") return { type: "message", id: p.messageId };
  if (kind === "tool_call_content_chunk" && typeof p?.toolCallId === "string") return { type: "tool_call", id: p.toolCallId };
  return undefined;
}

/** The projection table that holds items of a timeline type (read through `tableGet`). */
function tableOf(state: ProjectionState, type: TimelineItemType): Table<object> {
  switch (type) {
    case "message":
      return state.messages;
    case "tool_call":
      return state.toolCalls;
    case "plan":
      return state.plans;
    case "proposed_plan":
      return state.proposedPlans;
    case "task":
      return state.tasks;
    case "notice":
      return state.notices;
    case "approval_review":
      return state.approvalReviews;
    case "error":
      return state.errors;
    case "interaction":
      return state.interactions;
    default:
      return assertNever(type, "timeline item type");
  }
}

interface Slot {
  readonly item: object;
  readonly streaming: boolean;
  readonly items: readonly TimelineItem[];
  /** Index of the slot's first item in the last output. */
  start: number;
}

const ALL_TYPES: readonly TimelineItemType[] = ["message", "tool_call", "plan", "proposed_plan", "task", "notice", "approval_review", "error", "interaction"];

export interface TimelineMapperOptions {
  /** Thoughts are not shown (they do not count towards the window). */
  readonly hideThoughts?: boolean;
}

export function createTimelineMapper(lookOf: LookFn, options: TimelineMapperOptions = {}): TimelineMapper {
  const slots = new Map<TimelineItemType, Map<string, Slot>>(ALL_TYPES.map((type) => [type, new Map()]));
  const tables = new Map<TimelineItemType, Table<object>>();
  let lastState: ProjectionState | undefined;
  let lastTarget = "";
  let lastLocal: readonly LocalItem[] = [];
  let lastWant = Number.POSITIVE_INFINITY;
  let last: TimelineOutput = { items: [], plan: undefined, entries: 0, start: 0 };
  let lastPlanRef: object | undefined;
  /** Index of the first timeline entry mapped; it only moves back (the window grows, never slides). */
  let windowStart: number | undefined;

  const remap = (state: ProjectionState, type: TimelineItemType, id: string, item: object): { streaming: boolean; items: readonly TimelineItem[] } => {
    const message = type === "message" ? (item as MessageItem) : undefined;
    const streaming = message !== undefined && message.status === "in_progress" && isTurnActive(state, message.turnId);
    // Agent and tool text never reaches the terminal with its control sequences (#11.11).
    return { streaming, items: mapEntry(state, { type, id, item } as TranscriptEntry, lookOf).map(terminalSafeDeep) };
  };

  /** Only chunks arrived since the last pass: patch the items they named, or give up (undefined). */
  const patch = (state: ProjectionState, dirty: readonly DirtyRef[]): readonly TimelineItem[] | undefined => {
    let out: TimelineItem[] | undefined;
    for (const ref of dirty) {
      const slot = slots.get(ref.type)?.get(ref.id);
      if (slot === undefined) return undefined;
      const item = tableGet(tableOf(state, ref.type), ref.id);
      if (item === undefined) return undefined;
      if (item === slot.item) continue;
      const next = remap(state, ref.type, ref.id, item);
      if (next.items.length !== slot.items.length || last.items[slot.start] !== slot.items[0]) return undefined;
      out ??= last.items.slice();
      for (let i = 0; i < next.items.length; i++) out[slot.start + i] = next.items[i] as TimelineItem;
      slots.get(ref.type)?.set(ref.id, { item, streaming: next.streaming, items: next.items, start: slot.start });
    }
    for (const type of ALL_TYPES) tables.set(type, tableOf(state, type));
    return out ?? last.items;
  };

  /** The slot of one timeline entry, re-mapped when its item (or streaming flag) changed; null when it shows nothing. */
  const slotOf = (state: ProjectionState, ref: TimelineRef, changed: ReadonlySet<TimelineItemType>, pinnedId: string | undefined): Slot | null => {
    const byId = slots.get(ref.type) as Map<string, Slot>;
    const slot = byId.get(ref.id);
    const item = slot !== undefined && !changed.has(ref.type) ? slot.item : tableGet(tableOf(state, ref.type), ref.id);
    if (item === undefined) return null;
    if (ref.type === "task" && (item as { skipTranscript?: boolean }).skipTranscript === true) return null;
    if (ref.type === "plan" && ref.id === pinnedId) return null;
    const streaming = ref.type === "message" && (item as MessageItem).status === "in_progress" && isTurnActive(state, (item as MessageItem).turnId);
    if (slot !== undefined && slot.item === item && slot.streaming === streaming) return slot;
    const next = { item, ...remap(state, ref.type, ref.id, item), start: 0 };
    byId.set(ref.id, next);
    return next;
  };

  /** Items of a slot that count towards the window (what the view shows). */
  const shown = (slot: Slot | null): number => {
    if (slot === null) return 0;
    if (options.hideThoughts !== true) return slot.items.length;
    let n = 0;
    for (const item of slot.items) if (item.kind !== "thought") n++;
    return n;
  };

  /**
   * The window [start, length) of the timeline mapped: at least `want` shown items when the history has them.
   * A session opened from a checkpoint keeps old turns on disk (lazy nodes): only the entries mapped here, the
   * visible tail, are read; the view asks for more (`want` grows) as it scrolls up.
   */
  const fullPass = (state: ProjectionState, local: readonly LocalItem[], pinnedId: string | undefined, want: number): { items: TimelineItem[]; start: number } => {
    const changed = new Set<TimelineItemType>();
    for (const type of ALL_TYPES) if (tables.get(type) !== tableOf(state, type)) changed.add(type);
    const timeline = state.timeline;
    const length = timeline.length;
    let start = Math.min(windowStart ?? length, length);
    const window: (Slot | null)[] = [];
    let count = 0;
    for (let i = start; i < length; i++) {
      const slot = slotOf(state, listAt(timeline, i) as TimelineRef, changed, pinnedId);
      window.push(slot);
      count += shown(slot);
    }
    const before: (Slot | null)[] = [];
    while (count < want && start > 0) {
      start--;
      const slot = slotOf(state, listAt(timeline, start) as TimelineRef, changed, pinnedId);
      before.push(slot);
      count += shown(slot);
    }
    windowStart = start;
    const out: TimelineItem[] = [];
    let li = 0;
    const mapped = before.length;
    for (let k = 0; k < mapped + window.length; k++) {
      const slot = k < mapped ? (before[mapped - 1 - k] as Slot | null) : (window[k - mapped] as Slot | null);
      // A local item sits after the entries the timeline had when it was added.
      for (; li < local.length && (local[li]?.after ?? 0) <= start + k; li++) out.push(terminalSafeDeep((local[li] as LocalItem).item));
      if (slot === null) continue;
      slot.start = out.length;
      for (const item of slot.items) out.push(item);
    }
    for (; li < local.length; li++) out.push(terminalSafeDeep((local[li] as LocalItem).item));
    for (const type of changed) tables.set(type, tableOf(state, type));
    return { items: out, start };
  };

  return (state, target, local, dirty, want = Number.POSITIVE_INFINITY) => {
    if (state === lastState && target === lastTarget && local === lastLocal && want === lastWant) return last;
    const pinned = selectTargetPlan(state, target);
    const pinnedId = pinned?.pinned === true ? pinned.plan.planId : undefined;
    const planRef = pinnedId === undefined ? undefined : pinned?.plan;
    const canPatch =
      dirty !== undefined &&
      lastState !== undefined &&
      state.timeline === lastState.timeline &&
      state.activeTurns === lastState.activeTurns &&
      target === lastTarget &&
      local === lastLocal &&
      want === lastWant &&
      planRef === lastPlanRef;
    const patched = canPatch ? patch(state, dirty) : undefined;
    const pass = patched === undefined ? fullPass(state, local, pinnedId, want) : { items: patched, start: last.start };
    const entries = state.timeline.length;
    lastState = state;
    lastTarget = target;
    lastLocal = local;
    lastWant = want;
    const items = pass.items;
    const sameItems = items === last.items || (items.length === last.items.length && items.every((item, i) => item === last.items[i]));
    const plan: PinnedPlan | undefined =
      planRef === undefined
        ? undefined
        : planRef === lastPlanRef && last.plan !== undefined
          ? last.plan
          : { title: "Plan", entries: (planRef as { entries: readonly { content: string; status: string }[] }).entries.map((e) => ({ text: e.content, status: e.status })) };
    lastPlanRef = planRef;
    if (sameItems && plan === last.plan && last.entries === entries && last.start === pass.start) return last;
    last = { items: sameItems ? last.items : items, plan, entries, start: pass.start };
    return last;
  };
}
