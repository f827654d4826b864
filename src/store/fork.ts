/**
 * Fork as storage: a new session under the *invoking* cwd's project holding a copy of the source's
 * events with seq ≤ throughSeq. Object ids (turnId, messageId, …) and seq are kept; eventIds are
 * re-minted (parentEventId links are remapped) and scope re-stamped to the child. The child's meta
 * records `forkedFrom` and each target's model/effort/mode; naming it is the caller's job.
 */
import fs from "node:fs";
import type { AnyEvent } from "../event/envelope.ts";
import { BatonError } from "../shared/errors.ts";
import type { BatonSessionId } from "../shared/ids.ts";
import { closeQuietly, isoTime, writeAllSync } from "./files.ts";
import { findTail } from "./ledger-lines.ts";
import { readEventsFromFd } from "./ledger-read.ts";
import { writeMeta, type HarnessSessionMeta, type SessionMeta } from "./meta.ts";
import { createSessionDir, findSession, type SessionRef, type StoreContext } from "./sessions.ts";
import { writeError } from "./write-errors.ts";

export interface ForkOptions {
  /** The invoking cwd: the child lives in this cwd's project. */
  readonly cwd: string;
  readonly title?: string;
  /** The child's id, minted by the caller beforehand (a rewind names it in its journal first). */
  readonly id?: BatonSessionId;
}

const WRITE_BATCH_BYTES = 1024 * 1024;

export function forkSession(ctx: StoreContext, sourceId: string, throughSeq: number, options: ForkOptions): SessionRef {
  if (!Number.isSafeInteger(throughSeq) || throughSeq < 0) {
    throw new BatonError("usage", `fork point must be a non-negative integer seq, got ${throughSeq}`);
  }
  const source = findSession(ctx, sourceId);
  const sourceFd = fs.openSync(source.paths.ledger, "r");
  let reserved: ReturnType<typeof createSessionDir> | undefined;
  try {
    const { goodEnd, lastLine } = findTail(sourceFd, fs.fstatSync(sourceFd).size);
    const lastSeq = lastLine === undefined ? 0 : readLastSeq(sourceFd, source.paths.ledger, lastLine.start, lastLine.end);
    if (throughSeq > lastSeq) {
      throw new BatonError("usage", `cannot fork ${source.batonSessionId} through seq ${throughSeq}: its last event is seq ${lastSeq}`);
    }
    reserved = createSessionDir(ctx, options.cwd, options.id);
    copyPrefix(ctx, sourceFd, source.paths.ledger, goodEnd, throughSeq, reserved.paths.ledger, reserved.id, source.batonSessionId);
    const meta: SessionMeta = {
      batonSessionId: reserved.id,
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(source.meta.preview === undefined ? {} : { preview: source.meta.preview }),
      cwd: reserved.cwd,
      createdAt: isoTime(ctx.clock.now()),
      harnessSessions: chosenConfig(source.meta),
      forkedFrom: { batonSessionId: source.batonSessionId, throughSeq },
    };
    writeMeta(reserved.paths.dir, meta);
    return { batonSessionId: reserved.id, projectDir: reserved.projectDir, paths: reserved.paths, meta };
  } catch (error) {
    if (reserved !== undefined) fs.rmSync(reserved.paths.dir, { recursive: true, force: true });
    throw writeError(reserved?.paths.ledger ?? source.paths.ledger, "write the fork's ledger", error);
  } finally {
    closeQuietly(sourceFd);
  }
}

/**
 * NAT-09: each target keeps only what the user chose for it — model, effort, mode — never the native
 * binding, launch snapshot, epoch or sync point: the child's first turn starts a fresh native session.
 */
function chosenConfig(meta: SessionMeta): Record<string, HarnessSessionMeta> {
  const out: Record<string, HarnessSessionMeta> = {};
  for (const [targetId, entry] of Object.entries(meta.harnessSessions)) {
    out[targetId] = {
      harnessTargetId: entry.harnessTargetId,
      harness: entry.harness,
      ...(entry.model === undefined ? {} : { model: entry.model }),
      ...(entry.effort === undefined ? {} : { effort: entry.effort }),
      ...(entry.mode === undefined ? {} : { mode: entry.mode }),
    };
  }
  return out;
}

function readLastSeq(fd: number, file: string, start: number, end: number): number {
  for (const located of readEventsFromFd(fd, file, start, end)) return located.event.seq;
  return 0;
}

function copyPrefix(
  ctx: StoreContext,
  sourceFd: number,
  sourcePath: string,
  goodEnd: number,
  throughSeq: number,
  targetPath: string,
  targetId: BatonSessionId,
  sourceId: BatonSessionId,
): void {
  const targetFd = fs.openSync(targetPath, "a");
  try {
    const remapped = new Map<string, string>();
    const scope = { type: "session", batonSessionId: targetId } as const;
    let batch: string[] = [];
    let batchBytes = 0;
    const flush = (): void => {
      if (batch.length === 0) return;
      writeAllSync(targetFd, Buffer.from(batch.join("")));
      batch = [];
      batchBytes = 0;
    };
    if (throughSeq > 0) {
      for (const { event } of readEventsFromFd(sourceFd, sourcePath, 0, goodEnd, 1, { batonSessionId: sourceId })) {
        if (event.seq > throughSeq) break;
        const eventId = ctx.ids.mint("event");
        remapped.set(event.eventId, eventId);
        const copy: Record<string, unknown> = { ...(event as AnyEvent) };
        copy["eventId"] = eventId;
        copy["scope"] = scope;
        const parent = event.parentEventId === undefined ? undefined : remapped.get(event.parentEventId);
        if (parent !== undefined) copy["parentEventId"] = parent;
        const line = `${JSON.stringify(copy)}\n`;
        batch.push(line);
        batchBytes += line.length;
        if (batchBytes >= WRITE_BATCH_BYTES) flush();
      }
    }
    flush();
    fs.fdatasyncSync(targetFd);
  } finally {
    closeQuietly(targetFd);
  }
}
