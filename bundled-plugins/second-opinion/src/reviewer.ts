/**
 * second-opinion's loop. The Tracker reconcile looks at the turns since it last looked: a reviewer's turn
 * that carries a review's marker moves that review to its findings step; the newest editing turn (not
 * one of the loop's own steps) gets a new Review with the diff between the working tree before and after
 * it. A Review's reconcile proposes the step it is at. Pending review proposals of the same agent that no
 * one started yet are replaced by the newer one (deleting a Review withdraws its pending proposal).
 */
import path from "node:path";
import { ResourceError, type ActivationContext, type JsonValue, type Resource } from "baton-plugin";
import { createGitSnapshotter, type GitSnapshotter } from "./git-snapshot.ts";
import type { BoardPresentation, ReconcileContext, ReconcileResult, TurnSummary } from "./loop-api.ts";
import {
  editedFiles,
  findingsText,
  isEditingTurn,
  KEPT_REVIEWS,
  markerOf,
  MAX_FINDINGS_CHARS,
  pickReviewer,
  REVIEW_TYPE,
  reviewIdFor,
  reviewText,
  TRACKER_REF,
  TRACKER_TYPE,
  type ReviewSpec,
  type ReviewStatus,
  type TrackerStatus,
} from "./review-state.ts";

export interface SecondOpinionSettings {
  readonly reviewer: string | Readonly<Record<string, string>> | undefined;
}

export function readSettings(config: unknown): { settings: SecondOpinionSettings; problems: string[] } {
  const problems: string[] = [];
  const raw = typeof config === "object" && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>) : {};
  for (const key of Object.keys(raw)) if (key !== "reviewer") problems.push(`config.${key}: unknown setting (known: reviewer); ignored`);
  const value = raw["reviewer"];
  let reviewer: SecondOpinionSettings["reviewer"];
  if (typeof value === "string" && value.trim() !== "") reviewer = value.trim();
  else if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string" && v !== "")) reviewer = value as Record<string, string>;
  else if (value !== undefined) problems.push(`config.reviewer: must be a target id ("claude") or a map from target to reviewer ({codex: claude, claude: codex}); choosing automatically`);
  return { settings: { reviewer }, problems };
}

const spec = (review: Resource): ReviewSpec => review.spec as unknown as ReviewSpec;
const status = (review: Resource): ReviewStatus => review.status as ReviewStatus;

export class SecondOpinion {
  private readonly git: GitSnapshotter;

  constructor(
    private readonly ctx: ActivationContext,
    private readonly settings: SecondOpinionSettings,
  ) {
    this.git = createGitSnapshotter(ctx.exec, ctx.session.cwd, path.join(ctx.dataDirs.session, "second-opinion.index"));
  }

  async ensureTracker(): Promise<void> {
    if ((await this.ctx.resources.get(TRACKER_REF)) !== undefined) return;
    try {
      await this.ctx.resources.create({ ...TRACKER_TYPE, metadata: { name: TRACKER_REF.name }, spec: {} });
    } catch (error) {
      if (!(error instanceof ResourceError && error.code === "exists")) throw error;
    }
  }

  private async tree(signal: AbortSignal): Promise<{ tree?: string; problem?: string }> {
    try {
      const tree = await this.git.snapshot(signal);
      return tree === undefined ? { problem: "not a git repository: reviews name the edited files without a diff" } : { tree };
    } catch (error) {
      return { problem: error instanceof Error ? error.message : String(error) };
    }
  }

  async reconcileTracker(baton: ReconcileContext, tracker: Resource): Promise<ReconcileResult | undefined> {
    if (tracker.metadata.deletionTimestamp !== undefined) return undefined;
    const seen = (tracker.status as TrackerStatus).seenRevision;
    const turns = baton.snapshot.turns;
    const latest = turns.reduce((max, t) => Math.max(max, t.revision), seen ?? 0);
    if (seen === undefined) {
      // The first look: from now on (history is not reviewed).
      const now = await this.tree(baton.signal);
      await this.ctx.resources.patchStatus(TRACKER_REF, { seenRevision: latest, tree: now.tree ?? null, problem: now.problem ?? null });
      return undefined;
    }
    const fresh = turns.filter((t) => t.revision > seen);
    if (fresh.length === 0) return undefined;
    for (const turn of fresh) await this.advance(turn);
    const edit = [...fresh].reverse().find((t) => isEditingTurn(t) && markerOf(t) === undefined);
    const before = (tracker.status as TrackerStatus).tree;
    const now = await this.tree(baton.signal);
    if (edit !== undefined && edit.harnessTargetId !== null) await this.propose(baton, edit, edit.harnessTargetId, before, now.tree);
    await this.ctx.resources.patchStatus(TRACKER_REF, { seenRevision: latest, tree: now.tree ?? null, problem: now.problem ?? null });
    await this.prune();
    return undefined;
  }

