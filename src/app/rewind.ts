/**
 * Rewind (issue 19): put the working tree back to a file checkpoint and fork the conversation at that
 * turn's boundary. Preview first (the diff now → checkpoint, and a refusal naming any file that changed
 * outside an agent turn since, which the rewind would overwrite); perform re-checks, keeps the current state
 * as the undo point, writes the restore journal, restores, then commits by creating the new session with
 * its `rewind` checkpoint. The old session is left as it was.
 */
import {
  changedOutsideTurnsAfter,
  fileCheckpointIndexThrough,
  initialState,
  lastFileCheckpoint,
  listAt,
  selectRewindPoints,
  type ProjectionState,
  type RewindPoint,
} from "../projection/index.ts";
import { removeJournal, writeJournal, type RestoreJournal } from "../rewind/journal.ts";
import { checkpointRef, writeRefs } from "../rewind/refs.ts";
import { restoreTree, type RestoreResult } from "../rewind/restore.ts";
import type { OpenRepo, SessionCheckpoints } from "../rewind/checkpoints.ts";
import type { Snapshot } from "../rewind/snapshot.ts";
import { changedPaths, filePatches, type FilePatch } from "../rewind/tree-diff.ts";
import { BatonError } from "../shared/errors.ts";
import type { BatonSessionId, IdSource } from "../shared/ids.ts";
import type { Clock } from "../shared/clock.ts";
import { displayTitle, loadState, type SessionRef, type SessionStore } from "../store/index.ts";
import { stepFailpointFrom } from "./failpoints.ts";
import { projectionFold, type OpenedSession } from "./open-session.ts";

/** An open session, as a rewind needs it. */
export interface RewindSession {
  readonly store: SessionStore;
  readonly ref: SessionRef;
  readonly checkpoints: SessionCheckpoints;
  readonly ids: IdSource;
  readonly clock: Clock;
  state(): ProjectionState;
  /** The ledger's last seq (the session is at rest: no turn runs). */
  lastSeq(): number;
  busy(): boolean;
  /** Resolves when the session's own file checkpoints in flight are recorded (they share Baton's index). */
  settled(): Promise<void>;
  /** Make everything appended so far durable (the fork reads the ledger file). */
  sync(): Promise<void>;
  /** Called after each restored file (failpoints). */
  readonly onRestoreStep?: (count: number) => void;
  /** Called once the new session is committed, before the journal goes (failpoints). */
  readonly onCommitted?: () => void;
}

export interface RewindPlan {
  readonly point: RewindPoint;
  /** How people read the point: `before “fix the test”`, or `back to bs_… as it was before the rewind`. */
  readonly label: string;
  /** What the rewind changes, now → checkpoint. */
  readonly files: readonly FilePatch[];
  /** Set when rewinding would overwrite changes made outside any agent turn. */
  readonly refused: { readonly paths: readonly string[]; readonly message: string } | undefined;
  readonly current: Snapshot;
  readonly target: { readonly commit: string; readonly tree: string };
}

export interface RewindDone {
  readonly newSessionId: BatonSessionId;
  readonly plan: RewindPlan;
  readonly restored: RestoreResult;
}

/**
 * The rewind view of a session opened with openSession. Failpoints: `BATON_FAILPOINT=at:rewind-restore:<n>`
 * stops after the n-th restored file, `at:rewind-committed` once the new session exists, before the journal goes.
 */
export function rewindSessionOf(opened: OpenedSession, deps: { readonly store: SessionStore; readonly ids: IdSource; readonly clock: Clock; readonly env: Readonly<Record<string, string | undefined>> }): RewindSession {
  const failpoint = stepFailpointFrom(deps.env["BATON_FAILPOINT"], "rewind-restore");
  const committed = stepFailpointFrom(deps.env["BATON_FAILPOINT"], "rewind-committed");
  return {
    store: deps.store,
    ref: opened.ref,
    checkpoints: opened.checkpoints,
    ids: deps.ids,
    clock: deps.clock,
    state: () => opened.controller.state,
    lastSeq: () => opened.ledger.lastSeq,
    busy: () => opened.controller.busy || Object.keys(opened.controller.state.activeTurns).length > 0,
    settled: () => opened.fileCheckpointsSettled(),
    sync: () => opened.ledger.sync(),
    ...(failpoint ? { onRestoreStep: failpoint } : {}),
    ...(committed ? { onCommitted: () => committed(1) } : {}),
  };
}

