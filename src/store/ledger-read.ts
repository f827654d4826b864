/**
 * Decoding ledger lines into events. Readers stop at the last complete line (a torn tail is
 * ignored); a corrupt complete line is a hard `ledger_corrupt` error naming file and line.
 * `scanLedger` is the doctor's variant: it never throws and reports every problem it finds.
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

/** `path:line` for error messages (the line number is counted from the file start if unknown). */
export function locate(fd: number, file: string, raw: RawLine): string {
  const line = raw.line ?? lineNumberAt(fd, raw.start);
  return `${file}:${line}`;
}

export function corruptLineError(fd: number, file: string, raw: RawLine, reason: string): BatonError {
  return new BatonError("ledger_corrupt", `corrupt ledger line ${locate(fd, file, raw)}: ${reason}`, {
    hint: "run `baton doctor` to list every problem; the ledger is never rewritten automatically",
  });
}

/** Decode one complete line or throw ledger_corrupt. */
export function decodeLineOrThrow(fd: number, file: string, raw: RawLine): AnyEvent {
  const decoded = decodeLine(raw.text);
  if (!decoded.ok) throw corruptLineError(fd, file, raw, decoded.reason);
  return decoded.event;
}

/** Events of the complete lines in [from, to). Unknown kinds are kept. */
export function* readEventsFromFd(
  fd: number,
  file: string,
  from: number,
  to: number,
  firstLine?: number,
): Generator<LocatedEvent> {
  for (const raw of readLines(fd, from, to, firstLine)) {
    yield { event: decodeLineOrThrow(fd, file, raw), start: raw.start, end: raw.end };
  }
}

/** Read every event of a ledger file (without opening it for writing). Torn tail ignored. */
export function readLedgerFile(file: string): AnyEvent[] {
  const fd = fs.openSync(file, "r");
  try {
    const { goodEnd } = findTail(fd, fs.fstatSync(fd).size);
    const events: AnyEvent[] = [];
    for (const located of readEventsFromFd(fd, file, 0, goodEnd, 1)) events.push(located.event);
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
    problems.push({ kind: "unreadable", message: `cannot read ${file}: ${describeError(error)}` });
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
        problems.push({ kind: "corrupt_line", line, message: `${where}: ${decoded.reason}` });
        continue;
      }
      const event = decoded.event;
      events++;
      const invalid = validatePayload(event.kind, event.payload);
      if (invalid !== undefined) problems.push({ kind: "invalid_payload", line, message: `${where}: ${invalid}` });
      if (event.seq <= lastSeq) {
        problems.push({ kind: "seq_not_increasing", line, message: `${where}: seq ${event.seq} after ${lastSeq}` });
      }
      lastSeq = Math.max(lastSeq, event.seq);
      if (seen.has(event.eventId)) {
        problems.push({ kind: "duplicate_event_id", line, message: `${where}: duplicate eventId ${event.eventId}` });
      }
      seen.add(event.eventId);
      const scopeId = (event.scope as { batonSessionId?: unknown } | undefined)?.batonSessionId;
      if (expectedSessionId !== undefined && scopeId !== expectedSessionId) {
        problems.push({
          kind: "foreign_scope",
          line,
          message: `${where}: scope ${String(scopeId)} is not this session (${expectedSessionId})`,
        });
      }
    }
    if (size > goodEnd) {
      problems.push({
        kind: "torn_tail",
        message: `${file}: ${size - goodEnd} bytes after the last complete line (a torn write; repaired on the next append)`,
      });
    }
  } catch (error) {
    problems.push({ kind: "unreadable", message: `cannot read ${file}: ${describeError(error)}` });
  } finally {
    closeQuietly(fd);
  }
  return { path: file, events, lastSeq, byteLength: goodEnd, tornTailBytes: size - goodEnd, problems };
}
