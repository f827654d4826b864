/**
 * The session ledger `session.jsonl`: append-only, one event per line (EV-01..EV-04).
 *
 * - `append` is synchronous: stamp → validate → one `writeSync` on an O_APPEND fd. It returns the stamped
 *   event; the caller broadcasts it (the session pipeline is the one broadcaster, after the write).
 *   Once it returns, the line is in the kernel: a process crash (kill -9) cannot lose it.
 *   Power loss can; call `sync()` (or use `appendDurable`) before an external side effect.
 * - Streamed chunks (`*_chunk` kinds) are the exception: they are batched for at most
 *   `CHUNK_FLUSH_MS` (or 1 MiB) and written with the next line, the timer, `sync()` or `close()`.
 *   A crash can lose the last few milliseconds of streamed text, never anything else; the agent's
 *   complete message replaces the chunks anyway.
 * - Opening reads only the tail (backwards, growing windows) to learn `lastSeq` and the end offset.
 * - A torn last line is ignored by readers and moved to a `session.jsonl.partial-<ms>` sidecar and
 *   truncated away by `repairTornTail()` (the session opener calls it and says so), else before the first write.
 * - The first failed write stops the ledger: its partial bytes are truncated away, `lastSeq` goes back to
 *   the last line on disk, and every later append throws that same error. Nothing after it is written half
 *   or out of order; reopening (once there is space) continues from the last complete line.
 */
import fs from "node:fs";
import type { AdapterDraft, AnyEvent, EventDraft, EventSource, KnownEvent } from "../event/envelope.ts";
import { kindsStreaming } from "../event/kinds.ts";
import type { Clock } from "../shared/clock.ts";
import { BatonError } from "../shared/errors.ts";
import type { BatonSessionId, IdSource } from "../shared/ids.ts";
import { silentLogger, type Logger } from "../shared/log.ts";
import { FILE_MODE, closeQuietly, errnoCode, isoTime } from "./files.ts";
import { findTail, lineEndingAt, readAt } from "./ledger-lines.ts";
import { decodeLine, decodeLineOrThrow, readEventsFromFd, type LocatedEvent } from "./ledger-read.ts";
import { nodeLedgerIo, type LedgerIo } from "./ledger-io.ts";
import { forEachEvent, type VisitEvent } from "./ledger-load.ts";
import { boundRaw, ioError, RAW_MAX_BYTES, serializeJson, stampDraft, writeFully, writeSidecar } from "./ledger-files.ts";

/** A draft the host has attributed (source stamped); the store stamps the rest. */
export type AppendDraft = EventDraft | (AdapterDraft & { readonly source: EventSource });

/** Where the ledger ends: the last event's seq and id, and the byte offset just after its line. */
export interface LedgerPosition {
  readonly seq: number;
  readonly byteOffset: number;
  readonly eventId: string | undefined;
}

/** A torn last line moved aside: where it went and how long it was. */
export interface TornTailRepair {
  readonly sidecar: string;
  readonly bytes: number;
}

export { nodeLedgerIo, type LedgerIo };

export interface OpenLedgerOptions {
  readonly path: string;
  readonly batonSessionId: BatonSessionId;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly log?: Logger;
  /** Open for reading only: append throws, the torn tail is left alone. */
  readonly readOnly?: boolean;
  readonly io?: LedgerIo;
}

/** Streamed content: many small events whose loss in a crash is bounded and repaired by the full message. */
const BATCHED_KINDS = kindsStreaming("content");
export const CHUNK_FLUSH_MS = 5;
const CHUNK_FLUSH_BYTES = 1024 * 1024;

interface TornTail {
  readonly offset: number;
  readonly bytes: number;
}

export class Ledger {
  readonly path: string;
  readonly batonSessionId: BatonSessionId;
  readonly readOnly: boolean;
  private readonly fd: number;
  private readonly clock: Clock;
  private readonly ids: IdSource;
  private readonly log: Logger;
  private readonly io: LedgerIo;
  private seq: number;
  private end: number;
  private lastId: string | undefined;
  private torn: TornTail | undefined;
  /** The last event whose line is on disk (batched chunks not yet flushed are after it). */
  private writtenSeq: number;
  private writtenId: string | undefined;
  /** The first write failure: the ledger is stopped and writes nothing more. */
  private failure: BatonError | undefined;
  private readonly failureListeners = new Set<(error: BatonError) => void>();
  private closed = false;
  private lastTsMs = Number.NaN;
  private lastTs = "";
  /** Every event's scope is this one object (it is serialized, never mutated). */
  private readonly scope: { readonly type: "session"; readonly batonSessionId: string };
  private syncedThrough = 0;
  /** Batched chunk lines, encoded once into a reused buffer (no big joined strings to collect). */
  private readonly batch: Buffer | undefined;
  private batchBytes = 0;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private inflight: Promise<void> | undefined;
  private inflightTarget = 0;