export function rewindPoints(session: RewindSession): RewindPoint[] {
  return selectRewindPoints(session.state());
}

export function describePoint(point: RewindPoint): string {
  if (point.kind === "undo") return `back to ${point.fork.batonSessionId ?? "the session"} as it was before the rewind`;
  const text = point.userText.replace(/\s+/g, " ").trim();
  return text === "" ? `before turn ${point.turnId}` : `before “${text.length > 60 ? `${text.slice(0, 59)}…` : text}”`;
}

export async function planRewind(session: RewindSession, pointId: string): Promise<RewindPlan> {
  if (session.busy()) throw new BatonError("busy", "a turn is running or inputs are queued; rewind when the session is idle", { hint: "Esc interrupts the running turn" });
  await session.settled();
  const state = session.state();
  const points = selectRewindPoints(state);
  const point = points.find((p) => p.id === pointId || (pointId.length >= 6 && p.id.startsWith(pointId)));
  if (point === undefined) {
    const known = points.map((p) => p.id).join(", ");
    throw new BatonError("usage", `no rewind point '${pointId}' in ${session.ref.batonSessionId}${known === "" ? " (it has no file checkpoints)" : `; points: ${known}`}`);
  }
  const repo = await openRepo(session);
  const targetTree = await repo.snapshots.treeOf(point.commit);
  if (targetTree === undefined) {
    throw new BatonError("rewind_refused", `the checkpoint ${point.commit.slice(0, 12)} is not in the repository at ${repo.repo.root}`, {
      hint: "It was made in another repository, or its refs were removed (baton gc-checkpoints) and git gc pruned it",
    });
  }
  const current = await repo.snapshots.take(`baton checkpoint ${session.ref.batonSessionId} rewind-from`);
  const files = await filePatches(repo.git, current.tree, targetTree);
  const label = describePoint(point);
  const outside = await outsideTurns(session, repo, state, point, current);
  const changed = new Set(files.map((f) => f.path));
  const clobbered = outside.paths.filter((p) => changed.has(p));
  let refused: RewindPlan["refused"];
  if (outside.unknown && files.length > 0) {
    refused = { paths: [], message: `Baton cannot tell what changed outside agent turns since ${label} (a checkpoint could not be compared); rewinding could overwrite your changes` };
  } else if (clobbered.length > 0) {
    refused = {
      paths: clobbered,
      message: `rewinding ${label} would overwrite changes made outside any agent turn since then: ${clobbered.join(", ")}. Save them elsewhere and undo them, then rewind again`,
    };
  }
  return { point, label, files, refused, current, target: { commit: point.commit, tree: targetTree } };
}