  /** A turn that carries a marker moves its review on: the review's answer → findings; the return → done. */
  private async advance(turn: TurnSummary): Promise<void> {
    const marker = markerOf(turn);
    if (marker === undefined) return;
    const review = await this.ctx.resources.get({ ...REVIEW_TYPE, name: marker.reviewId });
    if (review === undefined || review.metadata.deletionTimestamp !== undefined) return;
    const phase = status(review).phase;
    if (marker.step === "review" && phase === "review") {
      const findings = (turn.agentText ?? "").trim();
      await this.ctx.resources.patchStatus(
        { ...REVIEW_TYPE, name: marker.reviewId },
        findings === "" ? { phase: "done", reviewTurnId: turn.turnId } : { phase: "findings", reviewTurnId: turn.turnId, findings: findings.slice(0, MAX_FINDINGS_CHARS + 1) },
      );
    } else if (marker.step === "findings" && phase === "findings") {
      await this.ctx.resources.patchStatus({ ...REVIEW_TYPE, name: marker.reviewId }, { phase: "done", returnTurnId: turn.turnId });
    }
  }

  private async propose(baton: ReconcileContext, turn: TurnSummary, source: string, before: string | undefined, after: string | undefined): Promise<void> {
    const reviewer = pickReviewer(baton.snapshot, source, this.settings.reviewer);
    if (reviewer === undefined) {
      this.ctx.logger.info(`no other target to review ${source}'s turn ${turn.turnId}`);
      return;
    }
    let diff = { stat: "", patch: "", truncated: false, files: [] as readonly string[] };
    if (before !== undefined && after !== undefined) {
      if (before === after) return; // the turn changed nothing on disk after all
      diff = await this.git.diff(before, after, baton.signal);
    }
    const reviewId = reviewIdFor(turn.turnId);
    // An older review of the same agent's work that nobody started yet is superseded by this one.
    const busy = new Set(baton.snapshot.activeTurns?.map((t) => t.harnessTargetId) ?? []);
    for (const old of await this.ctx.resources.list(REVIEW_TYPE)) {
      if (old.metadata.name !== reviewId && status(old).phase === "review" && spec(old).sourceTarget === source && !busy.has(spec(old).reviewerTarget)) {
        await this.ctx.resources.delete({ ...REVIEW_TYPE, name: old.metadata.name });
      }
    }
    const files = [...new Set([...editedFiles(turn, this.ctx.session.cwd), ...diff.files])];
    const review: ReviewSpec = { reviewId, sourceTurnId: turn.turnId, sourceTarget: source, reviewerTarget: reviewer, files, stat: diff.stat, patch: diff.patch, truncated: diff.truncated };
    try {
      await this.ctx.resources.create({ ...REVIEW_TYPE, metadata: { name: reviewId }, spec: review as unknown as JsonValue, status: { phase: "review" } });
    } catch (error) {
      if (!(error instanceof ResourceError && error.code === "exists")) throw error;
    }
  }

  private async prune(): Promise<void> {
    const reviews = await this.ctx.resources.list(REVIEW_TYPE);
    const old = reviews.sort((a, b) => (a.metadata.creationTimestamp < b.metadata.creationTimestamp ? -1 : 1)).slice(0, Math.max(0, reviews.length - KEPT_REVIEWS));
    for (const review of old) await this.ctx.resources.delete({ ...REVIEW_TYPE, name: review.metadata.name });
  }

  reconcileReview(review: Resource): ReconcileResult | undefined {
    if (review.metadata.deletionTimestamp !== undefined) return undefined;
    const s = spec(review);
    const st = status(review);
    if (st.phase === "review") {
      return { output: { kind: "proposed-input", title: `Ask ${s.reviewerTarget} to review ${s.sourceTarget}'s change`, text: reviewText(s), targetId: s.reviewerTarget } };
    }
    if (st.phase === "findings" && st.findings !== undefined) {
      return { output: { kind: "proposed-input", title: `Send ${s.reviewerTarget}'s findings to ${s.sourceTarget}`, text: findingsText(s, s.reviewerTarget, st.findings), targetId: s.sourceTarget } };
    }
    return undefined;
  }

  presentReview(review: Resource): BoardPresentation | undefined {
    const s = spec(review);
    const phase = status(review).phase;
    const what = s.files.length === 0 ? s.sourceTurnId : s.files.slice(0, 3).join(", ") + (s.files.length > 3 ? ` +${s.files.length - 3}` : "");
    const title = `Review of ${s.sourceTarget}'s change`;
    if (phase === "review") return { title, status: `ask ${s.reviewerTarget}?`, detail: what, tone: "default" };
    if (phase === "findings") return { title, status: `findings from ${s.reviewerTarget}`, detail: what, tone: "warning", priority: 5 };
    return { title, status: "done", detail: what, tone: "muted", priority: -1 };
  }
}
