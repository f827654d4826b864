/**
 * The session ledger `session.jsonl`: append-only, one event per line (EV-01..EV-04).
 *
 * - `append` is synchronous: stamp → validate → one `writeSync` on an O_APPEND fd → broadcast.
 *   Once it returns, the line is in the kernel: a process crash (kill -9) cannot lose it.
 *   Power loss can; call `sync()` (or use `appendDurable`) before an external side effect.
 * - Opening reads only the tail (backwards, growing windows) to learn `lastSeq` and the end offset.
 * - A torn last line is ignored by readers and, before the first write, moved to a
 *   `session.jsonl.partial-<ms>` sidecar and truncated away.
 */
import * as fs from "node:fs";
import { ENVELOPE_VERSION, validatePayload, type AdapterDraft, type AnyEvent, type EventDraft, type EventSource, type KnownEvent } from "../event/envelope.ts";
import type { Clock } from "../shared/clock.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import type { BatonSessionId, IdSource } from "../shared/ids.ts";
import { silentLogger, type Logger } from "../shared/log.ts";
import { FILE_MODE, closeQuietly, errnoCode, isoTime } from "./files.ts";
import { findTail, lineEndingAt, readAt } from "./ledger-lines.ts";
import { decodeLine, decodeLineOrThrow, readEventsFromFd, type LocatedEvent } from "./ledger-read.ts";

/** A draft the host has attributed (source stamped); the store stamps the rest. */
export type AppendDraft = EventDraft | (AdapterDraft & { readonly source: EventSource });

/** Where the ledger ends: the last event's seq and id, and the byte offset just after its line. */
export interface LedgerPosition {
  readonly seq: number;
  readonly byteOffset: number;
  readonly eventId: string | undefined;
}

export type LedgerListener = (event: AnyEvent, position: LedgerPosition) => void;

/** The few syscalls append and sync make; tests replace them to inject ENOSPC and short writes. */
export interface LedgerIo {
  /** Write `data` at the end (O_APPEND); returns the bytes written, which may be fewer than asked. */
  writeSync(fd: number, data: string | Uint8Array): number;
  ftruncateSync(fd: number, length: number): void;
  fdatasync(fd: number): Promise<void>;
}

