/**
 * The load's read of a ledger (`Ledger.forEachEvent`, what `loadState` folds): every complete line parsed and
 * checked as `readEventsFromFd` checks it (the JSON, the envelope, the payload, the seq, the scope), handed to
 * `visit` in order; the first line that fails — or that `visit` throws on — is `ledger_corrupt` naming
 * `file:line`, and nothing after it is read.
 *
 * Each read (`LOAD_CHUNK`) is parsed whole by Bun's JSONL parser (`Bun.JSONL.parseChunk`, straight from the bytes: no
 * decoded string, no slice per line, no `JSON.parse` call per line) when that is provably the same as parsing
 * its lines one by one: the chunk is valid UTF-8 without a byte order mark, the parser took all of it, and it
 * gave exactly one value per `\n` — the parser needs a `\n` between two values, so no two share a line, and one
 * value per line leaves no line holding part of one (or nothing). Anything else — a blank line, a line that is
 * not JSON, a value across lines, invalid UTF-8 — reads that chunk line by line as before (`splitLines`), where
 * the error is found and worded. Values that pass `isReadableEvent` are folded as parsed; any other takes the
 * full checks, which accept it (a rarer kind, an upgraded stop reason) or refuse it at its line.
 *
 * `withoutRaw` (a fold that never reads `raw`, as the projection's): the parser is given each line without its
 * `raw` — the wire message kept verbatim, half of a streamed chunk's line and of its parse. The store writes `raw`
 * as the envelope's last key (`stampDraft`), so a line `{…,"raw":<wire>}` is parsed as `{…}`: cut at its first
 * `,"raw":` (which is always a key: a `"` after a `,` cannot be inside a string). A cut line whose value the checks
 * do not take is parsed and checked whole, so nothing is read differently; older lines, with `raw` before the
 * binding's stamps, would all fail them, so a line whose `source` is not before its `raw` is not cut (it would be
 * parsed twice). Only `raw`'s own JSON goes unchecked here: `baton doctor` warns about it, `readEvents` refuses it.
 */
import { isAscii, isUtf8 } from "node:buffer";
import { decodeEnvelope, isReadableEvent, type AnyEvent } from "../event/envelope.ts";
import { describeError } from "../shared/errors.ts";
import { lineNumberAt, lineOfChunk, readLineChunks, splitLines, type LineChunk, type RawLine } from "./ledger-lines.ts";
import { checkEvent, corruptLineError, decodeLineOrThrow, LedgerLineError, type ReadChecks } from "./ledger-read.ts";

/** One event of a load, checked. A visit that throws fails the load at the event's line. */
export type VisitEvent = (event: AnyEvent) => void;

const NEWLINE = 0x0a;

/**
 * A load reads 256 KiB at a time, not the line reader's 4 MiB: Bun's JSONL parser on a 100k-event, 108 MB ledger
 * (bench/ledger.ts `--child full`, 11 rounds alternated with the floor): 4 MiB 1.41× (1.27–1.74) of the floor,
 * 1 MiB 1.36×, 256 KiB 1.31× (1.15–1.50); peak RSS 140 → 110 MB (fewer parsed values alive at once).
 */
const LOAD_CHUNK = 256 * 1024;
const indexOfByte = Uint8Array.prototype.indexOf;

/** What the checks of a load carry from line to line. */
interface LoadCursor {
  readonly fd: number;
  readonly file: string;
  readonly sessionId: string | undefined;
  readonly visit: VisitEvent;
  previousSeq: number;
}

/** A load's lines without their `raw` (`withoutRaw`): the bytes the parser is given, and which lines were cut. */
interface LeanChunk {
  buffer: Buffer;
  /** `cut[i]` is 1 when line `i` was given without its `raw`. */
  cut: Uint8Array;
  /** Lines the last chunk gave without their `raw`. */
  cuts: number;
  /** Chunks to read whole before the next try: a chunk that cut nothing (an older ledger) costs its scan for nothing. */
  rest: number;
}

/**
 * After a chunk that cut no line, this many chunks are read whole before the next try. On a ledger written before
 * `raw` went last (no line is cut) the scan and copy made the open 1.07× (1.04–1.40) slower than reading every
 * chunk whole (9 alternated rounds); trying one chunk in 16 leaves ≈ 0.4 % of that, and a ledger whose newer lines
 * can be cut is found again within 4 MiB.
 */
const LEAN_RETRY_CHUNKS = 16;

/** How many chunks each way took, how many were scanned for `raw`, and how many lines were parsed without it (tests). */
export const loadChunks = { parsed: 0, byLine: 0, leanScans: 0, rawLeftOut: 0 };

