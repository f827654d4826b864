/**
 * One entry point opens a session for every caller (TUI, exec, repl): create, continue the latest of
 * the cwd, or a given id; take the lock, load the projection (checkpoint + tail), run recovery, and
 * hand over a controller. `close()` runs the shutdown order.
 */
import { Controller } from "../controller/controller.ts";
import { diskFaultFrom, failpointFrom } from "./failpoints.ts";
import { createHistoryCheck } from "./history-check.ts";
import { FileCheckpointRecorder } from "../controller/file-checkpoints.ts";
import { SessionCheckpoints } from "../rewind/checkpoints.ts";
import { recoverInterruptedRewind, type RewindRecovery } from "./rewind-recovery.ts";
import { ContextProviderRegistry } from "../context/providers.ts";
import { createSessionProvider } from "../context/session-provider.ts";
import type { ControllerSettings, MetaPort, PreferencesPort } from "../controller/ports.ts";
import type { RecoveryReport } from "../controller/recovery.ts";
import type { HarnessRegistry } from "../harness/registry.ts";
import { initialState, storedProjectionFold, type ProjectionState } from "../projection/index.ts";
import { ApprovalsFileStore, approvalsFile, resolveCwd, createMetaCache, createNativeTrace, faultingLedgerIo, checkpointWritesSettled, loadState, touched, nodeLedgerIo, noteLedgerWrite, noteLedgerWritten, removeSessionDir, setDiskFaults, writeCheckpoint, type NativeTrace, type LedgerIo, type Ledger, type ListQuery, type LoadedState, type SessionLock, type SessionLog, type SessionMeta, type SessionRef, type SessionStore, type StateFold } from "../store/index.ts";
import { BatonError } from "../shared/errors.ts";
import path from "node:path";
import { attentionSnapshot } from "./attention-snapshot.ts";
import { readAhead } from "./read-ahead.ts";
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { IdSource } from "../shared/ids.ts";
import type { LogLevel } from "../shared/log.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

export type SessionChoice = { readonly kind: "new" } | { readonly kind: "continue" } | { readonly kind: "id"; readonly id: string };

export interface OpenSessionOptions {
  readonly store: SessionStore;
  readonly registry: HarnessRegistry;
  readonly cwd: string;
  readonly choice: SessionChoice;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly env: Readonly<Record<string, string>>;
  readonly settings: ControllerSettings;
  readonly logLevel: LogLevel;
  readonly preferences?: PreferencesPort;
  /** The ledger's syscalls (tests inject ENOSPC). */
  readonly ledgerIo?: LedgerIo;
  /**
   * When a checkpoint's ledger digest is checked: `sync` (default) before the session is handed over;
   * `deferred` — the TUI — by `verifyHistory()` after the first frame (see history-check.ts).
   */
  readonly verifyCheckpoint?: "sync" | "deferred";
  /** File checkpoints around driven turns (default on; off where there is no git worktree anyway). */
  readonly fileCheckpoints?: boolean;
  /** A turn end writes a checkpoint once the ledger grew by this many bytes since the last one (default CHECKPOINT_TAIL_BYTES; 0: every turn end). */
  readonly checkpointTailBytes?: number;
  /** meta.json's updatedAt is written at most once in this many ms while the session is open (default META_TOUCH_MS; 0: every turn end). */
  readonly metaTouchMs?: number;
}

