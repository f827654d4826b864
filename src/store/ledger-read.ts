/**
 * Decoding ledger lines into events. Readers stop at the last complete line (a torn tail is
 * ignored); a complete line that is not a valid event — bad JSON, a bad envelope, a payload its kind
 * does not allow, a seq that does not increase, another session's scope — is a hard `ledger_corrupt`
 * error naming file and line: nothing is folded past it and nothing is dropped silently.
 * `scanLedger` is the doctor's variant: it never throws and reports every problem it finds, each
 * marked `fatal` exactly when a reader would refuse it, so doctor and open agree.
 */
import fs from "node:fs";
import { decodeEnvelope, validatePayload, type AnyEvent } from "../event/envelope.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import { closeQuietly } from "./files.ts";
import { findTail, lineNumberAt, readLines, type RawLine } from "./ledger-lines.ts";

export interface LocatedEvent {
  readonly event: AnyEvent;
  /** Byte offset of the line's first byte. */
  readonly start: number;
  /** Byte offset just after the line's `\n`: a valid checkpoint position. */
  readonly end: number;
  /** 1-based line number, when reading started at a known line. */
  readonly line: number | undefined;
}

/** What a reader checks besides each line's JSON and envelope. */
export interface ReadChecks {
  /** Every event's scope must name this session (omitted: not checked). */
  readonly batonSessionId?: string;
  /** The seq of the event before `from` (the first event read must be above it). Default 0. */
  readonly afterSeq?: number;
}

type EventProblem = { readonly kind: "invalid_payload" | "seq_not_increasing" | "foreign_scope"; readonly reason: string };

/**
 * The per-event checks every reader applies (append validated the same payload rules), in order; a
 * reader stops at the first, the doctor lists them all. Cheap: the streamed kinds that make up most
 * of a ledger have hand-written payload checks (see `validatePayload`).
 */
const EVENT_CHECKS: ReadonlyArray<(event: AnyEvent, previousSeq: number, batonSessionId: string | undefined) => EventProblem | undefined> = [
  (event, previousSeq) =>
    event.seq <= previousSeq ? { kind: "seq_not_increasing", reason: `seq ${event.seq} after ${previousSeq} (seq must increase)` } : undefined,
  (event) => {
    const invalid = validatePayload(event.kind, event.payload);
    return invalid === undefined ? undefined : { kind: "invalid_payload", reason: invalid };
  },
  (event, _previousSeq, batonSessionId) => {
    if (batonSessionId === undefined) return undefined;
    const scopeId = (event.scope as { batonSessionId?: unknown } | undefined)?.batonSessionId;
    return scopeId === batonSessionId ? undefined : { kind: "foreign_scope", reason: `scope ${String(scopeId)} is not this session (${batonSessionId})` };
  },
];

/** The first problem of an event read after `previousSeq`, or undefined. */
export function checkEvent(event: AnyEvent, previousSeq: number, batonSessionId: string | undefined): EventProblem | undefined {
  for (const check of EVENT_CHECKS) {
    const problem = check(event, previousSeq, batonSessionId);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

type LineDecode = { readonly ok: true; readonly event: AnyEvent } | { readonly ok: false; readonly reason: string };

export function decodeLine(text: string): LineDecode {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `invalid JSON (${describeError(error)})` };
  }
  return decodeEnvelope(parsed);
}

/** A ledger line that does not open: `ledger_corrupt` naming `file:line` and what is wrong with it. */
export class LedgerLineError extends BatonError {
  constructor(
    readonly file: string,
    readonly line: number | string,
    readonly reason: string,
    cause?: unknown,
  ) {
    super("ledger_corrupt", `corrupt ledger line ${file}:${line}: ${reason}`, {
      ...(cause === undefined ? {} : { cause }),
      hint: "run `baton doctor` to list every problem; the ledger is never rewritten automatically",
    });
  }
}

export function corruptLineError(fd: number, file: string, raw: RawLine, reason: string): BatonError {
  return new LedgerLineError(file, raw.line ?? lineNumberAt(fd, raw.start), reason);
}

/** Decode one complete line or throw ledger_corrupt. */
export function decodeLineOrThrow(fd: number, file: string, raw: RawLine): AnyEvent {
  const decoded = decodeLine(raw.text);
  if (!decoded.ok) throw corruptLineError(fd, file, raw, decoded.reason);
  return decoded.event;
}

