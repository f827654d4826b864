/**
 * Byte-level line access to a ledger file through positional reads (pread), so the append fd is
 * shared safely. Lines are `\n`-terminated (a trailing `\r` is stripped); blank lines are skipped.
 * `\n` never occurs inside a multi-byte UTF-8 sequence, so splitting bytes at `\n` is exact and
 * gives true byte offsets for checkpoints. (Measured against `LineFramer`, which works on decoded
 * strings and cannot report byte offsets without re-encoding: see bench/ledger.ts.)
 */
import fs from "node:fs";

const NEWLINE = 0x0a;
const CR = 0x0d;
const READ_CHUNK = 4 * 1024 * 1024;
const TAIL_WINDOW = 64 * 1024;

export interface RawLine {
  readonly text: string;
  /** Byte offset of the first byte of the line. */
  readonly start: number;
  /** Byte offset just after its `\n`. */
  readonly end: number;
  /** 1-based line number when reading started at a known line; undefined otherwise. */
  readonly line: number | undefined;
}

export function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = fs.readSync(fd, buffer, filled, length - filled, position + filled);
    if (n === 0) break;
    filled += n;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

function decodeLine(buffer: Buffer, start: number, end: number): string {
  const stop = end > start && buffer[end - 1] === CR ? end - 1 : end;
  return buffer.toString("utf8", start, stop);
}

function isBlank(text: string): boolean {
  return text.length === 0 || (text.charCodeAt(0) <= 0x20 && text.trim().length === 0);
}

/**
 * Complete lines in [from, to). `to` must be a line boundary (the ledger's good end); bytes after
 * the last `\n` before `to` are not returned. `firstLine` is the 1-based number of the line at `from`.
 */
export function* readLines(fd: number, from: number, to: number, firstLine?: number, chunkBytes: number = READ_CHUNK): Generator<RawLine> {
  for (const batch of readLineBatches(fd, from, to, firstLine, chunkBytes)) yield* batch;
}

/** One read's complete lines: `buffer[0, end)` (valid until the next step), its first byte at file offset `base`. */
export interface LineChunk {
  readonly buffer: Buffer;
  readonly end: number;
  readonly base: number;
}

/**
 * The complete lines in [from, to) a read of `chunkBytes` at a time, as bytes: each chunk ends at its read's last
 * `\n` (so no line and no UTF-8 sequence is cut); the bytes after it start the next chunk.
 */
export function* readLineChunks(fd: number, from: number, to: number, chunkBytes: number = READ_CHUNK): Generator<LineChunk> {
  let position = from;
  // One buffer for the whole read: the bytes after the last newline move to its front and the next read
  // fills the rest (a buffer per chunk plus a concat of the carried bytes was a tenth of an open's time).
  let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(chunkBytes, to - from)));
  let held = 0;
  while (position < to) {
    if (held === buffer.byteLength) {
      // A line longer than the buffer: grow it.
      const bigger = Buffer.allocUnsafe(buffer.byteLength * 2);
      buffer.copy(bigger, 0, 0, held);
      buffer = bigger;
    }
    const got = readInto(fd, buffer, held, Math.min(buffer.byteLength - held, to - position), position);
    if (got === 0) break;
    const base = position - held;
    position += got;
    const filled = held + got;
    const lastNl = buffer.lastIndexOf(NEWLINE, filled - 1);
    if (lastNl === -1) {
      held = filled;
      continue;
    }
    yield { buffer, end: lastNl + 1, base };
    held = filled - (lastNl + 1);
    if (held > 0) buffer.copyWithin(0, lastNl + 1, filled);
  }
}

/**
 * The lines of a chunk, blank ones left out, and how many `\n` it holds (blank lines included: the next chunk's
 * first line number is `firstLine + count`). The chunk is decoded once and split as a string; byte offsets come
 * from a parallel memchr walk over the same newlines in the buffer.
 */
export function splitLines(chunk: LineChunk, firstLine: number | undefined): { readonly lines: RawLine[]; readonly count: number } {
  const { buffer, end: chunkEnd, base } = chunk;
  const text = buffer.toString("utf8", 0, chunkEnd);
  // One UTF-16 unit per byte (ASCII, as ledgers nearly always are): char offsets are byte offsets.
  const sameOffsets = text.length === chunkEnd;
  const lines: RawLine[] = [];
  let lineNo = firstLine;
  let count = 0;
  let byteStart = 0;
  let charStart = 0;
  while (byteStart < chunkEnd) {
    const charNl = text.indexOf("\n", charStart);
    const byteNl = sameOffsets ? charNl : buffer.indexOf(NEWLINE, byteStart);
    const end = charNl > charStart && text.charCodeAt(charNl - 1) === CR ? charNl - 1 : charNl;
    const line = text.slice(charStart, end);
    const number = lineNo;
    if (lineNo !== undefined) lineNo++;
    count++;
    if (!isBlank(line)) lines.push({ text: line, start: base + byteStart, end: base + byteNl + 1, line: number });
    byteStart = byteNl + 1;
    charStart = charNl + 1;
  }
  return { lines, count };
}