export interface OpenedSession {
  readonly ref: SessionRef;
  readonly ledger: Ledger;
  readonly lock: SessionLock;
  readonly log: SessionLog;
  readonly controller: Controller;
  readonly loaded: LoadedState<ProjectionState>;
  readonly recovery: RecoveryReport;
  readonly created: boolean;
  /** `@<kind>:<id>` providers of this session (the built-in `session` kind; plugins later). */
  readonly contextProviders: ContextProviderRegistry;
  /** The session's file checkpoints in its git worktree (what `/rewind` works with). */
  readonly checkpoints: SessionCheckpoints;
  /** Resolves once every file checkpoint asked for so far is recorded (they share Baton's index with a rewind). */
  fileCheckpointsSettled(): Promise<void>;
  /**
   * Resolves once the background work started so far has finished: the turn-end hook (meta.json's updatedAt,
   * the checkpoint it starts), file checkpoints, meta.json's write-behind, the log and the native traces. What a
   * benchmark charges to the turn that caused it; close waits for the same work on its own. An updatedAt held back
   * by META_TOUCH_MS is not waited for (it is written when its time comes, or at close).
   */
  backgroundSettled(): Promise<void>;
  /** What opening found of a rewind a dead process left half done (also a notice in the ledger). */
  readonly rewindRecovery: RewindRecovery;
  meta(): SessionMeta;
  /**
   * Run `closer` during close, after the harnesses and before the session is flushed (the plugin bindings:
   * their last facts still reach the ledger). Closers run in reverse order of registration.
   */
  addCloser(closer: () => Promise<void>): void;
  /**
   * Check the checkpoint this session was opened from against the ledger (deferred opens; resolves at
   * once otherwise). On a mismatch the projection is rebuilt from the whole ledger once no turn runs.
   */
  verifyHistory(): Promise<void>;
  /** Shutdown order: close harnesses (terminals) → closers (plugin runners) → checkpoint → flush log → close ledger → release lock. */
  close(): Promise<void>;
}

/** Baton's own git index for a session's file checkpoints (the user's index is never written). */
export const FILE_CHECKPOINT_INDEX = "file-checkpoints.index";

/**
 * A turn end writes a checkpoint only once the ledger has grown by this much since the last one (#18): a checkpoint
 * rewrites its head (≈ 100–300 KB) and fdatasyncs its nodes whatever the turn added, ≈ 4 ms of a short turn's
 * background; an open after a crash replays at most this much tail, ≈ 1,000 events, a few ms. Open and close write
 * one past CHECKPOINT_MIN_TAIL_BYTES: replaying 64 KiB (≈ 60 events) takes < 1 ms, the write ≈ 10 ms of a one-turn exec.
 */
export const CHECKPOINT_TAIL_BYTES = 1024 * 1024;
export const CHECKPOINT_MIN_TAIL_BYTES = 64 * 1024;

/** meta.json's updatedAt at most this often while open (#18): the first turn end's at once, a later one once this much
 * time passed since the last write (a durable replace, 2 fsyncs, was ≈ 1 ms of every turn's background); close writes the last. */
export const META_TOUCH_MS = 15_000;

/** How long close waits for a background checkpoint write to finish (a large session's takes a few seconds). */
const CHECKPOINT_SETTLE_MS = 10_000;

export const projectionFold: StateFold<ProjectionState> = storedProjectionFold;

/**
 * Pick the session to open without touching it. `continue` takes the latest session of the enclosing
 * project (this directory or the nearest parent with sessions); with none, it is an error, not a new session.
 */
export function chooseSession(store: SessionStore, cwd: string, choice: SessionChoice, userHome?: string): { ref: SessionRef; created: boolean } {
  if (choice.kind === "id") {
    const ref = store.findSession(choice.id);
    assertOwnProject(ref, cwd);
    return { ref, created: false };
  }
  if (choice.kind === "continue") {
    const listing = store.listSessions(sessionsQuery(cwd, userHome));
    const latest = listing.sessions[0];
    if (latest) return { ref: latest, created: false };
    const here = listing.project?.from ?? cwd;
    throw new BatonError("session_not_found", `nothing to continue: no session in ${here} or its parent directories`, {
      hint: "Start one without --continue (baton, or baton exec \"…\"); see baton sessions --all for sessions elsewhere",
    });
  }
  return { ref: store.createSession({ cwd }), created: true };
}

/** The sessions that apply to `cwd`: its own, or the enclosing project's (climbing to the git root, never to the home). */
export function sessionsQuery(cwd: string, userHome: string | undefined): ListQuery {
  return { cwd, ancestors: { userHome } };
}

/**
 * A session belongs to the directory it was started in; continuing it from elsewhere would run the
 * agents in a directory the user did not choose. Subdirectories are fine.
 */
function assertOwnProject(ref: SessionRef, cwd: string): void {
  const here = resolveCwd(cwd);
  const home = ref.meta.cwd;
  if (here === home || here.startsWith(home.endsWith(path.sep) ? home : `${home}${path.sep}`)) return;
  throw new BatonError("project_mismatch", `session ${ref.batonSessionId} belongs to ${home}, not ${here}`, {
    hint: `Run baton from ${home} (or pass --cwd ${home}), or copy it here with: baton fork ${ref.batonSessionId}`,
  });
}