/** The events of the complete lines in [from, to) to `visit`, checked; `firstLine` is the number of the line at `from`. */
export function forEachEvent(
  fd: number,
  file: string,
  from: number,
  to: number,
  firstLine: number | undefined,
  checks: ReadChecks & { readonly withoutRaw?: boolean },
  visit: VisitEvent,
  chunkBytes: number = LOAD_CHUNK,
): void {
  const cursor: LoadCursor = { fd, file, sessionId: checks.batonSessionId, visit, previousSeq: checks.afterSeq ?? 0 };
  const lean: LeanChunk | undefined = checks.withoutRaw === true ? { buffer: Buffer.allocUnsafe(0), cut: new Uint8Array(0), cuts: 0, rest: 0 } : undefined;
  let lineNo = firstLine;
  for (const chunk of readLineChunks(fd, from, to, chunkBytes)) {
    const leanValues = lean === undefined ? undefined : leanValuesTried(chunk, lean);
    const values = leanValues ?? valuesOfChunk(chunk);
    if (values === undefined) loadChunks.byLine++;
    else loadChunks.parsed++;
    const count = values === undefined ? foldLines(cursor, chunk, lineNo) : foldValues(cursor, chunk, values, lineNo, leanValues === undefined ? undefined : lean);
    if (lineNo !== undefined) lineNo += count;
  }
}

/** Whether Bun's JSONL parser reads the chunk's bytes as the line reader would (see the file's comment). */
function parsableBytes(chunk: LineChunk): boolean {
  const { buffer, end } = chunk;
  // A byte order mark is not JSON (the line reader refuses it), and the JSONL parser would skip it.
  if (end >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) return false;
  // Invalid UTF-8 is decoded with replacement characters by the line reader: leave it that rule.
  const bytes = buffer.subarray(0, end);
  return isAscii(bytes) || isUtf8(bytes);
}

/** The values of `buffer[0, end)`, one per line, when the JSONL parser took all of it and gave one per `\n`; else undefined. */
function valuePerLine(buffer: Buffer, end: number, lines: number): unknown[] | undefined {
  const parsed = Bun.JSONL.parseChunk(buffer, 0, end);
  if (parsed.error !== null) return undefined;
  return parsed.values.length === lines ? parsed.values : undefined;
}

/** The chunk's values, one per line, when Bun's JSONL parser provably parses it as its lines would be; else undefined. */
function valuesOfChunk(chunk: LineChunk): unknown[] | undefined {
  const { buffer, end } = chunk;
  if (!parsableBytes(chunk)) return undefined;
  // `Uint8Array#indexOf` (the engine's own, ~40 ns a call) rather than `Buffer#indexOf` (~110 ns): 100k calls per 100 MB.
  let lines = 0;
  for (let at = indexOfByte.call(buffer, NEWLINE, 0); at !== -1 && at < end; at = indexOfByte.call(buffer, NEWLINE, at + 1)) lines++;
  return valuePerLine(buffer, end, lines);
}

const RAW_KEY = Buffer.from(',"raw":');
const SOURCE_KEY = Buffer.from('"source":');
const EVENT_ID_KEY = Buffer.from('"eventId":');
const CLOSE_BRACE = 0x7d;
const NUL = 0;

/**
 * The first `needle` at or after `from` in `buffer`, given `known`: the last answer of this search in the same
 * chunk (-2 before the first). Lines are visited in order, so each search goes over its bytes once.
 */
function nextOf(buffer: Buffer, needle: Buffer | number, from: number, known: number): number {
  if (known === -1 || known >= from) return known;
  return typeof needle === "number" ? indexOfByte.call(buffer, needle, from) : buffer.indexOf(needle, from);
}

/** `leanValuesOfChunk`, unless the chunks before it cut nothing (`LEAN_RETRY_CHUNKS`). */
function leanValuesTried(chunk: LineChunk, lean: LeanChunk): unknown[] | undefined {
  if (lean.rest > 0) {
    lean.rest--;
    return undefined;
  }
  loadChunks.leanScans++;
  const values = leanValuesOfChunk(chunk, lean);
  if (lean.cuts === 0) lean.rest = LEAN_RETRY_CHUNKS - 1;
  return values;
}

/**
 * `withoutRaw`: the chunk's values with each line's `raw` left out where the line ends its envelope with it (the
 * file's comment), into `lean`; undefined when that does not parse one value per line (the chunk is then read as
 * without `withoutRaw`). A line is cut only when its `raw` follows its `source` and what follows `,"raw":` holds
 * neither a NUL byte nor an `"eventId":` key: so a line that lost its newline, or had a block zeroed by a
 * crash, still fails here as it does for every reader.
 */
