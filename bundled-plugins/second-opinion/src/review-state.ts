/**
 * second-opinion's resources and its pure decisions.
 *
 * - `Tracker/session`: which turns were seen and the working tree (git tree id) after the last one, so the
 *   next editing turn's diff is exactly what that turn changed.
 * - `Review/r-<id>`: one review, two steps. Created after an editing turn (phase `review`): its reconcile
 *   proposes that another target reviews the diff. When the reviewer's turn that carries the review's
 *   marker ends, the phase moves to `findings` and its reconcile proposes sending the findings back to the
 *   agent that made the edit. Each proposal needs the user; the marker ties the turns to the review.
 */
import { createHash } from "node:crypto";
import type { ResourceRef, ResourceType } from "baton-plugin";
import type { BatonSnapshot, TurnSummary } from "./loop-api.ts";

export const GROUP = "secondopinion.baton.dev/v1alpha1";
export const TRACKER_TYPE: ResourceType = { apiVersion: GROUP, kind: "Tracker" };
export const REVIEW_TYPE: ResourceType = { apiVersion: GROUP, kind: "Review" };
export const TRACKER_REF: ResourceRef = { ...TRACKER_TYPE, name: "session" };
/** Reviews kept (older ones are deleted). */
export const KEPT_REVIEWS = 20;
/** Findings beyond this are cut (the proposal carries them). */
export const MAX_FINDINGS_CHARS = 16_000;

const EDIT_KINDS = new Set(["edit", "delete", "move"]);
const UNDONE = new Set(["failed", "declined"]);

export interface TrackerStatus {
  readonly seenRevision?: number;
  /** The working tree after the last seen turn (git tree id). */
  readonly tree?: string;
  readonly problem?: string;
}

export interface ReviewSpec {
  readonly reviewId: string;
  readonly sourceTurnId: string;
  readonly sourceTarget: string;
  readonly reviewerTarget: string;
  /** Files the turn's tool calls name, and what git saw change. */
  readonly files: readonly string[];
  readonly stat: string;
  readonly patch: string;
  readonly truncated: boolean;
}

export type ReviewPhase = "review" | "findings" | "done";

export interface ReviewStatus {
  readonly phase?: ReviewPhase;
  readonly reviewTurnId?: string;
  readonly findings?: string;
  readonly returnTurnId?: string;
}

export function reviewMarker(reviewId: string): string {
  return `[second-opinion review ${reviewId}]`;
}

export function findingsMarker(reviewId: string): string {
  return `[second-opinion findings ${reviewId}]`;
}

const MARKER = /\[second-opinion (review|findings) (r-[0-9a-f]{12})\]/;

/** Which step of which review a turn's prompt belongs to (from its marker), if any. */
export function markerOf(turn: TurnSummary): { step: "review" | "findings"; reviewId: string } | undefined {
  const match = MARKER.exec(turn.userText ?? "");
  if (match === null) return undefined;
  return { step: match[1] as "review" | "findings", reviewId: match[2] as string };
}

export function reviewIdFor(turnId: string): string {
  return `r-${createHash("sha256").update(turnId).digest("hex").slice(0, 12)}`;
}

/**
 * The files a turn's edit calls name, as git names them: relative to `cwd` when under it (Codex titles carry
 * absolute paths, git's diff relative ones: one file, one name).
 */
export function editedFiles(turn: TurnSummary, cwd: string): string[] {
  const files: string[] = [];
  const root = cwd.endsWith("/") ? cwd : `${cwd}/`;
  for (const call of turn.toolCalls) {
    if (!EDIT_KINDS.has(call.kind) || UNDONE.has(call.status)) continue;
    // Codex: "edit a.ts, b.ts"; Claude Code: "Edit a.ts", "Write b.ts".
    const rest = call.title.replace(/^(edit|write|delete|move|multiedit)\s+/i, "");
    for (const named of rest.split(/,\s*/)) {
      const trimmed = named.trim();
      const file = trimmed.startsWith(root) ? trimmed.slice(root.length) : trimmed;
      if (file !== "" && !files.includes(file)) files.push(file);
    }
  }
  return files;
}

export function isEditingTurn(turn: TurnSummary): boolean {
  return turn.toolCalls.some((t) => EDIT_KINDS.has(t.kind) && !UNDONE.has(t.status));
}

/**
 * Who reviews `source`'s turn: the `reviewer` setting (a target id, or a map from source to reviewer),
 * else a configured target of another harness (the snapshot lists them all, used or not), else another target,
 * else the other bundled agent.
 */
export function pickReviewer(snapshot: BatonSnapshot, source: string, setting: string | Readonly<Record<string, string>> | undefined): string | undefined {
  if (typeof setting === "string") return setting === source ? undefined : setting;
  const mapped = setting?.[source];
  if (mapped !== undefined) return mapped === source ? undefined : mapped;
  const targets = snapshot.harnessTargets;
  const harness = targets.find((t) => t.harnessTargetId === source)?.harness ?? source;
  const otherHarness = targets.find((t) => t.harnessTargetId !== source && t.harness !== null && t.harness !== harness);
  if (otherHarness !== undefined) return otherHarness.harnessTargetId;
  const other = targets.find((t) => t.harnessTargetId !== source);
  if (other !== undefined) return other.harnessTargetId;
  if (harness === "codex") return "claude";
  if (harness === "claude") return "codex";
  return undefined;
}

export function reviewText(spec: ReviewSpec): string {
  const files = spec.files.length === 0 ? "" : ` (${spec.files.join(", ")})`;
  return [
    `Please review this change that ${spec.sourceTarget} just made${files}. Look for bugs, missed cases and risky assumptions; say what you would change and why, most important first. Do not edit files: this is a review.`,
    "",
    spec.stat === "" ? "" : `${spec.stat}\n`,
    "```diff",
    spec.patch.trimEnd(),
    ...(spec.truncated ? ["… (diff cut; run `git diff` for the rest)"] : []),
    "```",
    "",
    reviewMarker(spec.reviewId),
  ]
    .filter((line, i, all) => !(line === "" && all[i - 1] === ""))
    .join("\n");
}

export function findingsText(spec: ReviewSpec, reviewer: string, findings: string): string {
  const cut = findings.length > MAX_FINDINGS_CHARS ? `${findings.slice(0, MAX_FINDINGS_CHARS)}\n… (cut)` : findings;
  return [
    `${reviewer} reviewed your last change${spec.files.length === 0 ? "" : ` (${spec.files.join(", ")})`}. Its findings:`,
    "",
    cut.trim(),
    "",
    "Address what you agree with and say briefly why you leave the rest.",
    "",
    findingsMarker(spec.reviewId),
  ].join("\n");
}
