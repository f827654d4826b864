/**
 * Adoption (NAT-06/07): a native session becomes (or updates) a BatonSession whose turns are ordinary Baton
 * turns of that target, bound to the native session so the next turn resumes it. Everything runs under the
 * cross-process `$BATON_HOME/native-session.lock`; updating an existing owner also takes its session lock.
 *
 * - First time: a new session in the native session's cwd (else the invoking one) with every native turn, then (last, atomically) meta:
 *   description, `adoptedFrom {session, importedThrough}` and the binding (resume state, new epoch, syncedSeq).
 * - Again: the owner is the session whose `adoptedFrom` (legacy: whose binding) names the native session;
 *   the recorded boundary must still be a prefix and the turns Baton ran since must be there; then only the
 *   new tail is appended. A rewritten history is refused ("diverged"); nothing is written then.
 */
import fs from "node:fs";
import path from "node:path";
import { recoverOnOpen } from "../controller/recovery.ts";
import { previewOf } from "../controller/preview.ts";
import { historyBoundary, parseHistoryBoundary, type HistoryBoundary } from "../harness/history-boundary.ts";
import type { NativeHistory } from "../harness/inspector.ts";
import { initialState, reduce, storedProjectionFold, type ProjectionState } from "../projection/index.ts";
import { acquireLock, loadState, type AdoptionOrigin, type Ledger, type SessionLock, type SessionMeta, type SessionRef } from "../store/index.ts";
import { BatonError, isBatonError } from "../shared/errors.ts";
import type { AdoptContext } from "./context.ts";
import { appendNativeTurns, batonTurnsSince, type AdoptedBinding } from "./native-turns.ts";
import { promptText, reconcileNative } from "./reconcile.ts";
import { pinnedForm, type NativeCandidate } from "./native-ref.ts";

export const NATIVE_LOCK_FILE = "native-session.lock";
const LOCK_WAIT_MS = 10_000;

export interface AdoptionResult {
  readonly ref: SessionRef;
  readonly outcome: "created" | "updated" | "unchanged";
  /** Native turns appended by this adoption. */
  readonly appended: number;
  /** `cc:<id>` / `cx:<id>`: how to name the native session unambiguously. */
  readonly nativeRef: string;
}

/** What `importedThrough` holds: the boundary plus the Baton seq it corresponds to. */
export interface ImportedThrough extends HistoryBoundary {
  /** Baton turns after this seq were not part of any import (they are checked by text on the next one). */
  readonly batonThroughSeq: number;
}

export async function adoptNativeSession(ctx: AdoptContext, candidate: NativeCandidate): Promise<AdoptionResult> {
  const lock = await acquireNativeLock(ctx);
  try {
    const history = await candidate.inspector.read(candidate.session.id, candidate.context);
    const recomputed = historyBoundary(history.turns);
    if (recomputed.prefixDigest !== history.boundary.prefixDigest || recomputed.turnCount !== history.boundary.turnCount) {
      throw new BatonError("native_unreadable", `the ${candidate.definition.label} inspector returned a history that does not match its own boundary`);
    }
    const owner = findOwner(ctx, candidate.target.id, history.harnessSessionId);
    const nativeRef = pinnedForm(candidate, history.harnessSessionId);
    if (owner === undefined) return { ...(await createOwner(ctx, candidate, history)), nativeRef };
    return { ...(await updateOwner(ctx, candidate, history, owner)), nativeRef };
  } finally {
    lock.release();
  }
}

