/**
 * The per-session diagnostic log `session.log` (LOG-01/02): NDJSON records written by an async,
 * serialized queue off the caller's stack. Values are bounded, oversized entries become stubs,
 * the queue is capped (dropped entries are counted and reported later), the file is 0600 and
 * rotates to one `.1`. Logging never throws into, or blocks, the caller.
 */
import fs from "node:fs";
import * as path from "node:path";
import type { Clock } from "../shared/clock.ts";
import { levelRank, type LogFields, type Logger, type LogLevel } from "../shared/log.ts";
import { checkDiskWrite } from "./disk-faults.ts";
import { FILE_MODE, isoTime } from "./files.ts";
import { boundString, boundValue, serializeError, type SerializedError } from "./log-bounds.ts";
import { SESSION_LOG_FILE } from "./sessions.ts";

export type LogSource = "baton" | "harness" | "plugin";

export interface LogRecord {
  readonly timestamp: string;
  readonly batonSessionId: string;
  readonly level: LogLevel;
  readonly source: LogSource;
  readonly component: string;
  readonly message: string;
  readonly harness?: string;
  readonly harnessTargetId?: string;
  readonly turnId?: string;
  readonly pluginId?: string;
  readonly pluginInstanceId?: string;
  readonly packageVersion?: string;
  readonly error?: SerializedError;
  readonly attributes?: Record<string, unknown>;
}

/** Fields a host stamps on every record of a child logger (e.g. plugin provenance). */
export interface LogProvenance {
  readonly source?: LogSource;
  readonly harness?: string;
  readonly harnessTargetId?: string;
  readonly pluginId?: string;
  readonly pluginInstanceId?: string;
  readonly packageVersion?: string;
}

export interface SessionLogOptions {
  readonly path: string;
  readonly batonSessionId: string;
  readonly clock: Clock;
  /** Records below this level are discarded (default info; from config `logLevel`). */
  readonly minLevel?: LogLevel;
  readonly component?: string;
  readonly maxFileBytes?: number;
  readonly maxEntryBytes?: number;
  readonly maxQueueBytes?: number;
  /** How long a record waits for others to share its write (default LOG_COALESCE_MS). */
  readonly coalesceMs?: number;
}

export interface SessionLogger extends Logger {
  child(component: string, fields?: Pick<LogFields, "harness" | "harnessTargetId">): SessionLogger;
  /** A child whose records carry host-stamped provenance the caller cannot override. */
  childWith(component: string, provenance: LogProvenance): SessionLogger;
}

export interface SessionLog extends SessionLogger {
  readonly path: string;
  setMinLevel(level: LogLevel): void;
  /** Resolves once everything logged so far was written (or given up on). */
  flush(): Promise<void>;
  /** Flush, then close the file; later records are dropped. */
  close(): Promise<void>;
}

export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
export const LOG_MAX_ENTRY_BYTES = 64 * 1024;
export const LOG_MAX_QUEUE_BYTES = 1024 * 1024;

/**
 * Plain fds with callback I/O (no FileHandle: a FileHandle collected unclosed raises an error in Bun,
 * and logging must never raise, even when the app forgets `close()`).
 */
const fsAsync = {
  open: (file: string) =>
    new Promise<number>((resolve, reject) => fs.open(file, "a", FILE_MODE, (error, fd) => (error ? reject(error) : resolve(fd)))),
  size: (fd: number) =>
    new Promise<number>((resolve, reject) => fs.fstat(fd, (error, stat) => (error ? reject(error) : resolve(stat.size)))),
  writeSome: (fd: number, buffer: Buffer, offset: number) =>
    new Promise<number>((resolve, reject) =>
      fs.write(fd, buffer, offset, buffer.byteLength - offset, null, (error, written) => (error ? reject(error) : resolve(written))),
    ),
  async write(fd: number, text: string): Promise<void> {
    const buffer = Buffer.from(text);
    for (let offset = 0; offset < buffer.byteLength; ) offset += await fsAsync.writeSome(fd, buffer, offset);
  },
  close: (fd: number) => new Promise<void>((resolve) => fs.close(fd, () => resolve())),
  rename: (from: string, to: string) =>
    new Promise<void>((resolve, reject) => fs.rename(from, to, (error) => (error ? reject(error) : resolve()))),
};

