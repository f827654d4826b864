/** One object bundling the store's operations over a BATON_HOME, for the controller and the app. */
import type { LogLevel } from "../shared/log.ts";
import { isoTime } from "./files.ts";
import { forkSession, type ForkOptions } from "./fork.ts";
import { openLedger, type Ledger, type LedgerIo } from "./ledger.ts";
import { acquireLock, type SessionLock } from "./lock.ts";
import { readMeta, touchMeta, updateMeta, type SessionMeta } from "./meta.ts";
import { ensureProject, type ProjectInfo } from "./project.ts";
import { createSessionLog, type SessionLog } from "./session-log.ts";
import {
  createSession,
  findSession,
  listSessions,
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

export function createSessionStore(ctx: StoreContext): SessionStore {
  return {
    home: ctx.home,
    ensureProject: (cwd) => ensureProject(ctx.home, cwd),
    createSession: (options) => createSession(ctx, options),
    findSession: (idOrPrefix) => findSession(ctx, idOrPrefix),
    listSessions: (query) => listSessions(ctx, query),
    forkSession: (sourceId, throughSeq, options) => forkSession(ctx, sourceId, throughSeq, options),
    openLedger: (ref, options = {}) =>
      openLedger({
        path: ref.paths.ledger,
        batonSessionId: ref.batonSessionId,
        clock: ctx.clock,
        ids: ctx.ids,
        ...(ctx.log === undefined ? {} : { log: ctx.log }),
        ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
        ...(options.io === undefined ? {} : { io: options.io }),
      }),
    acquireLock: (ref) =>
      acquireLock(ref.paths.lock, { batonSessionId: ref.batonSessionId, now: () => ctx.clock.now() }),
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