async function acquireNativeLock(ctx: AdoptContext): Promise<SessionLock> {
  fs.mkdirSync(ctx.home, { recursive: true, mode: 0o700 });
  const file = path.join(ctx.home, NATIVE_LOCK_FILE);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return acquireLock(file, { now: () => ctx.clock.now() });
    } catch (error) {
      if (!isBatonError(error, "session_locked") || Date.now() > deadline) {
        if (isBatonError(error, "session_locked")) {
          throw new BatonError("session_locked", `another Baton process is importing a native session (${file})`, { hint: "wait for it to finish and try again" });
        }
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The session that owns a native session: by `adoptedFrom`, else (legacy) by its current binding. */
function findOwner(ctx: AdoptContext, targetId: string, harnessSessionId: string): SessionRef | undefined {
  const sessions = ctx.store.listSessions({ all: true }).sessions;
  const adopted = sessions.filter((ref) => ref.meta.adoptedFrom?.session.harnessTargetId === targetId && ref.meta.adoptedFrom.session.identity.id === harnessSessionId);
  const owners = adopted.length > 0 ? adopted : sessions.filter((ref) => ref.meta.harnessSessions[targetId]?.harnessSessionId === harnessSessionId);
  if (owners.length > 1) {
    throw new BatonError("native_diverged", `native session ${harnessSessionId} belongs to more than one Baton session: ${owners.map((ref) => ref.batonSessionId).join(", ")}`, {
      hint: "open one of them with 'baton -s <bs_id>'",
    });
  }
  return owners[0];
}

function bindingOf(candidate: NativeCandidate, history: NativeHistory): AdoptedBinding {
  return { harnessTargetId: candidate.target.id, sessionKey: candidate.definition.sessionKey, harnessSessionId: history.harnessSessionId };
}

function importedThrough(history: NativeHistory, batonThroughSeq: number): ImportedThrough {
  return { ...historyBoundary(history.turns), batonThroughSeq };
}

function withBinding(ctx: AdoptContext, meta: SessionMeta, candidate: NativeCandidate, history: NativeHistory, syncedSeq: number): SessionMeta {
  const targetId = candidate.target.id;
  const current = meta.harnessSessions[targetId];
  if (current?.harnessSessionId !== undefined) return meta;
  return {
    ...meta,
    harnessSessions: {
      ...meta.harnessSessions,
      [targetId]: {
        ...current,
        harnessTargetId: targetId,
        harness: candidate.definition.id,
        harnessSessionId: history.harnessSessionId,
        resumeState: { version: history.resumeState.version, data: { ...history.resumeState.data } },
        contextEpochId: ctx.ids.mint("epoch"),
        syncedSeq,
      },
    },
  };
}

/**
 * NAT-06: the adopted session lives where the native session ran (its agents run there on resume), or
 * in the invoking directory when the native session does not say or its directory is gone.
 */
export function adoptionCwd(ctx: Pick<AdoptContext, "cwd">, history: Pick<NativeHistory, "session">): string {
  const native = history.session.cwd;
  if (native === undefined || !path.isAbsolute(native)) return ctx.cwd;
  try {
    return fs.statSync(native).isDirectory() ? native : ctx.cwd;
  } catch {
    return ctx.cwd;
  }
}

async function createOwner(ctx: AdoptContext, candidate: NativeCandidate, history: NativeHistory): Promise<Omit<AdoptionResult, "nativeRef">> {
  const label = candidate.session.title ?? candidate.session.preview ?? history.harnessSessionId;
  const ref = ctx.store.createSession({
    cwd: adoptionCwd(ctx, history),
    description: `import: ${candidate.definition.label} ${label}`,
    ...(candidate.session.title === undefined ? {} : { title: candidate.session.title }),
  });
  try {
    const lock = ctx.store.acquireLock(ref);
    try {
      const ledger = ctx.store.openLedger(ref);
      try {
        const result = appendNativeTurns(ledger, initialState(ref.batonSessionId), history.turns, bindingOf(candidate, history), ctx.ids, ctx.clock);
        await ledger.sync();
        const first = history.turns[0];
        const preview = first === undefined ? undefined : previewOf(promptText(first.prompt));
        const origin: AdoptionOrigin = {
          session: { harnessTargetId: candidate.target.id, harness: candidate.definition.id, identity: { id: history.harnessSessionId } },
          importedThrough: importedThrough(history, ledger.lastSeq),
        };
        const meta = ctx.store.updateMeta(ref, (meta) =>
          withBinding(ctx, { ...meta, ...(preview === undefined ? {} : { preview }), adoptedFrom: origin, ...(result.appended > 0 ? { updatedAt: new Date(ctx.clock.now()).toISOString() } : {}) }, candidate, history, result.lastSummarySeq),
        );
        return { ref: { ...ref, meta }, outcome: "created", appended: result.appended };
      } finally {
        await ledger.close();
      }
    } finally {
      lock.release();
    }
  } catch (error) {
    // Nobody knows this session yet: leave nothing half-imported behind.
    fs.rmSync(ref.paths.dir, { recursive: true, force: true });
    throw error;
  }
}

async function updateOwner(ctx: AdoptContext, candidate: NativeCandidate, history: NativeHistory, owner: SessionRef): Promise<Omit<AdoptionResult, "nativeRef">> {
  const lock = ctx.store.acquireLock(owner);
  try {
    const meta = ctx.store.readMeta(owner);
    const recorded = meta.adoptedFrom === undefined ? undefined : parseHistoryBoundary(meta.adoptedFrom.importedThrough);
    if (meta.adoptedFrom !== undefined && recorded === undefined) {
      throw new BatonError("native_diverged", `${owner.batonSessionId} records its import in a form this Baton cannot check`, { hint: `open it as it is with 'baton -s ${owner.batonSessionId}'` });
    }
    const throughSeq = batonThroughSeq(meta.adoptedFrom?.importedThrough);
    const ledger = ctx.store.openLedger(owner, { readOnly: true });
    let since;
    try {
      since = batonTurnsSince(ledger, throughSeq, candidate.target.id, history.harnessSessionId);
    } finally {
      await ledger.close();
    }
    const verdict = reconcileNative(history.turns, recorded, since);
    if (verdict.kind !== "append") {
      throw new BatonError("native_diverged", `cannot update ${owner.batonSessionId} from ${candidate.definition.label} session ${history.harnessSessionId}: ${verdict.reason}`, {
        hint: `the histories diverged; open the Baton session as it is with 'baton -s ${owner.batonSessionId}'`,
      });
    }
    const tail = history.turns.slice(verdict.from);
    const previous = meta.adoptedFrom?.importedThrough as Partial<ImportedThrough> | undefined;
    // Nothing new: no write (a session Baton itself bound to this native session stays as it is).
    if (tail.length === 0 && (meta.adoptedFrom === undefined || previous?.prefixDigest === historyBoundary(history.turns).prefixDigest)) {
      return { ref: { ...owner, meta }, outcome: "unchanged", appended: 0 };
    }
    return await appendTail(ctx, candidate, history, owner, tail);
  } finally {
    lock.release();
  }
}

async function appendTail(ctx: AdoptContext, candidate: NativeCandidate, history: NativeHistory, owner: SessionRef, tail: NativeHistory["turns"]): Promise<Omit<AdoptionResult, "nativeRef">> {
  const ledger = ctx.store.openLedger(owner);
  try {
    let state: ProjectionState = loadState(ledger, { ...storedProjectionFold, initial: () => initialState(owner.batonSessionId) }).state;
    if (tail.length > 0) state = healOpenTurns(ctx, ledger, state);
    const result = appendNativeTurns(ledger, state, tail, bindingOf(candidate, history), ctx.ids, ctx.clock);
    await ledger.sync();
    const meta = ctx.store.updateMeta(owner, (meta) => {
      const origin: AdoptionOrigin = meta.adoptedFrom ?? {
        session: { harnessTargetId: candidate.target.id, harness: candidate.definition.id, identity: { id: history.harnessSessionId } },
        importedThrough: undefined,
      };
      const next: SessionMeta = { ...meta, adoptedFrom: { ...origin, importedThrough: importedThrough(history, ledger.lastSeq) } };
      return withBinding(ctx, result.appended > 0 ? { ...next, updatedAt: new Date(ctx.clock.now()).toISOString() } : next, candidate, history, result.lastSummarySeq);
    });
    return { ref: { ...owner, meta }, outcome: result.appended > 0 ? "updated" : "unchanged", appended: result.appended };
  } finally {
    await ledger.close();
  }
}

/** A Baton process that died mid-turn left the owner open: close those turns first, as opening it would. */
function healOpenTurns(ctx: AdoptContext, ledger: Ledger, initial: ProjectionState): ProjectionState {
  let state = initial;
  if (Object.keys(state.activeTurns).length === 0 && state.pendingInteractionIds.length === 0) return state;
  recoverOnOpen(() => state, (draft) => {
    const event = ledger.append(draft);
    state = reduce(state, event);
    return event;
  }, ctx.clock);
  return state;
}

function batonThroughSeq(value: unknown): number {
  const seq = typeof value === "object" && value !== null ? (value as { batonThroughSeq?: unknown }).batonThroughSeq : undefined;
  return typeof seq === "number" && Number.isInteger(seq) && seq >= 0 ? seq : 0;
}
