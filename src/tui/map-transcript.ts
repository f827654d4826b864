/**
 * Projection → timeline items (TUI-03). Pure per item; the mapper caches on the identity of each projected
 * item, so one streamed chunk re-maps one item and an unchanged transcript keeps its array identity.
 */
import { textOf } from "../projection/index.ts";
import {
  displayUserText,
  type ApprovalReviewItem,
  type InteractionItem,
  type NoticeItem as ProjectedNotice,
  type ProjectionState,
  type TranscriptEntry,
} from "../projection/index.ts";
import type { PinnedPlan, ReviewItem, TimelineItem } from "chat-tui";
import { assertNever } from "../shared/assert.ts";
import { splitThought } from "./map-thoughts.ts";
import { mapTask, mapToolCall } from "./map-tools.ts";
import type { TargetLook } from "./targets.ts";

export type LookFn = (targetId: string | null) => TargetLook;

/** A transient item (e.g. `/status`) shown after the first `after` timeline entries; never persisted. */
export interface LocalItem {
  readonly after: number;
  readonly item: TimelineItem;
}

export interface TimelineOutput {
  readonly items: readonly TimelineItem[];
  readonly plan: PinnedPlan | undefined;
  /** Number of timeline entries (where a new local item goes). */
  readonly entries: number;
  /** Index of the first timeline entry mapped into `items` (the entries before it are not read). */
  readonly start: number;
}

const NOTICE_TONE = { info: "info", warning: "warning", error: "error" } as const;

function mapNotice(item: ProjectedNotice, look: TargetLook): TimelineItem {
  return {
    kind: "notice",
    id: item.id,
    tone: NOTICE_TONE[item.level],
    title: item.detail === null || item.detail === "" ? item.title : `${item.title} · ${item.detail}`,
    ...(item.harnessTargetId === null ? {} : { author: look.author, authorKey: look.id }),
  };
}

function mapReview(item: ApprovalReviewItem, look: TargetLook): ReviewItem {
  const detail = [item.riskLevel === null ? null : `risk ${item.riskLevel}`, item.rationale].filter((x) => x !== null).join(" · ");
  return {
    kind: "review",
    id: item.reviewId,
    title: item.actionType === null ? "Approval review" : `Approval review · ${item.actionType}`,
    decision: item.decision === "aborted" ? "cancelled" : item.decision,
    author: look.author,
    authorKey: look.id,
    ...(detail === "" ? {} : { detail }),
  };
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** A resolved card stays on the timeline as a receipt of what was decided. */
function mapResolvedInteraction(item: InteractionItem, look: TargetLook): TimelineItem | undefined {
  const resolution = item.resolution;
  if (item.status !== "resolved" || resolution === null) return undefined;
  const draft = item.draft;
  const title = draft.type === "permission" ? draft.title : draft.type === "question" ? "Question" : draft.type === "proposed_input" ? `Suggestion · ${draft.title ?? firstLine(draft.text)}` : `${draft.harnessName} hooks`;
  let decision: ReviewItem["decision"] = "cancelled";
  let detail: string | undefined;
  switch (resolution.outcome) {
    case "selected": {
      const option = draft.type === "permission" ? draft.options.find((o) => o.optionId === resolution.optionId) : undefined;
      decision = option?.polarity === "reject" ? "denied" : "approved";
      detail = option?.name ?? resolution.optionId;
      break;
    }
    case "answered":
      decision = "approved";
      detail = Object.values(resolution.answers).map((values) => values.join(", ")).join(" · ");
      break;
    case "trusted":
      decision = "approved";
      detail = "trusted";
      break;
    case "skipped":
      decision = "denied";
      detail = "skipped";
      break;
    case "cancelled":
      detail = resolution.reason === "user" ? undefined : resolution.reason === "requester" && draft.type === "proposed_input" ? "withdrawn" : `cancelled (${resolution.reason})`;
      break;
    case "submitted":
      decision = "approved";
      detail = `sent${resolution.targetId === undefined ? "" : ` to ${resolution.targetId}`}${resolution.edited === true ? " (edited)" : ""}`;
      break;
    case "dismissed":
      decision = "denied";
      detail = "dismissed";
      break;
    default:
      return assertNever(resolution, "resolution");
  }
  return {
    kind: "review",
    id: item.interactionId,
    title,
    decision,
    author: look.author,
    authorKey: look.id,
    ...(detail === undefined || detail === "" ? {} : { detail }),
  };
}

export function isTurnActive(state: ProjectionState, turnId: string | null): boolean {
  return turnId !== null && Object.hasOwn(state.activeTurns, turnId);
}

/** One projected entry → zero or more timeline items. */
export function mapEntry(state: ProjectionState, entry: TranscriptEntry, lookOf: LookFn): readonly TimelineItem[] {
  switch (entry.type) {
    case "message": {
      const m = entry.item;
      const look = lookOf(m.harnessTargetId);
      if (m.role === "user") return [{ kind: "user", id: m.messageId, author: "you", text: displayUserText(m.content) }];
      const text = textOf(m.content);
      if (m.role === "thought") {
        return splitThought(text).map((block, i) => ({
          kind: "thought",
          id: `${m.messageId}#${i}`,
          author: look.author,
          authorKey: look.id,
          text: block.text,
          ...(block.title === undefined ? {} : { title: block.title }),
        }));
      }
      const streaming = m.status === "in_progress" && isTurnActive(state, m.turnId);
      return [{ kind: "agent", id: m.messageId, author: look.author, authorKey: look.id, text, format: "markdown", ...(streaming ? { streaming: true } : {}) }];
    }
    case "tool_call":
      return [mapToolCall(entry.item, lookOf(entry.item.harnessTargetId))];
    case "task":
      return [mapTask(entry.item, lookOf(entry.item.harnessTargetId))];
    case "plan": {
      const p = entry.item;
      const look = lookOf(p.harnessTargetId);
      return [{ kind: "plan", id: p.planId, title: "Plan", author: look.author, authorKey: look.id, entries: p.entries.map((e) => ({ text: e.content, status: e.status })) }];
    }
    case "proposed_plan": {
      const p = entry.item;
      const look = lookOf(p.harnessTargetId);
      const title = p.implementationTurnId === null ? "Proposed plan" : "Proposed plan · implementation started";
      return [{ kind: "agent", id: `plan:${p.planId}`, author: look.author, authorKey: look.id, text: `**${title}**\n\n${p.content}`, format: "markdown" }];
    }
    case "notice":
      // A stall notice shows while it is its turn's latest word on the silence; superseded or cleared ones go.
      if (entry.item.stall !== null && entry.item.stall.state !== "open") return [];
      return [mapNotice(entry.item, lookOf(entry.item.harnessTargetId))];
    case "approval_review":
      return [mapReview(entry.item, lookOf(entry.item.harnessTargetId))];
    case "error": {
      const e = entry.item;
      return [{ kind: "error", id: e.id, message: e.message, ...(e.code === null ? {} : { code: e.code }) }];
    }
    case "interaction": {
      const mapped = mapResolvedInteraction(entry.item, lookOf(entry.item.requester.type === "baton" ? "baton" : entry.item.harnessTargetId));
      return mapped === undefined ? [] : [mapped];
    }
    default:
      return assertNever(entry, "transcript entry");
  }
}