/**
 * How long a record waits for others to share its write (#18): the native trace logs every wire message, each in
 * a task of its own, and one `write` per line cost a thread-pool round trip each (≈ 25 a turn). `flush()` and
 * `close()` write at once; so does a queue past `LOG_COALESCE_BYTES`.
 */
export const LOG_COALESCE_MS = 10;
export const LOG_COALESCE_BYTES = 64 * 1024;

/** An async, serialized, size-rotated NDJSON file writer (one `.1` kept); failures never reach callers. */
export class LogSink {
  private queue: string[] = [];
  private queuedBytes = 0;
  private dropped = 0;
  private draining: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private fd: number | undefined;
  private size = 0;
  private closed = false;

  constructor(
    readonly file: string,
    private readonly maxFileBytes: number,
    private readonly maxQueueBytes: number,
    private readonly droppedLine: (count: number) => string,
    private readonly coalesceMs: number = LOG_COALESCE_MS,
  ) {}

  enqueue(line: string, bytes: number): void {
    if (this.closed || this.queuedBytes + bytes > this.maxQueueBytes) {
      this.dropped++;
      return;
    }
    this.queue.push(line);
    this.queuedBytes += bytes;
    // A drain under way takes this line with its next write; else the line waits a little for company.
    if (this.draining !== undefined) return;
    if (this.queuedBytes >= LOG_COALESCE_BYTES) this.startDrain();
    else this.timer ??= setTimeout(() => this.startDrain(), this.coalesceMs);
  }

  noteDropped(): void {
    this.dropped++;
  }

  async flush(): Promise<void> {
    if (this.timer !== undefined) this.startDrain();
    while (this.draining !== undefined) await this.draining;
  }

  private startDrain(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.draining ??= Promise.resolve().then(() => this.drain());
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.closeFile();
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const lines = this.queue;
        this.queue = [];
        this.queuedBytes = 0;
        const droppedBefore = this.dropped;
        if (droppedBefore > 0) lines.push(this.droppedLine(droppedBefore));
        this.dropped = 0;
        try {
          await this.write(lines.join(""));
        } catch {
          this.dropped += lines.length - (droppedBefore > 0 ? 1 : 0) + droppedBefore;
          await this.closeFile();
          return; // retried on the next record
        }
      }
    } finally {
      this.draining = undefined;
    }
  }

  private async write(text: string): Promise<void> {
    checkDiskWrite("log", this.file);
    const bytes = Buffer.byteLength(text);
    let fd = await this.open();
    if (this.size > 0 && this.size + bytes > this.maxFileBytes) {
      await this.closeFile();
      await fsAsync.rename(this.file, `${this.file}.1`);
      fd = await this.open();
    }
    await fsAsync.write(fd, text);
    this.size += bytes;
  }

  private async open(): Promise<number> {
    if (this.fd !== undefined) return this.fd;
    const fd = await fsAsync.open(this.file);
    try {
      this.size = await fsAsync.size(fd);
    } catch (error) {
      await fsAsync.close(fd);
      throw error;
    }
    this.fd = fd;
    return fd;
  }

  private async closeFile(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) await fsAsync.close(fd);
  }
}

interface Core {
  readonly sink: LogSink;
  readonly batonSessionId: string;
  readonly clock: Clock;
  readonly maxEntryBytes: number;
  minRank: number;
}

function makeLogger(core: Core, component: string, provenance: LogProvenance): SessionLogger {
  const logger: SessionLogger = {
    log(level: LogLevel, message: string, fields?: LogFields): void {
      try {
        if (levelRank(level) < core.minRank) return;
        const record = buildRecord(core, level, component, provenance, message, fields);
        let line = `${JSON.stringify(record)}\n`;
        let bytes = Buffer.byteLength(line);
        if (bytes > core.maxEntryBytes) {
          line = `${JSON.stringify(stubRecord(record, bytes))}\n`;
          bytes = Buffer.byteLength(line);
        }
        core.sink.enqueue(line, bytes);
      } catch {
        core.sink.noteDropped();
      }
    },
    child(childComponent, fields) {
      const harnessTargetId = fields?.harnessTargetId ?? provenance.harnessTargetId;
      const harness = fields?.harness ?? provenance.harness;
      return makeLogger(core, childComponent, {
        ...provenance,
        ...(harness === undefined ? {} : { harness }),
        ...(harnessTargetId === undefined ? {} : { harnessTargetId }),
        source: provenance.source ?? (harness !== undefined || harnessTargetId !== undefined ? "harness" : "baton"),
      });
    },
    childWith(childComponent, extra) {
      return makeLogger(core, childComponent, { ...provenance, ...extra });
    },
  };
  return logger;
}