export async function openSession(options: OpenSessionOptions): Promise<OpenedSession> {
  const { store } = options;
  const diskFault = diskFaultFrom(options.env["BATON_FAILPOINT"]);
  if (diskFault) setDiskFaults(diskFault);
  const { ref, created } = chooseSession(store, options.cwd, options.choice, options.env["HOME"]);
  let lock: SessionLock;
  try {
    lock = store.acquireLock(ref);
  } catch (error) {
    if (created) removeSessionDir(ref.paths.dir);
    throw error;
  }
  let ledger: Ledger | undefined;
  let log: SessionLog | undefined;
  try {
    log = store.createLog(ref, { minLevel: options.logLevel });
    ledger = store.openLedger(ref, { io: faultingLedgerIo(options.ledgerIo ?? nodeLedgerIo) });
    // A torn last line (a crash, a full disk) is moved aside now, before anything else is written; the user is told.
    const tornTail = ledger.repairTornTail();
    const fold: StateFold<ProjectionState> = { ...projectionFold, initial: () => initialState(ref.batonSessionId) };
    const loaded = loadState(ledger, fold, { verify: options.verifyCheckpoint ?? "sync" });
    let controllerRef: Controller | undefined;
    // meta.json lives in memory while the session is open and is written behind (PROC-01: no key press
    // waits for it); a failed write is a storage failure like any other (the session stops recording).
    // The last write at close only caches the inbox's snapshot: its failure is logged, not the session's failure.
    let cacheWriteOnly = false;
    const metaCache = createMetaCache(ref.paths.dir, store.readMeta(ref), (error) => {
      log?.log(cacheWriteOnly ? "warn" : "error", "could not write the session's meta.json", { error });
      if (!cacheWriteOnly) controllerRef?.storage.note(error);
    });
    const meta: MetaPort = {
      read: () => metaCache.read(),
      update: (change) => {
        metaCache.update(change);
      },
      flush: () => metaCache.flush(),
    };
    const openLedgerRef = ledger;
    const failpoint = failpointFrom(options.env["BATON_FAILPOINT"]);
    let closed = false;
    let closing: Promise<void> | undefined;
    let lastSummaryTs: string | undefined;
    const touchEveryMs = options.metaTouchMs ?? META_TOUCH_MS;
    let touchedAt = -Infinity;
    let touchTimer: TimerHandle | undefined;
    const touchMeta = (): void => {
      touchTimer = undefined;
      if (closed || openLedgerRef.writeFailure || lastSummaryTs === undefined) return;
      touchedAt = options.clock.now();
      const ts = lastSummaryTs;
      metaCache.update((current) => touched(current, ts));
    };
    const traces = new Map<string, NativeTrace>();
    const nativeTrace = (targetId: string) => {
      let trace = traces.get(targetId);
      if (!trace) {
        trace = createNativeTrace(ref.paths.dir, targetId, options.clock);
        traces.set(targetId, trace);
      }
      const writer = trace;
      return (direction: "in" | "out", message: unknown) => writer.trace(direction, message);
    };
    const history = createHistoryCheck({ loaded, ledger, fold, controller: () => controllerRef!, log, closed: () => closed });
    // A checkpoint is written from the live state only once the one it started from is known to match,
    // and never from a projection that holds events a stopped ledger does not.
    let background: Promise<unknown> = Promise.resolve();
    // Where the newest checkpoint ends in the ledger: a load that replayed a tail counts from 0 (the next turn end writes one).
    let checkpointedAt = loaded.fromCheckpoint && loaded.replayed === 0 ? loaded.position.byteOffset : 0;
    const tailBytes = options.checkpointTailBytes ?? CHECKPOINT_TAIL_BYTES;
    const inBackground = (work: Promise<unknown>): void => {
      const previous = background;
      background = Promise.all([previous, work.catch(() => undefined)]);
    };
    const checkpointSoon = (): void => {
      checkpointedAt = openLedgerRef.position.byteOffset;
      inBackground(history.writable.then((ok) => {
        if (!ok || closed || openLedgerRef.writeFailure) return;
        return writeCheckpoint(openLedgerRef, projectionFold, controller.state, openLedgerRef.position).then(
          () => undefined,
          (error: unknown) => log?.log("warn", "could not write a checkpoint", { error }),
        );
      }));
    };
    const checkpoints = new SessionCheckpoints({
      cwd: ref.meta.cwd,
      env: options.env,
      sessionId: ref.batonSessionId,
      indexFile: path.join(ref.paths.dir, FILE_CHECKPOINT_INDEX),
    });
    const recorder =
      options.fileCheckpoints === false
        ? undefined
        : new FileCheckpointRecorder({
            port: checkpoints,
            append: (draft) => controller.pipeline.append(draft),
            state: () => controller.state,
            log: log.child("checkpoints"),
            sessionId: ref.batonSessionId,
          });
    const contextProviders = new ContextProviderRegistry();
    contextProviders.register(createSessionProvider(store, ref.batonSessionId));
    const controller = new Controller({
      sessionId: ref.batonSessionId,
      cwd: ref.meta.cwd,
      ledger: {
        append: (draft) => {
          noteLedgerWrite(draft.kind, draft.payload);
          const event = openLedgerRef.append(draft);
          noteLedgerWritten(event.kind, event.payload);
          failpoint?.(event);
          return event;
        },
        sync: () => openLedgerRef.sync(),
        onWriteFailure: (listener) => openLedgerRef.onWriteFailure(listener),
      },
      meta,
      ids: options.ids,
      clock: options.clock,
      log: log.child("controller"),
      env: options.env,
      settings: options.settings,
      registry: options.registry,
      initialState: loaded.state,
      contextProviders,
      nativeTrace,
      stateDir: path.join(store.home, "state"),
      approvalRules: new ApprovalsFileStore(approvalsFile(store.home)),
      ...(recorder ? { fileCheckpoints: recorder } : {}),
      ...(options.preferences ? { preferences: options.preferences } : {}),
    });
    controllerRef = controller;
    const recovery = controller.recover(tornTail);
    if (recovery.turnsClosed > 0 || recovery.attemptsSettled > 0 || recovery.interactionsCancelled > 0 || tornTail) {
      log.log("warn", "recovered a session left open by a process that died", { attributes: { ...recovery } });
    }
    const rewindRecovery = created ? ({ kind: "none" } as const) : await recoverInterruptedRewind(store, ref, checkpoints);
    if (rewindRecovery.kind !== "none") {
      log.log("warn", "found a rewind a previous process left unfinished", { attributes: { outcome: rewindRecovery.kind } });
      controller.pipeline.append({
        kind: "_baton_notice",
        payload: { level: rewindRecovery.kind === "failed" ? "error" : "warning", title: "Interrupted rewind", detail: rewindRecovery.message },
        source: BATON_SOURCE,
      });
    }
    log.log("info", created ? "Session created" : "Session opened", { attributes: { fromCheckpoint: loaded.fromCheckpoint, replayed: loaded.replayed } });
    if (loaded.fromCheckpoint) void readAhead(() => controller.state, () => closed, log);
    // Bump updatedAt after a turn summary (at most every META_TOUCH_MS) and, once the tail is worth it, checkpoint in the
    // background (so the next open is fast); both run after the turn has settled, off the turn's own path.
    controller.subscribe((event) => {
      if (event.kind !== "_baton_turn_summary") return;
      lastSummaryTs = event.ts;
      inBackground(new Promise<void>((resolve) => setImmediate(() => {
        resolve();
        if (closed || openLedgerRef.writeFailure) return;
        const wait = touchedAt + touchEveryMs - options.clock.now();
        if (wait <= 0) touchMeta();
        else touchTimer ??= options.clock.setTimeout(touchMeta, wait);
        if (openLedgerRef.position.byteOffset - checkpointedAt >= tailBytes) checkpointSoon();
      })));
    });
    if (!loaded.fromCheckpoint && loaded.replayed > 0 && loaded.position.byteOffset >= Math.min(tailBytes, CHECKPOINT_MIN_TAIL_BYTES)) checkpointSoon();
    const sessionLog = log;
    const closers: (() => Promise<void>)[] = [];
    return {
      ref,
      ledger,
      lock,
      log,
      controller,
      loaded,
      recovery,
      created,
      contextProviders,
      checkpoints,
      fileCheckpointsSettled: () => recorder?.settled() ?? Promise.resolve(),
      backgroundSettled: async () => {
        // Each step may start the next (the turn-end hook starts a checkpoint): wait until a pass finds nothing new.
        for (let pending = background; ; pending = background) {
          await pending;
          await recorder?.settled();
          await metaCache.flush().catch(() => undefined); // a failed write was reported when it failed
          await checkpointWritesSettled(openLedgerRef, CHECKPOINT_SETTLE_MS);
          await Promise.all([sessionLog.flush(), ...[...traces.values()].map((trace) => trace.flush())]);
          if (background === pending) return;
        }
      },
      rewindRecovery,
      meta: () => metaCache.read(),
      verifyHistory: () => history.verify(),
      // Every caller waits for the same close: a signal's shutdown and the command's own `finally` race.
      close: () => (closing ??= closeOnce()),
      addCloser: (closer) => void closers.push(closer),
    };
    async function closeOnce(): Promise<void> {
      closed = true;
      if (touchTimer !== undefined) options.clock.clearTimeout(touchTimer); // close writes the last updatedAt itself
      try {
        await controller.shutdown();
        await recorder?.settled(); // the last turn's after-checkpoint (bounded by git's timeouts)
        for (const closer of closers.reverse()) {
          await closer().catch((error: unknown) => sessionLog.log("error", "closing a session part failed", { error }));
        }
        if (lastSummaryTs !== undefined && !controller.storage.failure) metaCache.update((current) => touched(current, lastSummaryTs!));
        await metaCache.flush().catch((error: unknown) => {
          sessionLog.log("warn", "could not write meta.json at close", { error });
          controller.storage.note(error);
        });
        // After the last append: what it waits for, for the inbox (valid while the ledger keeps this length). A cache
        // like the checkpoint: the inbox reads the ledger's tail when it is missing, so failing to write it fails nothing.
        if (!controller.storage.failure && !openLedgerRef.writeFailure) {
          cacheWriteOnly = true;
          metaCache.update((current) => ({ ...current, attention: attentionSnapshot(controller.state, openLedgerRef.byteLength) }));
          await metaCache.flush().catch((error: unknown) => sessionLog.log("warn", "could not write the inbox's snapshot to meta.json at close", { error }));
        }
        await options.preferences?.flush?.();
        await openLedgerRef.sync().catch(() => undefined);
        await history.verify().catch(() => undefined);
        // A stopped ledger's projection may hold events the disk does not: no checkpoint of it. Nor of a short tail.
        if (openLedgerRef.lastSeq > 0 && !openLedgerRef.writeFailure && (await history.writable)) {
          if (history.rebuilt || openLedgerRef.position.byteOffset - checkpointedAt >= Math.min(tailBytes, CHECKPOINT_MIN_TAIL_BYTES)) await writeCheckpoint(openLedgerRef, projectionFold, controller.state, openLedgerRef.position).catch(() => false);
        } else history.discardIfStale();
        // One started after a turn may still be writing (or removing its temp after a full disk): an exit would leave the temp.
        if (!(await checkpointWritesSettled(openLedgerRef, CHECKPOINT_SETTLE_MS))) {
          sessionLog.log("warn", "a checkpoint write was still running at close; its temp file may be left behind", { attributes: { waitedMs: CHECKPOINT_SETTLE_MS } });
        }
        await Promise.all([...traces.values()].map((trace) => trace.close()));
        sessionLog.log("info", "Session closed");
        await sessionLog.close();
        await openLedgerRef.close();
      } finally {
        lock.release();
      }
    }
  } catch (error) {
    await ledger?.close().catch(() => undefined);
    await log?.close().catch(() => undefined);
    lock.release();
    // A session created by this call and never written to is removed again (no half-created sessions).
    if (created && (ledger === undefined || ledger.lastSeq === 0)) removeSessionDir(ref.paths.dir);
    if (error instanceof BatonError) throw error;
    throw new BatonError("ledger_io", `could not open session ${ref.batonSessionId}: ${(error as Error).message}`, { cause: error });
  }
}
