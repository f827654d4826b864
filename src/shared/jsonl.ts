/**
 * JSON-lines framing shared by the ledger and the harness transports:
 * `\n` or `\r\n` terminated lines, a byte cap per line, and a torn last line kept apart.
 * Lines are split on bytes and decoded one by one, so a line that is not valid UTF-8 is known as such:
 * its text has U+FFFD where the bad bytes were, and its bytes come with it (`FramedLine.invalidUtf8`).
 */
import { isUtf8 } from "node:buffer";

export interface LineFramerOptions {
  /** Lines longer than this many bytes are dropped and reported through `onOversize`. */
  readonly maxLineBytes?: number;
  readonly onOversize?: (bytes: number) => void;
}

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** One line without its terminator. */
export interface FramedLine {
  readonly text: string;
  /** The line's bytes when they are not valid UTF-8 (`text` then holds U+FFFD in their place). */
  readonly invalidUtf8?: Uint8Array;
}

/**
 * The field a wire message decoded from a line that was not valid UTF-8 gains (on the object its handler
 * receives, so the events made from it keep it in `raw`): the line's bytes, verbatim, as base64.
 */
export const INVALID_UTF8_FIELD = "_baton_invalid_utf8";

export interface InvalidUtf8Mark {
  readonly bytes: number;
  readonly base64: string;
}

/** Record on `target` that it was decoded from `bytes`, which are not valid UTF-8. */
export function markInvalidUtf8(target: Record<string, unknown>, bytes: Uint8Array): void {
  const mark: InvalidUtf8Mark = { bytes: bytes.byteLength, base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") };
  target[INVALID_UTF8_FIELD] = mark;
}

/**
 * Mark a JSON-RPC message decoded from a line that was not valid UTF-8, on the object its handler receives:
 * `params`, or `result`, else the message itself — so whatever is recorded from it keeps the line's bytes.
 */
export function markInvalidUtf8Message(message: Record<string, unknown>, bytes: Uint8Array): void {
  const carrier = [message["params"], message["result"]].find((value) => typeof value === "object" && value !== null && !Array.isArray(value));
  markInvalidUtf8((carrier ?? message) as Record<string, unknown>, bytes);
}

/** A line's bytes as text, with the bytes kept when they are not valid UTF-8. */
export function decodeLineBytes(bytes: Buffer): FramedLine {
  const text = bytes.toString("utf8");
  return isUtf8(bytes) ? { text } : { text, invalidUtf8: new Uint8Array(bytes) };
}

const NEWLINE = 0x0a;
const CR = 0x0d;

/** Incremental splitter: feed chunks, receive complete lines (without terminator). */
export class LineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private oversize = false;
  private readonly maxLineBytes: number;
  private readonly onOversize: ((bytes: number) => void) | undefined;

  constructor(options: LineFramerOptions = {}) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.onOversize = options.onOversize;
  }

  /** The complete lines contained in `chunk` plus what was pending, as text. */
  push(chunk: Uint8Array | string): string[] {
    return this.pushLines(chunk).map((line) => line.text);
  }

  /** The complete lines contained in `chunk` plus what was pending, each with its bytes when not valid UTF-8. */
  pushLines(chunk: Uint8Array | string): FramedLine[] {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const lines: FramedLine[] = [];
    let start = 0;
    for (;;) {
      const newline = bytes.indexOf(NEWLINE, start);
      if (newline === -1) break;
      const piece = bytes.subarray(start, newline);
      start = newline + 1;
      const total = this.pendingBytes + piece.byteLength;
      if (this.oversize || total > this.maxLineBytes) {
        this.reset();
        this.onOversize?.(total);
        continue;
      }
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece], total);
      this.reset();
      lines.push(decodeLineBytes(stripCr(line)));
    }
    if (start < bytes.byteLength) {
      const rest = bytes.subarray(start);
      this.pendingBytes += rest.byteLength;
      if (!this.oversize && this.pendingBytes > this.maxLineBytes) {
        this.oversize = true;
        this.pending = [];
      } else if (!this.oversize) {
        // A copy: the caller may reuse its buffer for the next chunk.
        this.pending.push(Buffer.from(rest));
      }
    }
    return lines;
  }

  /** The unterminated tail (a torn last line), or undefined when the stream ended cleanly. */
  finish(): string | undefined {
    return this.finishLine()?.text;
  }

  /** `finish` with the tail's bytes when they are not valid UTF-8. */
  finishLine(): FramedLine | undefined {
    const wasOversize = this.oversize;
    const tail = Buffer.concat(this.pending, this.pendingBytes);
    this.reset();
    if (wasOversize || tail.byteLength === 0) return undefined;
    return decodeLineBytes(tail);
  }

  private reset(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.oversize = false;
  }
}

function stripCr(line: Buffer): Buffer {
  return line.byteLength > 0 && line[line.byteLength - 1] === CR ? line.subarray(0, -1) : line;
}

/** Serialize one value as a JSON line (terminator included). */
export function encodeJsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
