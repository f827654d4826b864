/**
 * JSON-lines framing shared by the ledger and the harness transports:
 * `\n` or `\r\n` terminated lines, a byte cap per line, and a torn last line kept apart.
 */

export interface LineFramerOptions {
  /** Lines longer than this many bytes are dropped and reported through `onOversize`. */
  readonly maxLineBytes?: number;
  readonly onOversize?: (bytes: number) => void;
}

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Incremental splitter: feed chunks, receive complete lines (without terminator). */
export class LineFramer {
  private readonly decoder = new TextDecoder();
  private pending = "";
  private pendingBytes = 0;
  private oversize = false;
  private readonly maxLineBytes: number;
  private readonly onOversize: ((bytes: number) => void) | undefined;

  constructor(options: LineFramerOptions = {}) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.onOversize = options.onOversize;
  }

  /** Returns the complete lines contained in `chunk` plus what was pending. */
  push(chunk: Uint8Array | string): string[] {
    const text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    const chunkBytes = typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const newline = text.indexOf("\n", start);
      if (newline === -1) break;
      const piece = text.slice(start, newline);
      start = newline + 1;
      if (this.oversize) {
        this.onOversize?.(this.pendingBytes + Buffer.byteLength(piece));
        this.reset();
        continue;
      }
      const line = this.pending + piece;
      this.reset();
      // A UTF-16 unit is at most 3 UTF-8 bytes, so only long lines need their bytes counted.
      if (line.length * 3 > this.maxLineBytes) {
        const bytes = Buffer.byteLength(line);
        if (bytes > this.maxLineBytes) {
          this.onOversize?.(bytes);
          continue;
        }
      }
      lines.push(stripCr(line));
    }
    const rest = text.slice(start);
    if (rest.length > 0) {
      this.pendingBytes += start === 0 ? chunkBytes : Buffer.byteLength(rest);
      if (!this.oversize && this.pendingBytes > this.maxLineBytes) {
        this.oversize = true;
        this.pending = "";
      } else if (!this.oversize) {
        this.pending += rest;
      }
    }
    return lines;
  }

  /** The unterminated tail (a torn last line), or undefined when the stream ended cleanly. */
  finish(): string | undefined {
    const tail = this.pending + this.decoder.decode();
    const wasOversize = this.oversize;
    this.reset();
    if (wasOversize) return undefined;
    return tail.length > 0 ? tail : undefined;
  }

  private reset(): void {
    this.pending = "";
    this.pendingBytes = 0;
    this.oversize = false;
  }
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** Serialize one value as a JSON line (terminator included). */
export function encodeJsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
