/**
 * gh-review's resources and pure decisions.
 *
 * - `PullRequestWatch/current`: the branch's PR, when it was last polled, the thread ids proposed so far,
 *   and a warning when `gh` is missing or logged out. Its Board item is the PR line.
 * - `ThreadBatch/b-<hash>` (owned by the watch): threads proposed together. Its reconcile is one proposal
 *   naming each file:line and reviewer, with the full threads. Once every thread in it is resolved it is
 *   deleted, which withdraws the proposal if it is still pending.
 */
import { createHash } from "node:crypto";
import type { ResourceRef, ResourceType } from "baton-plugin";
import type { BoardPresentation, TurnSummary } from "./loop-api.ts";
import type { PullRequest, ReviewThread } from "./gh.ts";

export const GROUP = "ghreview.baton.dev/v1alpha1";
export const WATCH_TYPE: ResourceType = { apiVersion: GROUP, kind: "PullRequestWatch" };
export const BATCH_TYPE: ResourceType = { apiVersion: GROUP, kind: "ThreadBatch" };
export const WATCH_REF: ResourceRef = { ...WATCH_TYPE, name: "current" };
/** The poll's cron Source: every five minutes on the UTC clock (minutes 0, 5, 10, …). */
export const POLL_CRON = "*/5 * * * *";
export const POLL_EVERY_MS = 5 * 60_000;
/**
 * How early before a five-minute mark a reconcile already counts as that mark's poll. A tick may run a
 * little early or late (timers, the queue), and the poll it makes is stamped when it starts; without
 * slack a poll started just before a mark would be repeated by the tick at the mark.
 */
export const POLL_SLACK_MS = 30_000;
/** Thread ids remembered as proposed. */
export const REMEMBERED_THREADS = 500;
const MAX_TEXT_BYTES = 28 * 1024;

export interface WatchStatus {
  readonly pr?: { readonly number: number; readonly url: string; readonly title: string; readonly branch: string };
  readonly lastPollAt?: number;
  readonly seenRevision?: number;
  readonly unresolved?: number;
  readonly proposed?: readonly string[];
  readonly warning?: string;
  readonly note?: string;
}

export interface BatchSpec {
  readonly pr: { readonly number: number; readonly url: string; readonly title: string };
  readonly threads: readonly ReviewThread[];
}

export function batchName(threadIds: readonly string[]): string {
  return `b-${createHash("sha256").update([...threadIds].sort().join("\n")).digest("hex").slice(0, 16)}`;
}

/** A turn that pushed (its tool calls ran `git push`) asks for a poll now. */
export function pushed(turn: Pick<TurnSummary, "toolCalls">): boolean {
  return turn.toolCalls.some((t) => t.kind === "execute" && /\bgit\b[^|;&]*\bpush\b/.test(t.title) && t.status !== "failed" && t.status !== "declined");
}

/** A Turn resource's spec (`toolCalls` as in a turn summary) that pushed. */
export function pushedTurn(spec: unknown): boolean {
  const toolCalls = (spec as { toolCalls?: unknown } | null)?.toolCalls;
  return Array.isArray(toolCalls) && pushed({ toolCalls: toolCalls as TurnSummary["toolCalls"] });
}

/** The five-minute window (of the cron Source's marks, with the slack) a time falls in. */
export function pollWindow(ms: number): number {
  return Math.floor((ms + POLL_SLACK_MS) / POLL_EVERY_MS);
}

/**
 * Is a poll due: never polled, a push since the last look, or the last poll is from an earlier five-minute
 * window than `now` (Baton's clock: a cron tick opens a window). Any other wakeup — the watch's own status
 * write, a turn that did not push, the seed Source at start — finds the poll done and does nothing.
 */
export function pollDue(status: WatchStatus, turns: readonly TurnSummary[], now: number): boolean {
  if (status.lastPollAt === undefined) return true;
  const seen = status.seenRevision ?? -1;
  if (turns.some((t) => t.revision > seen && pushed(t))) return true;
  return pollWindow(now) > pollWindow(status.lastPollAt);
}

/** What a poll decides: which batches go (all their threads resolved), which threads are new. */
export function planBatches(
  unresolved: readonly ReviewThread[],
  proposed: readonly string[],
  batches: readonly { readonly name: string; readonly threadIds: readonly string[] }[],
): { readonly remove: string[]; readonly fresh: ReviewThread[] } {
  const open = new Set(unresolved.map((t) => t.id));
  const remove = batches.filter((b) => b.threadIds.every((id) => !open.has(id))).map((b) => b.name);
  const known = new Set(proposed);
  return { remove, fresh: unresolved.filter((t) => !known.has(t.id)) };
}

const where = (t: ReviewThread): string => `${t.path}${t.line === null ? "" : `:${t.line}`}`;

function quote(text: string, max = 160): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

export function batchText(spec: BatchSpec): string {
  const n = spec.threads.length;
  const head = [
    `${n === 1 ? "A review thread is" : `${n} review threads are`} open on PR #${spec.pr.number} (${spec.pr.title}), ${spec.pr.url}:`,
    "",
    ...spec.threads.map((t, i) => `${i + 1}. ${where(t)} — ${t.comments[0]?.author ?? "?"}: "${quote(t.comments[0]?.body ?? "")}"${t.comments.length > 1 ? ` (+${t.comments.length - 1} repl${t.comments.length === 2 ? "y" : "ies"})` : ""}`),
    "",
    "Address each thread in the code. Then say, per thread (file:line), what you changed or why you did not. Do not reply on GitHub or resolve threads: the user does that.",
    "",
    "The threads in full:",
  ];
  let text = head.join("\n");
  for (const t of spec.threads) {
    const block = [``, `--- ${where(t)}${t.isOutdated ? " (outdated)" : ""}`, ...t.comments.map((c) => `${c.author} (${c.createdAt.slice(0, 10)}): ${c.body.trim()}`)].join("\n");
    if (Buffer.byteLength(text + block) > MAX_TEXT_BYTES) {
      text += "\n\n… (more in the pull request)";
      break;
    }
    text += block;
  }
  return text;
}

export function presentWatch(status: WatchStatus): BoardPresentation {
  if (status.warning !== undefined) return { title: "Review threads", status: "unavailable", detail: status.warning, tone: "warning" };
  if (status.pr === undefined) return { title: "Review threads", status: status.note ?? "checking…", tone: "muted" };
  const n = status.unresolved ?? 0;
  return {
    title: `PR #${status.pr.number}`,
    url: status.pr.url,
    status: n === 0 ? "no open review threads" : `${n} open review thread${n === 1 ? "" : "s"}`,
    detail: status.pr.title,
    tone: n === 0 ? "success" : "warning",
  };
}

export function prOf(pr: PullRequest): NonNullable<WatchStatus["pr"]> {
  return { number: pr.number, url: pr.url, title: pr.title, branch: pr.headRefName };
}
