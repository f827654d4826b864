/**
 * The inbox (#20.2): every session of every project that waits for the user — an approval or a question (pending
 * in its ledger, or the one its last turn waited on when Baton exited), pending suggestions — newest first, with
 * project, title, agent and what it waits for. Built from meta.json and each ledger's checkpoint + tail, read-only;
 * it never asks a live process. A session another Baton holds open is `live` (its lock's owner is alive).
 *
 * Closing a session records what it waits for in its meta.json (`attention`, with the ledger's length then): while
 * the ledger still has that length the inbox needs nothing else; a session appended to since (open now, or left
 * by a crash) is read from its checkpoint + tail. So 200 closed sessions cost 200 meta reads and 200 stats.
 */
import { initialState, selectLastDrivenTarget, selectWaiting, storedProjectionFold, type ProjectionState, type Waiting, type WaitItem, type WaitKind } from "../projection/index.ts";
import { describeError } from "../shared/errors.ts";
import { displayTitle, inspectLock, loadState, targetsOf, type SessionListing, type SessionRef, type SessionStore } from "../store/index.ts";
import { freshSnapshot } from "./attention-snapshot.ts";

export interface InboxRow {
  readonly id: string;
  /** The session's directory: it opens there. */
  readonly project: string;
  readonly title: string;
  readonly agent: string | null;
  /** One per card, oldest first. */
  readonly waitingFor: readonly WaitKind[];
  /** A Baton process has the session open now. */
  readonly live: boolean;
  /** Baton exited while the session waited (it waits for nobody until it is opened again). */
  readonly exited: boolean;
  /** What it waits for, for a person. */
  readonly summary: string;
  /** The same in a few words, for a picker row: `approval`, `approval (Baton exited)`, `2 suggestions`. */
  readonly brief: string;
  /** When the oldest card opened (ISO). */
  readonly since: string;
}

export interface InboxOptions {
  /** States the caller holds live (the session on screen), by session id: read instead of the disk. */
  readonly live?: ReadonlyMap<string, ProjectionState>;
  readonly onProblem: (path: string, message: string) => void;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function article(kind: WaitKind): string {
  return kind === "approval" ? "an approval" : kind === "question" ? "an answer" : "a suggestion";
}

function briefOf(items: readonly WaitItem[], exited: boolean): string {
  const counts = new Map<WaitKind, number>();
  for (const item of items) counts.set(item.kind, (counts.get(item.kind) ?? 0) + 1);
  const words = [...counts].map(([kind, count]) => (count === 1 ? kind : plural(count, kind)));
  return `${words.join(", ")}${exited ? " (Baton exited)" : ""}`;
}

function summaryOf(pending: readonly WaitItem[], exitedWhile: WaitItem | undefined, live: boolean): string {
  if (exitedWhile !== undefined) return `was waiting for ${article(exitedWhile.kind)} when Baton exited${exitedWhile.title === null ? "" : `: ${exitedWhile.title}`}`;
  const parts: string[] = [];
  const turnBound = pending.filter((item) => item.turnId !== null);
  const first = turnBound[0];
  if (first !== undefined) {
    const title = first.title === null ? "" : `: ${first.title}`;
    parts.push(live ? `waits for ${article(first.kind)}${title}` : `was waiting for ${article(first.kind)} when Baton exited${title}`);
  }
  const questions = pending.filter((item) => item.turnId === null && item.kind !== "suggestion").length;
  if (questions > 0) parts.push(plural(questions, "question"));
  const suggestions = pending.filter((item) => item.kind === "suggestion").length;
  if (suggestions > 0) parts.push(plural(suggestions, "suggestion"));
  return parts.join(", ");
}

/** What one session waits for; undefined when nothing. */
export function inboxRowOf(ref: SessionRef, waiting: Waiting | undefined, lastTarget: string | null, live: boolean): InboxRow | undefined {
  if (waiting === undefined) return undefined;
  // A session someone has open is not "exited": its last card was answered or cancelled there.
  const exitedWhile = live ? undefined : waiting.exitedWhile;
  const items = exitedWhile === undefined ? waiting.pending : [exitedWhile];
  const first = items[0];
  if (first === undefined) return undefined;
  const exited = !live && items.some((item) => item.turnId !== null);
  return {
    id: ref.batonSessionId,
    project: ref.meta.cwd,
    title: displayTitle(ref.meta),
    agent: first.harnessTargetId ?? lastTarget ?? targetsOf(ref.meta)[0] ?? null,
    waitingFor: items.map((item) => item.kind),
    live,
    exited,
    summary: summaryOf(waiting.pending, exitedWhile, live),
    brief: briefOf(items, exited),
    since: first.openedAt,
  };
}

const liveLock = (ref: SessionRef): boolean => inspectLock(ref.paths.lock)?.alive === true;

function rowFromDisk(store: SessionStore, ref: SessionRef, options: InboxOptions): InboxRow | undefined {
  const held = options.live?.get(ref.batonSessionId);
  if (held !== undefined) return inboxRowOf(ref, selectWaiting(held), selectLastDrivenTarget(held), true);
  const snapshot = freshSnapshot(ref);
  if (snapshot !== undefined) return snapshot.waiting === null ? undefined : inboxRowOf(ref, snapshot.waiting, snapshot.lastTarget, liveLock(ref));
  try {
    const ledger = store.openLedger(ref, { readOnly: true });
    try {
      // Checkpoint + tail; the checkpoint's prefix digest is not re-read (a listing, not an open).
      const { state } = loadState(ledger, { ...storedProjectionFold, initial: () => initialState(ref.batonSessionId) }, { verify: "deferred" });
      return inboxRowOf(ref, selectWaiting(state), selectLastDrivenTarget(state), liveLock(ref));
    } finally {
      void ledger.close();
    }
  } catch (error) {
    options.onProblem(ref.paths.ledger, describeError(error));
    return undefined;
  }
}

const newestFirst = (a: InboxRow, b: InboxRow): number => (a.since < b.since ? 1 : a.since > b.since ? -1 : a.id < b.id ? 1 : -1);

function rowsOf(store: SessionStore, listing: SessionListing, options: InboxOptions): InboxRow[] {
  for (const problem of listing.problems) options.onProblem(problem.path, problem.message);
  const rows: InboxRow[] = [];
  for (const ref of listing.sessions) {
    const row = rowFromDisk(store, ref, options);
    if (row !== undefined) rows.push(row);
  }
  return rows.sort(newestFirst);
}

/** Every waiting session of every project, newest first (by when it started waiting). Unreadable ones are reported. */
export function readInbox(store: SessionStore, options: InboxOptions): InboxRow[] {
  return rowsOf(store, store.listSessions({ all: true }), options);
}

/** `readInbox` for the screen: the directory listing is asynchronous, and each ledger read yields to the event loop. */
export async function readInboxAsync(store: SessionStore, options: InboxOptions): Promise<InboxRow[]> {
  const listing = await store.listSessionsAsync({ all: true });
  for (const problem of listing.problems) options.onProblem(problem.path, problem.message);
  const rows: InboxRow[] = [];
  for (const ref of listing.sessions) {
    const row = rowFromDisk(store, ref, options);
    if (row !== undefined) rows.push(row);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return rows.sort(newestFirst);
}