function buildRecord(
  core: Core,
  level: LogLevel,
  component: string,
  provenance: LogProvenance,
  message: string,
  fields: LogFields | undefined,
): LogRecord {
  const harness = provenance.harness ?? fields?.harness;
  const harnessTargetId = provenance.harnessTargetId ?? fields?.harnessTargetId;
  const attributes = fields?.attributes === undefined ? undefined : boundValue(fields.attributes);
  return {
    timestamp: isoTime(core.clock.now()),
    batonSessionId: core.batonSessionId,
    level,
    source: provenance.source ?? "baton",
    component,
    message: boundString(message),
    ...(harness === undefined ? {} : { harness }),
    ...(harnessTargetId === undefined ? {} : { harnessTargetId }),
    ...(fields?.turnId === undefined ? {} : { turnId: fields.turnId }),
    ...(provenance.pluginId === undefined ? {} : { pluginId: provenance.pluginId }),
    ...(provenance.pluginInstanceId === undefined ? {} : { pluginInstanceId: provenance.pluginInstanceId }),
    ...(provenance.packageVersion === undefined ? {} : { packageVersion: provenance.packageVersion }),
    ...(fields?.error === undefined ? {} : { error: serializeError(fields.error) }),
    ...(attributes === undefined ? {} : { attributes: attributes as Record<string, unknown> }),
  };
}

function stubRecord(record: LogRecord, bytes: number): LogRecord {
  const { error, attributes: _attributes, ...rest } = record;
  return {
    ...rest,
    message: boundString(record.message, 1024),
    ...(error === undefined ? {} : { error: { name: error.name, message: boundString(error.message, 1024) } }),
    attributes: { truncated: true, originalBytes: bytes },
  };
}

/** Open (lazily) the session log at `options.path` and return its root logger. */
export function createSessionLog(options: SessionLogOptions): SessionLog {
  const component = options.component ?? "baton";
  const droppedLine = (count: number): string =>
    `${JSON.stringify({
      timestamp: isoTime(options.clock.now()),
      batonSessionId: options.batonSessionId,
      level: "warn",
      source: "baton",
      component: "session-log",
      message: `${count} log entries were dropped`,
      attributes: { dropped: count },
    } satisfies LogRecord)}\n`;
  const sink = new LogSink(
    options.path,
    options.maxFileBytes ?? LOG_ROTATE_BYTES,
    options.maxQueueBytes ?? LOG_MAX_QUEUE_BYTES,
    droppedLine,
    options.coalesceMs ?? LOG_COALESCE_MS,
  );
  const core: Core = {
    sink,
    batonSessionId: options.batonSessionId,
    clock: options.clock,
    maxEntryBytes: options.maxEntryBytes ?? LOG_MAX_ENTRY_BYTES,
    minRank: levelRank(options.minLevel ?? "info"),
  };
  const root = makeLogger(core, component, {});
  return {
    ...root,
    path: options.path,
    setMinLevel(level) {
      core.minRank = levelRank(level);
    },
    flush: () => sink.flush(),
    close: () => sink.close(),
  };
}

/** Every readable record of a session's log, oldest first (`session.log.1` then `session.log`). */
export function readLogRecords(sessionDir: string): LogRecord[] {
  return readLogFile(path.join(sessionDir, SESSION_LOG_FILE));
}

/** Every readable record of a rotated NDJSON log (`<file>.1` then `<file>`), oldest first. */
export function readLogFile(file: string): LogRecord[] {
  const records: LogRecord[] = [];
  for (const candidate of [`${file}.1`, file]) {
    let text: string;
    try {
      text = fs.readFileSync(candidate, "utf8");
    } catch {
      continue;
    }
    const lines = text.split("\n");
    lines.pop(); // the part after the last newline is empty or a torn record
    for (const line of lines) {
      try {
        const value = JSON.parse(line) as Partial<LogRecord> | null;
        if (value !== null && typeof value === "object" && typeof value.message === "string" && typeof value.level === "string") {
          records.push(value as LogRecord);
        }
      } catch {
        // a damaged line: skip it
      }
    }
  }
  return records;
}
