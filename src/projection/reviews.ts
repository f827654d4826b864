/**
 * Approval reviews (IX-09): a harness-side reviewer's decision, keyed by reviewId; a first-class timeline
 * item. It never opens an interaction and never makes a turn require action.
 */
import type { EventOf } from "../event/envelope.ts";
import { jsonEqual } from "./json-equal.ts";
import type { ApprovalReviewItem, ProjectionState } from "./state.ts";
import { tableGet, tableSet } from "./table.ts";
import { pushTimeline } from "./timeline.ts";

function keep(current: string | null, incoming: string | undefined): string | null {
  return incoming === undefined ? current : incoming;
}

export function reduceApprovalReview(state: ProjectionState, event: EventOf<"approval_review_update">): ProjectionState {
  const p = event.payload;
  const existing = tableGet(state.approvalReviews, p.reviewId);
  const base: ApprovalReviewItem = existing ?? {
    reviewId: p.reviewId,
    decision: p.decision,
    toolCallId: null,
    riskLevel: null,
    userAuthorization: null,
    rationale: null,
    actionType: null,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    firstSeq: event.seq,
  };
  const next: ApprovalReviewItem = {
    ...base,
    decision: p.decision,
    toolCallId: keep(base.toolCallId, p.toolCallId),
    riskLevel: keep(base.riskLevel, p.riskLevel),
    userAuthorization: keep(base.userAuthorization, p.userAuthorization),
    rationale: keep(base.rationale, p.rationale),
    actionType: keep(base.actionType, p.actionType),
  };
  if (existing !== undefined && jsonEqual(existing, next)) return state;
  const withReview = { ...state, approvalReviews: tableSet(state.approvalReviews, p.reviewId, next) };
  return existing === undefined ? pushTimeline(withReview, "approval_review", p.reviewId) : withReview;
}