export const nodeLedgerIo: LedgerIo = {
  writeSync: (fd, data) => (typeof data === "string" ? fs.writeSync(fd, data) : fs.writeSync(fd, data, 0, data.byteLength)),
  ftruncateSync: (fd, length) => fs.ftruncateSync(fd, length),
  fdatasync: (fd) => new Promise((resolve, reject) => fs.fdatasync(fd, (error) => (error ? reject(error) : resolve()))),
};

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
  /** A failed write may have left bytes past `end`: truncate before the next write. */
  private dirty = false;
  private closed = false;
  private readonly listeners = new Set<LedgerListener>();
  private readonly pending: Array<{ event: AnyEvent; position: LedgerPosition }> = [];
  private broadcasting = false;
  private syncedThrough = 0;
  private inflight: Promise<void> | undefined;
  private inflightTarget = 0;

  /** @internal use `openLedger`. */
  constructor(options: OpenLedgerOptions, fd: number, tail: { seq: number; end: number; eventId: string | undefined; torn: TornTail | undefined }) {
    this.path = options.path;
    this.batonSessionId = options.batonSessionId;
    this.readOnly = options.readOnly === true;
    this.clock = options.clock;
    this.ids = options.ids;
    this.log = options.log ?? silentLogger;
    this.io = options.io ?? nodeLedgerIo;
    this.fd = fd;
    this.seq = tail.seq;
    this.end = tail.end;
    this.lastId = tail.eventId;
    this.torn = tail.torn;
    this.syncedThrough = tail.end;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Byte length of the complete lines (a torn tail not yet repaired is excluded). */
  get byteLength(): number {
    return this.end;
  }

  get position(): LedgerPosition {
    return { seq: this.seq, byteOffset: this.end, eventId: this.lastId };
  }

  /** Bytes of a torn last line found at open and not yet repaired (0 when none). */
  get tornTailBytes(): number {
    return this.torn?.bytes ?? 0;
  }

  /**
   * Stamp, validate, write, then broadcast. Synchronous. Throws `contract_violation` for an invalid
   * draft, `disk_full` / `ledger_io` when the write fails; in every failure case nothing was
   * broadcast and `lastSeq` did not advance.
   */
  append(draft: AppendDraft): KnownEvent {
    this.assertWritable();
    const event = this.stamp(draft);
    const line = serialize(event);
    const bytes = Buffer.byteLength(line);
    this.prepareForWrite();
    this.writeLine(line, bytes);
    this.seq = event.seq;
    this.end += bytes;
    this.lastId = event.eventId;
    this.broadcast(event, this.position);
    return event as KnownEvent;
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
          throw ioError(this.path, "sync", error);
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

  /** Listen to appended events (after they are written). Returns the unsubscribe function. */
  subscribe(listener: LedgerListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Events of complete lines from `fromOffset` (a line boundary, default 0) up to the current end.
   * Synchronous generator; a corrupt line throws `ledger_corrupt` with its path and line number.
   */
  readEvents(options: { readonly fromOffset?: number; readonly toOffset?: number; readonly firstLine?: number } = {}): Generator<LocatedEvent> {
    this.assertOpen();
    const from = options.fromOffset ?? 0;
    const to = Math.min(options.toOffset ?? this.end, this.end);
    const firstLine = options.firstLine ?? (from === 0 ? 1 : undefined);
    return readEventsFromFd(this.fd, this.path, from, to, firstLine);
  }

  /** The line ending exactly at `offset`, decoded; undefined when `offset` is not a line end. */
  eventEndingAt(offset: number): AnyEvent | undefined {
    this.assertOpen();
    if (offset > this.end) return undefined;
    const raw = lineEndingAt(this.fd, offset);
    if (raw === undefined) return undefined;
    const decoded = decodeLine(raw.text);
    return decoded.ok ? decoded.event : undefined;
  }

  /** Wait for pending syncs, flush to disk, close the fd. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (this.inflight !== undefined) await this.inflight.catch(() => undefined);
      if (!this.readOnly && this.syncedThrough < this.end) await this.io.fdatasync(this.fd).catch(() => undefined);
    } finally {
      this.closed = true;
      this.listeners.clear();
      closeQuietly(this.fd);
    }
  }

  private stamp(draft: AppendDraft): AnyEvent {
    const record = draft as unknown as Record<string, unknown>;
    if (typeof record["kind"] !== "string" || record["kind"].length === 0) {
      throw new BatonError("contract_violation", "event draft has no kind");
    }
    const kind = record["kind"];
    const source = record["source"] as { type?: unknown } | undefined;
    if (typeof source !== "object" || source === null || typeof source.type !== "string") {
      throw new BatonError("contract_violation", `${kind} draft has no source (the host must stamp it)`);
    }
    const problem = validatePayload(kind, record["payload"]);
    if (problem !== undefined) throw new BatonError("contract_violation", problem);
    const seq = this.seq + 1;
    const eventId = this.ids.mint("event");
    const ts = isoTime(this.clock.now());
    const scope = { type: "session", batonSessionId: this.batonSessionId } as const;
    const event: Record<string, unknown> = { v: ENVELOPE_VERSION, eventId, seq, ts, scope, ...record };
    // The store's stamps win over anything a draft carried at runtime (EV-02).
    event["v"] = ENVELOPE_VERSION;
    event["eventId"] = eventId;
    event["seq"] = seq;
    event["ts"] = ts;
    event["scope"] = scope;
    return event as unknown as AnyEvent;
  }

  private prepareForWrite(): void {
    if (this.torn !== undefined) this.repairTornTail(this.torn);
    if (this.dirty) {
      try {
        this.io.ftruncateSync(this.fd, this.end);
      } catch (error) {
        throw ioError(this.path, "repair a partial write in", error);
      }
      this.dirty = false;
    }
  }

  private repairTornTail(torn: TornTail): void {
    const fragment = readAt(this.fd, torn.offset, torn.bytes);
    const sidecar = writeSidecar(this.path, this.clock.now(), fragment);
    try {
      this.io.ftruncateSync(this.fd, torn.offset);
    } catch (error) {
      throw ioError(this.path, "truncate the torn tail of", error);
    }
    this.torn = undefined;
    this.log.log("warn", "ledger had a torn last line; moved it aside", {
      attributes: { path: this.path, sidecar, bytes: torn.bytes },
    });
  }

  /** One write syscall for the whole line in the normal case; a short write is completed from a Buffer. */
  private writeLine(line: string, bytes: number): void {
    try {
      let written = this.io.writeSync(this.fd, line);
      if (written < bytes) {
        const buffer = Buffer.from(line);
        while (written < bytes) written += this.io.writeSync(this.fd, buffer.subarray(written));
      }
    } catch (error) {
      this.dirty = true;
      throw ioError(this.path, "append to", error);
    }
  }

  private broadcast(event: AnyEvent, position: LedgerPosition): void {
    this.pending.push({ event, position });
    if (this.broadcasting) return; // a listener appended: deliver after the current event, in order
    this.broadcasting = true;
    try {
      for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) {
        for (const listener of this.listeners) {
          try {
            listener(next.event, next.position);
          } catch (error) {
            this.log.log("error", "ledger listener threw; the event is stored regardless", {
              error,
              attributes: { kind: next.event.kind, seq: next.event.seq },
            });
          }
        }
      }
    } finally {
      this.broadcasting = false;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new BatonError("ledger_io", `ledger ${this.path} is closed`);
  }

  private assertWritable(): void {
    this.assertOpen();
    if (this.readOnly) throw new BatonError("ledger_io", `ledger ${this.path} was opened read-only`);
  }
}

function serialize(event: AnyEvent): string {
  let json: string;
  try {
    json = JSON.stringify(event);
  } catch (error) {
    throw new BatonError("contract_violation", `${event.kind} draft cannot be serialized: ${describeError(error)}`);
  }
  return `${json}\n`;
}

function ioError(file: string, action: string, error: unknown): BatonError {
  const code = errnoCode(error);
  if (code === "ENOSPC" || code === "EDQUOT") {
    return new BatonError("disk_full", `cannot ${action} ${file}: the disk is full (${code}); the event was not recorded`, {
      cause: error,
      hint: "free some disk space; Baton keeps the session consistent and can continue afterwards",
    });
  }
  return new BatonError("ledger_io", `cannot ${action} ${file}: ${describeError(error)}`, { cause: error });
}

function writeSidecar(ledgerPath: string, now: number, fragment: Buffer): string {
  for (let attempt = 0; ; attempt++) {
    const sidecar = `${ledgerPath}.partial-${now}${attempt === 0 ? "" : `-${attempt}`}`;
    try {
      fs.writeFileSync(sidecar, fragment, { mode: FILE_MODE, flag: "wx" });
      return sidecar;
    } catch (error) {
      if (errnoCode(error) !== "EEXIST" || attempt > 100) throw ioError(sidecar, "save the torn tail to", error);
    }
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