  /** @internal use `openLedger`. */
  constructor(options: OpenLedgerOptions, fd: number, tail: { seq: number; end: number; eventId: string | undefined; torn: TornTail | undefined }) {
    this.path = options.path;
    this.batonSessionId = options.batonSessionId;
    this.readOnly = options.readOnly === true;
    // At open, not in the first append: allocating it there set off a GC inside the user's first append (#18).
    this.batch = this.readOnly ? undefined : Buffer.allocUnsafe(CHUNK_FLUSH_BYTES);
    this.clock = options.clock;
    this.ids = options.ids;
    this.log = options.log ?? silentLogger;
    this.io = options.io ?? nodeLedgerIo;
    this.fd = fd;
    this.seq = tail.seq;
    this.end = tail.end;
    this.lastId = tail.eventId;
    this.writtenSeq = tail.seq;
    this.writtenId = tail.eventId;
    this.torn = tail.torn;
    this.syncedThrough = tail.end;
    this.scope = Object.freeze({ type: "session", batonSessionId: options.batonSessionId });
  }

  get lastSeq(): number { return this.seq; }

  /** Byte length of the complete lines (a torn tail not yet repaired is excluded). Flushes batched chunks. */
  get byteLength(): number {
    this.flushQuietly();
    return this.end;
  }

  /** The position on disk after the last event (batched chunks are flushed first). */
  get position(): LedgerPosition {
    this.flushQuietly();
    return { seq: this.seq, byteOffset: this.end, eventId: this.lastId };
  }

  /** Bytes of a torn last line found at open and not yet repaired (0 when none). */
  get tornTailBytes(): number {
    return this.torn?.bytes ?? 0;
  }

  /** The write failure that stopped this ledger, if any. */
  get writeFailure(): BatonError | undefined {
    return this.failure;
  }