/** Events of the complete lines in [from, to), each checked (`checkEvent`). Unknown kinds are kept. */
export function* readEventsFromFd(
  fd: number,
  file: string,
  from: number,
  to: number,
  firstLine?: number,
  checks: ReadChecks = {},
): Generator<LocatedEvent> {
  let previousSeq = checks.afterSeq ?? 0;
  const sessionId = checks.batonSessionId;
  for (const raw of readLines(fd, from, to, firstLine)) {
    const event = decodeLineOrThrow(fd, file, raw);
    const problem = checkEvent(event, previousSeq, sessionId);
    if (problem !== undefined) throw corruptLineError(fd, file, raw, problem.reason);
    previousSeq = event.seq;
    yield { event, start: raw.start, end: raw.end, line: raw.line };
  }
}

/** Read every event of a ledger file (without opening it for writing), checked like `Ledger.readEvents`. Torn tail ignored. */
export function readLedgerFile(file: string, batonSessionId?: string): AnyEvent[] {
  const fd = fs.openSync(file, "r");
  try {
    const { goodEnd } = findTail(fd, fs.fstatSync(fd).size);
    const events: AnyEvent[] = [];
    const checks = batonSessionId === undefined ? {} : { batonSessionId };
    for (const located of readEventsFromFd(fd, file, 0, goodEnd, 1, checks)) events.push(located.event);
    return events;
  } finally {
    closeQuietly(fd);
  }
}

export type LedgerProblemKind =
  | "unreadable"
  | "corrupt_line"
  | "invalid_payload"
  | "seq_not_increasing"
  | "duplicate_event_id"
  | "foreign_scope"
  | "torn_tail";

export interface LedgerProblem {
  readonly kind: LedgerProblemKind;
  /** True when opening the session refuses it (every kind but a duplicate eventId and a torn tail). */
  readonly fatal: boolean;
  /** 1-based line number (absent for file-level problems). */
  readonly line?: number;
  readonly message: string;
}

export interface LedgerScan {
  readonly path: string;
  readonly events: number;
  readonly lastSeq: number;
  readonly byteLength: number;
  readonly tornTailBytes: number;
  readonly problems: readonly LedgerProblem[];
}

/** Check a whole ledger for `baton doctor`: every problem is reported, nothing throws or is repaired. */
export function scanLedger(file: string, expectedSessionId?: string): LedgerScan {
  const problems: LedgerProblem[] = [];
  let fd: number;
  let size: number;
  try {
    fd = fs.openSync(file, "r");
    size = fs.fstatSync(fd).size;
  } catch (error) {
    problems.push({ kind: "unreadable", fatal: true, message: `cannot read ${file}: ${describeError(error)}` });
    return { path: file, events: 0, lastSeq: 0, byteLength: 0, tornTailBytes: 0, problems };
  }
  let events = 0;
  let lastSeq = 0;
  let goodEnd = 0;
  try {
    goodEnd = findTail(fd, size).goodEnd;
    const seen = new Set<string>();
    for (const raw of readLines(fd, 0, goodEnd, 1)) {
      const where = `${file}:${raw.line ?? "?"}`;
      const line = raw.line ?? 0;
      const decoded = decodeLine(raw.text);
      if (!decoded.ok) {
        problems.push({ kind: "corrupt_line", fatal: true, line, message: `${where}: ${decoded.reason}` });
        continue;
      }
      const event = decoded.event;
      events++;
      for (const check of EVENT_CHECKS) {
        const problem = check(event, lastSeq, expectedSessionId);
        if (problem !== undefined) problems.push({ kind: problem.kind, fatal: true, line, message: `${where}: ${problem.reason}` });
      }
      lastSeq = Math.max(lastSeq, event.seq);
      if (seen.has(event.eventId)) {
        problems.push({
          kind: "duplicate_event_id",
          fatal: false,
          line,
          message: `${where}: duplicate eventId ${event.eventId} (the session still opens; nothing depends on it)`,
        });
      }
      seen.add(event.eventId);
    }
    if (size > goodEnd) {
      problems.push({
        kind: "torn_tail",
        fatal: false,
        message: `${file}: ${size - goodEnd} bytes after the last complete line (a torn write; repaired on the next append)`,
      });
    }
  } catch (error) {
    problems.push({ kind: "unreadable", fatal: true, message: `cannot read ${file}: ${describeError(error)}` });
  } finally {
    closeQuietly(fd);
  }
  return { path: file, events, lastSeq, byteLength: goodEnd, tornTailBytes: size - goodEnd, problems };
}