/** The `index`-th line (0-based, blank lines counted) of a chunk, as `splitLines` would give it. */
export function lineOfChunk(chunk: LineChunk, index: number, firstLine: number | undefined): RawLine {
  let start = 0;
  for (let i = 0; i < index; i++) start = chunk.buffer.indexOf(NEWLINE, start) + 1;
  const nl = chunk.buffer.indexOf(NEWLINE, start);
  return { text: decodeLine(chunk.buffer, start, nl), start: chunk.base + start, end: chunk.base + nl + 1, line: firstLine === undefined ? undefined : firstLine + index };
}

/**
 * `readLines` a read at a time: the complete lines of each read of `chunkBytes`, in order (without a generator
 * step per line).
 */
export function* readLineBatches(fd: number, from: number, to: number, firstLine?: number, chunkBytes: number = READ_CHUNK): Generator<RawLine[]> {
  let lineNo = firstLine;
  for (const chunk of readLineChunks(fd, from, to, chunkBytes)) {
    const { lines, count } = splitLines(chunk, lineNo);
    if (lineNo !== undefined) lineNo += count;
    yield lines;
  }
}

/** Reads up to `length` bytes at `position` into `buffer` at `offset`; returns how many (fewer only at the end of the file). */
function readInto(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
  let filled = 0;
  while (filled < length) {
    const n = fs.readSync(fd, buffer, offset + filled, length - filled, position + filled);
    if (n === 0) break;
    filled += n;
  }
  return filled;
}

export interface TailInfo {
  /** Offset just after the last `\n` (0 when the file holds no complete line). */
  readonly goodEnd: number;
  /** The last non-blank complete line, if any. */
  readonly lastLine: RawLine | undefined;
}

/**
 * Find the last complete line by reading backwards from the end in growing windows
 * (64 KiB, doubling while a line is longer). Never parses the rest of the file.
 */
export function findTail(fd: number, size: number): TailInfo {
  let window = TAIL_WINDOW;
  for (;;) {
    const start = Math.max(0, size - window);
    const buffer = readAt(fd, start, size - start);
    const lastNl = buffer.lastIndexOf(NEWLINE);
    if (lastNl === -1) {
      if (start === 0) return { goodEnd: 0, lastLine: undefined };
      window *= 2;
      continue;
    }
    const goodEnd = start + lastNl + 1;
    let lineEnd = lastNl;
    for (;;) {
      const prevNl = lineEnd === 0 ? -1 : buffer.lastIndexOf(NEWLINE, lineEnd - 1);
      if (prevNl === -1 && start > 0) break; // the line may begin before this window
      const lineStart = prevNl + 1;
      const text = decodeLine(buffer, lineStart, lineEnd);
      if (!isBlank(text)) {
        return { goodEnd, lastLine: { text, start: start + lineStart, end: start + lineEnd + 1, line: undefined } };
      }
      if (prevNl === -1) return { goodEnd, lastLine: undefined };
      lineEnd = prevNl;
    }
    window *= 2;
  }
}

/**
 * The line that ends exactly at `end` (its `\n` is the byte at end-1), or undefined when the byte
 * before `end` is not a newline. Used to check a checkpoint's position against the ledger.
 */
export function lineEndingAt(fd: number, end: number): RawLine | undefined {
  if (end <= 0) return undefined;
  let window = TAIL_WINDOW;
  for (;;) {
    const start = Math.max(0, end - window);
    const buffer = readAt(fd, start, end - start);
    if (buffer.byteLength !== end - start || buffer[buffer.byteLength - 1] !== NEWLINE) return undefined;
    const lineEnd = buffer.byteLength - 1;
    const prevNl = lineEnd === 0 ? -1 : buffer.lastIndexOf(NEWLINE, lineEnd - 1);
    if (prevNl === -1 && start > 0) {
      window *= 2;
      continue;
    }
    const text = decodeLine(buffer, prevNl + 1, lineEnd);
    return { text, start: start + prevNl + 1, end, line: undefined };
  }
}

/** 1-based number of the line starting at `offset` (counts newlines before it; error paths only). */
export function lineNumberAt(fd: number, offset: number): number {
  let count = 1;
  let position = 0;
  while (position < offset) {
    const chunk = readAt(fd, position, Math.min(READ_CHUNK, offset - position));
    if (chunk.byteLength === 0) break;
    let index = chunk.indexOf(NEWLINE);
    while (index !== -1) {
      count++;
      index = chunk.indexOf(NEWLINE, index + 1);
    }
    position += chunk.byteLength;
  }
  return count;
}