  /** Be told (once) when a write fails and the ledger stops — also for a background chunk flush. */
  onWriteFailure(listener: (error: BatonError) => void): () => void {
    this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  /**
   * Stamp, validate, write. Synchronous. Throws `contract_violation` for an invalid draft, `disk_full` /
   * `ledger_io` when the write fails; in every failure case no event is returned (so none can be
   * broadcast) and `lastSeq` did not advance.
   */
  append(draft: AppendDraft): KnownEvent {
    this.assertWritable();
    if (this.failure) throw this.failure;
    const stamped = stampDraft(draft, { seq: this.seq + 1, eventId: this.ids.mint("event"), ts: this.timestamp(), scope: this.scope });
    const json = serializeJson(stamped);
    // Under a third of the bound in characters is under it in UTF-8 bytes: encoded straight into the batch, no joined
    // copy, no byte count (#18). Longer lines are measured, may have `raw` cut, and go with the batch when over its size.
    const bounded = json.length * 3 < RAW_MAX_BYTES ? undefined : boundRaw(stamped, `${json}\n`, Buffer.byteLength(json) + 1);
    const event = bounded?.event ?? stamped;
    if (bounded === undefined) this.buffer(event, json, json.length * 3 + 1, true);
    else if (bounded.bytes > CHUNK_FLUSH_BYTES) this.writeBatchWith(bounded.line, bounded.bytes, event);
    else this.buffer(event, bounded.line, bounded.bytes, false);
    this.seq = event.seq;
    this.lastId = event.eventId;
    return event as KnownEvent;
  }

  /** Encodes a line (`room` bytes at most, with the newline) into the batch; a batched kind waits, any other is written now. */
  private buffer(event: AnyEvent, line: string, room: number, addNewline: boolean): void {
    if (this.batchBytes + room > CHUNK_FLUSH_BYTES && this.batchBytes > 0) this.flush();
    let end = this.batchBytes + this.batch!.write(line, this.batchBytes, "utf8");
    if (addNewline) this.batch![end++] = 0x0a;
    this.batchBytes = end;
    if (BATCHED_KINDS.has(event.kind)) this.scheduleFlush();
    else this.writeBatchWith("", 0, event);
  }

  /** Write batched chunks now (timer, sync, close, readers). Throws like append on I/O failure. */
  flush(): void {
    this.cancelFlush();
    if (this.batchBytes === 0 || this.closed) return;
    this.writeBatchWith("", 0);
  }

  /**
   * Writes the batch (every line `buffer` encoded), then `line` — one larger than the batch, the event after `seq`,
   * if any; a failure stops the ledger.
   */
  private writeBatchWith(line: string, bytes: number, event?: AnyEvent): void {
    this.cancelFlush();
    const batched = this.batchBytes;
    this.batchBytes = 0;
    try {
      if (this.torn !== undefined) this.repairTornTail();
      if (batched > 0) writeFully(this.io, this.fd, this.batch!.subarray(0, batched), batched);
      if (bytes > 0) writeFully(this.io, this.fd, line, bytes);
    } catch (error) {
      throw this.stop(ioError(this.path, "append to", error, batched + bytes));
    }
    this.end += batched + bytes;
    this.writtenSeq = event?.seq ?? this.seq;
    this.writtenId = event?.eventId ?? this.lastId;
  }

  /**
   * The first failure stops the ledger: partial bytes are truncated away (best effort: a torn line left by
   * a failing truncate is repaired on reopen), batched chunks are dropped, and `lastSeq` returns to the last
   * line on disk. Listeners hear of it once. Returns the error every later append throws.
   */
  private stop(error: BatonError): BatonError {
    if (this.failure) return this.failure;
    this.failure = error;
    this.batchBytes = 0;
    try {
      this.io.ftruncateSync(this.fd, this.end);
    } catch (truncateError) {
      this.log.log("error", "could not truncate a partial write; the torn line is repaired on reopen", { error: truncateError });
    }
    this.seq = this.writtenSeq;
    this.lastId = this.writtenId;
    this.log.log("error", "a ledger write failed; the session records nothing more until it is reopened", { error, attributes: { seq: this.seq } });
    for (const listener of [...this.failureListeners]) {
      try {
        listener(error);
      } catch (listenerError) {
        this.log.log("error", "a write-failure listener threw", { error: listenerError });
      }
    }
    return error;
  }

  private cancelFlush(): void {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
  }

  private scheduleFlush(): void {
    if (this.flushTimer !== undefined) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flushQuietly();
    }, CHUNK_FLUSH_MS);
    this.flushTimer.unref?.();
  }

  /** Flush from a timer or a reader: a failure has already stopped the ledger and told its listeners. */
  private flushQuietly(): void {
    try {
      this.flush();
    } catch {
      // reported by stop()
    }
  }

  /** `append`, then wait until the line is on disk. Use for facts that precede an external side effect. */
  async appendDurable(draft: AppendDraft): Promise<KnownEvent> {
    const event = this.append(draft);
    await this.sync();
    return event;
  }

  /**
   * fdatasync everything appended so far (off the event loop). Concurrent calls share one syscall
   * when it already covers them.
   */
  sync(): Promise<void> {
    try {
      this.flush();
    } catch (error) {
      return Promise.reject(error);
    }
    const target = this.end;
    if (this.closed || this.syncedThrough >= target) return Promise.resolve();
    if (this.inflight !== undefined && this.inflightTarget >= target) return this.inflight;
    const previous = this.inflight ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        const covered = this.end;
        if (this.syncedThrough >= covered) return;
        try {
          await this.io.fdatasync(this.fd);
        } catch (error) {
          throw this.stop(ioError(this.path, "sync", error));
        }
        this.syncedThrough = Math.max(this.syncedThrough, covered);
      });
    this.inflight = run;
    this.inflightTarget = target;
    void run.finally(() => {
      if (this.inflight === run) this.inflight = undefined;
    }).catch(() => undefined);
    return run;
  }

  /**
   * Events of complete lines from `fromOffset` (a line boundary, default 0) up to the current end.
   * Synchronous generator; a line that is not a valid event of this session after `afterSeq` throws `ledger_corrupt` (path:line).
   */
  readEvents(options: { readonly fromOffset?: number; readonly toOffset?: number; readonly firstLine?: number; readonly afterSeq?: number } = {}): Generator<LocatedEvent> {
    this.assertOpen();
    this.flushQuietly();
    const from = options.fromOffset ?? 0;
    const to = Math.min(options.toOffset ?? this.end, this.end);
    const firstLine = options.firstLine ?? (from === 0 ? 1 : undefined);
    return readEventsFromFd(this.fd, this.path, from, to, firstLine, { batonSessionId: this.batonSessionId, afterSeq: options.afterSeq ?? 0 });
  }

  /** `readEvents` for a load: each event to `visit`, checked the same way (ledger-load.ts); `withoutRaw`: `raw` unparsed. */
  forEachEvent(options: { readonly fromOffset?: number; readonly toOffset?: number; readonly afterSeq?: number; readonly withoutRaw?: boolean }, visit: VisitEvent): void {
    this.assertOpen();
    this.flushQuietly();
    const from = options.fromOffset ?? 0;
    const checks = { batonSessionId: this.batonSessionId, afterSeq: options.afterSeq ?? 0, withoutRaw: options.withoutRaw === true };
    forEachEvent(this.fd, this.path, from, Math.min(options.toOffset ?? this.end, this.end), from === 0 ? 1 : undefined, checks, visit);
  }

  /** The line ending exactly at `offset`, decoded; undefined when `offset` is not a line end. */
  eventEndingAt(offset: number): AnyEvent | undefined {
    this.assertOpen();
    this.flushQuietly();
    if (offset > this.end) return undefined;
    const raw = lineEndingAt(this.fd, offset);
    if (raw === undefined) return undefined;
    const decoded = decodeLine(raw.text);
    return decoded.ok ? decoded.event : undefined;
  }

  /** Wait for pending syncs, flush to disk, close the fd. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flushQuietly();
    try {
      if (this.inflight !== undefined) await this.inflight.catch(() => undefined);
      if (!this.readOnly && this.syncedThrough < this.end) await this.io.fdatasync(this.fd).catch(() => undefined);
    } finally {
      this.closed = true;
      closeQuietly(this.fd);
    }
  }

  /**
   * Move a torn last line (found at open) to a `.partial-<ms>` sidecar and truncate it away. Returns what was
   * moved, or undefined when there was nothing to repair. Throws `disk_full` / `ledger_io` when the sidecar
   * cannot be written (the ledger is left as it was).
   */
  repairTornTail(): TornTailRepair | undefined {
    const torn = this.torn;
    if (torn === undefined || this.readOnly) return undefined;
    const fragment = readAt(this.fd, torn.offset, torn.bytes);
    const sidecar = writeSidecar(this.path, this.clock.now(), fragment);
    try {
      this.io.ftruncateSync(this.fd, torn.offset);
    } catch (error) {
      throw ioError(this.path, "truncate the torn tail of", error);
    }
    this.torn = undefined;
    this.log.log("warn", "ledger had a torn last line; moved it aside", { attributes: { path: this.path, sidecar, bytes: torn.bytes } });
    return { sidecar, bytes: torn.bytes };
  }

  /** ISO time of now, formatted once per millisecond (streams append many events per ms). */
  private timestamp(): string {
    const now = this.clock.now();
    if (now !== this.lastTsMs) this.lastTs = isoTime((this.lastTsMs = now));
    return this.lastTs;
  }

  private assertOpen(): void {
    if (this.closed) throw new BatonError("ledger_io", `ledger ${this.path} is closed`);
  }

  private assertWritable(): void {
    this.assertOpen();
    if (this.readOnly) throw new BatonError("ledger_io", `ledger ${this.path} was opened read-only`);
  }
}

/**
 * Open (creating if missing, 0600) a ledger. Reads only the tail: the last complete line gives
 * `lastSeq`; a last line without `\n` is remembered as a torn tail. A corrupt last complete line
 * is `ledger_corrupt`.
 */
export function openLedger(options: OpenLedgerOptions): Ledger {
  let fd: number;
  try {
    fd = fs.openSync(options.path, options.readOnly === true ? "r" : "a+", FILE_MODE);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") {
      throw new BatonError("session_not_found", `ledger ${options.path} does not exist`, { cause: error });
    }
    throw ioError(options.path, "open", error);
  }
  try {
    const size = fs.fstatSync(fd).size;
    const tail = findTail(fd, size);
    const last = tail.lastLine === undefined ? undefined : decodeLineOrThrow(fd, options.path, tail.lastLine);
    const torn = size > tail.goodEnd ? { offset: tail.goodEnd, bytes: size - tail.goodEnd } : undefined;
    return new Ledger(options, fd, { seq: last?.seq ?? 0, end: tail.goodEnd, eventId: last?.eventId, torn });
  } catch (error) {
    closeQuietly(fd);
    throw error;
  }
}