/** Re-checks the plan against the tree as it is now, then restores and forks. */
export async function performRewind(session: RewindSession, shown: RewindPlan): Promise<RewindDone> {
  const plan = await planRewind(session, shown.point.id);
  if (plan.refused) throw new BatonError("rewind_refused", plan.refused.message);
  if (plan.current.tree !== shown.current.tree) throw new BatonError("rewind_refused", "the files changed since the preview; look at the diff again");
  const repo = await openRepo(session);
  const state = session.state();
  const { point } = plan;
  const newId = session.ids.mint("session");
  const forkFrom = point.fork.batonSessionId ?? session.ref.batonSessionId;
  const entry = {
    turnId: point.turnId,
    boundary: "rewind" as const,
    commit: plan.target.commit,
    ...(await rewoundDirt(session, repo, state, point)),
    undo: { batonSessionId: session.ref.batonSessionId, throughSeq: session.lastSeq(), commit: plan.current.commit },
  };
  // The undo point and the restored checkpoint are kept under the new session before anything changes.
  await writeRefs(repo.git, [
    { ref: checkpointRef(newId, point.turnId, "undo"), commit: plan.current.commit },
    { ref: checkpointRef(newId, point.turnId, "rewind"), commit: plan.target.commit },
  ]);
  await session.sync();
  const journal: RestoreJournal = {
    version: 1,
    sourceSessionId: session.ref.batonSessionId,
    newSessionId: newId,
    root: repo.repo.root,
    label: plan.label,
    from: { commit: plan.current.commit, tree: plan.current.tree },
    to: plan.target,
    startedAt: new Date(session.clock.now()).toISOString(),
  };
  await writeJournal(session.ref.paths.dir, journal);
  const restored = await restoreTree(repo.git, plan.current.tree, plan.target.tree, session.onRestoreStep ? { onStep: session.onRestoreStep } : {});
  // Commit point: the new session with its rewind checkpoint. Until it exists, reopening rolls back.
  const child = session.store.forkSession(forkFrom, point.fork.throughSeq, { cwd: session.ref.meta.cwd, id: newId });
  session.store.updateMeta(child, (meta) => ({ ...meta, description: `rewind of "${displayTitle(session.ref.meta)}" ${plan.label}` }));
  const ledger = session.store.openLedger(child);
  try {
    ledger.append({ kind: "_baton_checkpoint", payload: entry, source: { type: "user" } });
    await ledger.sync();
  } finally {
    await ledger.close();
  }
  session.onCommitted?.();
  await removeJournal(session.ref.paths.dir);
  return { newSessionId: newId, plan, restored };
}

async function openRepo(session: RewindSession): Promise<OpenRepo> {
  const open = await session.checkpoints.open();
  if ("off" in open) throw new BatonError("rewind_refused", `file checkpoints are off: ${open.off}`);
  return open;
}

/** Out-of-turn changes since the point: recorded ones, plus what changed since the last checkpoint. */
async function outsideTurns(session: RewindSession, repo: OpenRepo, state: ProjectionState, point: RewindPoint, current: Snapshot): Promise<{ paths: readonly string[]; unknown: boolean }> {
  const recorded = changedOutsideTurnsAfter(state, point.index);
  const last = lastFileCheckpoint(state);
  if (last === undefined) return recorded;
  try {
    const sinceLast = await changedPaths(repo.git, last.commit, current.tree);
    return { paths: [...new Set([...recorded.paths, ...sinceLast])].sort(), unknown: recorded.unknown };
  } catch {
    return { paths: recorded.paths, unknown: true };
  }
}

/**
 * The new session's `rewind` checkpoint records what, in the restored state, came from outside agent turns
 * since the last checkpoint its copied prefix holds — so later rewinds there refuse to overwrite it too.
 */
async function rewoundDirt(session: RewindSession, repo: OpenRepo, state: ProjectionState, point: RewindPoint): Promise<{ dirtyPaths: string[]; dirtyUnknown?: true }> {
  if (point.kind === "turn") {
    const since = changedOutsideTurnsAfter(state, fileCheckpointIndexThrough(state, point.fork.throughSeq), point.index);
    return { dirtyPaths: [...since.paths], ...(since.unknown ? { dirtyUnknown: true as const } : {}) };
  }
  // Undo: the fork copies the earlier session through its end; compare with its last checkpoint.
  const source = session.store.findSession(point.fork.batonSessionId ?? session.ref.batonSessionId);
  const ledger = session.store.openLedger(source, { readOnly: true });
  try {
    const { state: earlier } = loadState<ProjectionState>(ledger, { ...projectionFold, initial: () => initialState(source.batonSessionId) });
    const last = listAt(earlier.fileCheckpoints, fileCheckpointIndexThrough(earlier, point.fork.throughSeq));
    if (last === undefined) return { dirtyPaths: [] };
    return { dirtyPaths: await changedPaths(repo.git, last.commit, point.commit) };
  } catch {
    return { dirtyPaths: [], dirtyUnknown: true };
  } finally {
    await ledger.close();
  }
}