function leanValuesOfChunk(chunk: LineChunk, lean: LeanChunk): unknown[] | undefined {
  const { buffer, end } = chunk;
  lean.cuts = 0;
  if (!parsableBytes(chunk)) return undefined;
  if (lean.buffer.byteLength < end + 1) lean.buffer = Buffer.allocUnsafe(Math.max(end + 1, lean.buffer.byteLength * 2));
  const out = lean.buffer;
  let cut = lean.cut;
  let cuts = 0;
  let written = 0;
  let lines = 0;
  let start = 0;
  let raw = -2;
  let source = -2;
  let eventId = -2;
  let nul = -2;
  while (start < end) {
    const nl = indexOfByte.call(buffer, NEWLINE, start);
    if (lines === cut.length) {
      const bigger = new Uint8Array(Math.max(256, cut.length * 2));
      bigger.set(cut);
      cut = lean.cut = bigger;
    }
    let at = -1;
    raw = nextOf(buffer, RAW_KEY, start, raw);
    if (raw !== -1 && raw < nl && buffer[nl - 1] === CLOSE_BRACE) {
      source = nextOf(buffer, SOURCE_KEY, start, source);
      if (source !== -1 && source < raw) {
        eventId = nextOf(buffer, EVENT_ID_KEY, raw, eventId);
        nul = nextOf(buffer, NUL, raw, nul);
        if ((eventId === -1 || eventId > nl) && (nul === -1 || nul > nl)) at = raw;
      }
    }
    if (at !== -1) {
      // `{…,"raw":<wire>}\n` → `{…}\n`
      written += buffer.copy(out, written, start, at);
      out[written++] = CLOSE_BRACE;
      out[written++] = NEWLINE;
      cut[lines] = 1;
      cuts++;
    } else {
      written += buffer.copy(out, written, start, nl + 1);
      cut[lines] = 0;
    }
    lines++;
    start = nl + 1;
  }
  lean.cuts = cuts;
  loadChunks.rawLeftOut += cuts;
  return valuePerLine(out, written, lines);
}

/**
 * Checks and folds a chunk's values (value `i` is its line `i`; `lean`: parsed as `leanValuesOfChunk` cut them);
 * returns the chunk's line count. A cut line the fast check does not take is parsed and checked whole.
 */
function foldValues(cursor: LoadCursor, chunk: LineChunk, values: unknown[], firstLine: number | undefined, lean?: LeanChunk): number {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    const event = isReadableEvent(value, cursor.previousSeq, cursor.sessionId)
      ? (value as AnyEvent)
      : lean !== undefined && lean.cut[i] === 1
        ? checkedLine(cursor, lineOfChunk(chunk, i, firstLine))
        : checkedValue(cursor, value, chunk, i, firstLine);
    cursor.previousSeq = event.seq;
    try {
      cursor.visit(event);
    } catch (error) {
      throw visitError(cursor, lineOfChunk(chunk, i, firstLine), error);
    }
  }
  return values.length;
}

/** The full checks of a parsed value (as `decodeLine` + `checkEvent`): its event, or `ledger_corrupt` at its line. */
function checkedValue(cursor: LoadCursor, value: unknown, chunk: LineChunk, index: number, firstLine: number | undefined): AnyEvent {
  const decoded = decodeEnvelope(value);
  if (!decoded.ok) throw corruptLineError(cursor.fd, cursor.file, lineOfChunk(chunk, index, firstLine), decoded.reason);
  const problem = checkEvent(decoded.event, cursor.previousSeq, cursor.sessionId);
  if (problem !== undefined) throw corruptLineError(cursor.fd, cursor.file, lineOfChunk(chunk, index, firstLine), problem.reason);
  return decoded.event;
}

/** A chunk the JSONL parser did not take, line by line; returns its line count (blank lines included). */
function foldLines(cursor: LoadCursor, chunk: LineChunk, firstLine: number | undefined): number {
  const { lines, count } = splitLines(chunk, firstLine);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.text);
    } catch {
      parsed = undefined; // `checkedLine` parses it again and words the error
    }
    const event = isReadableEvent(parsed, cursor.previousSeq, cursor.sessionId) ? (parsed as AnyEvent) : checkedLine(cursor, raw);
    cursor.previousSeq = event.seq;
    try {
      cursor.visit(event);
    } catch (error) {
      throw visitError(cursor, raw, error);
    }
  }
  return count;
}

/** A line decoded and checked the slow way: its event, or `ledger_corrupt` naming `file:line`. */
function checkedLine(cursor: LoadCursor, raw: RawLine): AnyEvent {
  const event = decodeLineOrThrow(cursor.fd, cursor.file, raw);
  const problem = checkEvent(event, cursor.previousSeq, cursor.sessionId);
  if (problem !== undefined) throw corruptLineError(cursor.fd, cursor.file, raw, problem.reason);
  return event;
}

/** A visit (the fold) that refuses an event, or breaks on it, fails the load naming the line, like a corrupt line. */
function visitError(cursor: LoadCursor, raw: RawLine, error: unknown): LedgerLineError {
  return new LedgerLineError(cursor.file, raw.line ?? lineNumberAt(cursor.fd, raw.start), describeError(error), error);
}
