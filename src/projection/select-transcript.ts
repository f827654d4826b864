/**
 * The transcript: timeline items resolved to their objects, in first-seen order. An entry object is
 * reused for as long as its underlying item is the same object, so memoized rows skip unchanged items.
 * Tasks marked `skipTranscript` are left out.
 */
import { listAt, listToArray } from "./paged-list.ts";
import type {
  ApprovalReviewItem,
  ErrorItem,
  InteractionItem,
  MessageItem,
  NoticeItem,
  PlanItem,
  ProjectionState,
  ProposedPlanItem,
  TaskItem,
  TimelineItem,
  ToolCallItem,
} from "./state.ts";
import { assertNever } from "../shared/assert.ts";
import { tableGet } from "./table.ts";

export type TranscriptEntry =
  | { readonly type: "message"; readonly id: string; readonly item: MessageItem }
  | { readonly type: "tool_call"; readonly id: string; readonly item: ToolCallItem }
  | { readonly type: "plan"; readonly id: string; readonly item: PlanItem }
  | { readonly type: "proposed_plan"; readonly id: string; readonly item: ProposedPlanItem }
  | { readonly type: "task"; readonly id: string; readonly item: TaskItem }
  | { readonly type: "notice"; readonly id: string; readonly item: NoticeItem }
  | { readonly type: "approval_review"; readonly id: string; readonly item: ApprovalReviewItem }
  | { readonly type: "error"; readonly id: string; readonly item: ErrorItem }
  | { readonly type: "interaction"; readonly id: string; readonly item: InteractionItem };

/** Resolves one timeline item to a fresh entry, or undefined when hidden or missing. */
export function resolveTimelineItem(state: ProjectionState, ref: TimelineItem): TranscriptEntry | undefined {
  const { type, id } = ref;
  switch (type) {
    case "message": {
      const item = tableGet(state.messages, id);
      return item && { type, id, item };
    }
    case "tool_call": {
      const item = tableGet(state.toolCalls, id);
      return item && { type, id, item };
    }
    case "plan": {
      const item = tableGet(state.plans, id);
      return item && { type, id, item };
    }
    case "proposed_plan": {
      const item = tableGet(state.proposedPlans, id);
      return item && { type, id, item };
    }
    case "task": {
      const item = tableGet(state.tasks, id);
      return item && !item.skipTranscript ? { type, id, item } : undefined;
    }
    case "notice": {
      const item = tableGet(state.notices, id);
      return item && { type, id, item };
    }
    case "approval_review": {
      const item = tableGet(state.approvalReviews, id);
      return item && { type, id, item };
    }
    case "error": {
      const item = tableGet(state.errors, id);
      return item && { type, id, item };
    }
    case "interaction": {
      const item = tableGet(state.interactions, id);
      return item && { type, id, item };
    }
    default:
      return assertNever(type, "timeline item type");
  }
}

export type TranscriptSelector = (state: ProjectionState) => readonly TranscriptEntry[];

/** A transcript selector with its own entry cache (one per view). */
export function createTranscriptSelector(): TranscriptSelector {
  const entries = new WeakMap<object, TranscriptEntry>();
  let lastState: ProjectionState | undefined;
  let lastResult: readonly TranscriptEntry[] = [];
  const stable = (state: ProjectionState, ref: TimelineItem): TranscriptEntry | undefined => {
    const fresh = resolveTimelineItem(state, ref);
    if (fresh === undefined) return undefined;
    const cached = entries.get(fresh.item);
    if (cached !== undefined && cached.type === fresh.type) return cached;
    entries.set(fresh.item, fresh);
    return fresh;
  };
  return (state) => {
    if (state === lastState) return lastResult;
    const out: TranscriptEntry[] = [];
    for (const ref of listToArray(state.timeline)) {
      const entry = stable(state, ref);
      if (entry !== undefined) out.push(entry);
    }
    const same = out.length === lastResult.length && out.every((entry, i) => entry === lastResult[i]);
    lastState = state;
    if (!same) lastResult = out;
    return lastResult;
  };
}

/** The whole transcript (shared default cache). */
export const selectTranscript: TranscriptSelector = createTranscriptSelector();

/** Timeline items [start, end) resolved, for a windowed view of a long transcript (O(window)). */
export function selectTranscriptWindow(state: ProjectionState, start: number, end: number): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  const to = Math.min(end, state.timeline.length);
  for (let i = Math.max(0, start); i < to; i++) {
    const ref = listAt(state.timeline, i);
    const entry = ref === undefined ? undefined : resolveTimelineItem(state, ref);
    if (entry !== undefined) out.push(entry);
  }
  return out;
}
