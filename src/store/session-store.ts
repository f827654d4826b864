/** One object bundling the store's operations over a BATON_HOME, for the controller and the app. */
import fs from "node:fs";
import { BatonError } from "../shared/errors.ts";
import type { LogLevel } from "../shared/log.ts";
import { isoTime } from "./files.ts";
import { forkSession, type ForkOptions } from "./fork.ts";
import { openLedger, type Ledger, type LedgerIo } from "./ledger.ts";
import { acquireLock, type SessionLock } from "./lock.ts";
import { removeStaleTemps } from "./stale-temps.ts";
import { readMeta, recordedHistory, touchMeta, updateMeta, type SessionMeta } from "./meta.ts";
import { ensureProject, type ProjectInfo } from "./project.ts";
import { createSessionLog, type SessionLog } from "./session-log.ts";
import {
  createSession,
  findSession,
  listSessions,
  listSessionsAsync,
  type CreateSessionOptions,
  type ListQuery,
  type SessionListing,
  type SessionRef,
  type StoreContext,
} from "./sessions.ts";

export interface SessionStore {
  readonly home: string;
  ensureProject(cwd: string): ProjectInfo;
  createSession(options: CreateSessionOptions): SessionRef;
  /** Exact id or unique prefix, across all projects. */
  findSession(idOrPrefix: string): SessionRef;
  listSessions(query: ListQuery): SessionListing;
  /** `listSessions` with asynchronous reads (never blocks the event loop). */
  listSessionsAsync(query: ListQuery): Promise<SessionListing>;
  forkSession(sourceId: string, throughSeq: number, options: ForkOptions): SessionRef;
  /** Open the ledger (take the lock first when writing). */
  openLedger(ref: SessionRef, options?: { readonly readOnly?: boolean; readonly io?: LedgerIo }): Ledger;
  acquireLock(ref: SessionRef): SessionLock;
  readMeta(ref: SessionRef): SessionMeta;
  updateMeta(ref: SessionRef, transform: (meta: SessionMeta) => SessionMeta): SessionMeta;
  /** Bump meta.updatedAt (default: now), e.g. after a turn summary. */
  touch(ref: SessionRef, updatedAt?: string): SessionMeta;
  createLog(ref: SessionRef, options?: { readonly minLevel?: LogLevel }): SessionLog;
}

/**
 * A session's ledger, refused when it is missing or empty although meta.json says the session has
 * history: that history is lost, and opening it as a new, empty session would hide the loss (and
 * bind the agents' old native sessions to nothing). A missing ledger of a session without history is
 * recreated (writable opens only).
 */
export function openSessionLedger(ctx: StoreContext, ref: SessionRef, options: { readonly readOnly?: boolean; readonly io?: LedgerIo } = {}): Ledger {
  const history = recordedHistory(ref.meta);
  if (history !== undefined && !fs.existsSync(ref.paths.ledger)) throw historyLost(ref, "is missing", history);
  const ledger = openLedger({
    path: ref.paths.ledger,
    batonSessionId: ref.batonSessionId,
    clock: ctx.clock,
    ids: ctx.ids,
    ...(ctx.log === undefined ? {} : { log: ctx.log }),
    ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
    ...(options.io === undefined ? {} : { io: options.io }),
  });
  if (history !== undefined && ledger.lastSeq === 0) {
    void ledger.close();
    throw historyLost(ref, "holds no events", history);
  }
  return ledger;
}

/** The problem `openSessionLedger` refuses with, or undefined (doctor reports the same). */
export function lostHistoryProblem(ref: SessionRef, lastSeq: number, exists: boolean): string | undefined {
  const history = recordedHistory(ref.meta);
  if (history === undefined || (exists && lastSeq > 0)) return undefined;
  return historyLost(ref, exists ? "holds no events" : "is missing", history).message;
}

function historyLost(ref: SessionRef, what: string, history: string): BatonError {
  return new BatonError("ledger_corrupt", `${ref.paths.ledger} ${what}, but ${history}: the session's history is lost`, {
    hint: `restore ${ref.paths.ledger} from a backup (nothing was changed); or start a new session and move ${ref.paths.dir} away`,
  });
}

export function createSessionStore(ctx: StoreContext): SessionStore {
  return {
    home: ctx.home,
    ensureProject: (cwd) => ensureProject(ctx.home, cwd),
    createSession: (options) => createSession(ctx, options),
    findSession: (idOrPrefix) => findSession(ctx, idOrPrefix),
    listSessions: (query) => listSessions(ctx, query),
    listSessionsAsync: (query) => listSessionsAsync(ctx, query),
    forkSession: (sourceId, throughSeq, options) => forkSession(ctx, sourceId, throughSeq, options),
    openLedger: (ref, options = {}) => openSessionLedger(ctx, ref, options),
    acquireLock: (ref) => {
      const lock = acquireLock(ref.paths.lock, { batonSessionId: ref.batonSessionId, now: () => ctx.clock.now() });
      removeStaleTemps(ref.paths.dir);
      return lock;
    },
    readMeta: (ref) => readMeta(ref.paths.dir),
    updateMeta: (ref, transform) => updateMeta(ref.paths.dir, transform),
    touch: (ref, updatedAt) => touchMeta(ref.paths.dir, updatedAt ?? isoTime(ctx.clock.now())),
    createLog: (ref, options = {}) =>
      createSessionLog({
        path: ref.paths.log,
        batonSessionId: ref.batonSessionId,
        clock: ctx.clock,
        ...(options.minLevel === undefined ? {} : { minLevel: options.minLevel }),
      }),
  };
}
