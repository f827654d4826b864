/**
 * A guard on a child's NDJSON stdout that a reader Baton does not own decodes (the Agent SDK reads Claude Code's
 * stdout itself, and would turn bad bytes into U+FFFD silently): lines pass through byte for byte, except a line
 * that is not valid UTF-8 and holds a JSON object, which goes on as that object (its text with U+FFFD) marked
 * with the line's bytes (`INVALID_UTF8_FIELD`, as base64) — so the events made from it record what the agent
 * wrote. Anything else (not JSON, not an object) passes unchanged for the reader to judge.
 */
import { isUtf8 } from "node:buffer";
import { Transform } from "node:stream";
import { markInvalidUtf8 } from "../shared/jsonl.ts";

const NEWLINE = 0x0a;

/** `onInvalid` is told the byte length of every line that was not valid UTF-8. */
export function invalidUtf8Guard(onInvalid?: (bytes: number) => void): Transform {
  let pending: Buffer[] = [];
  const repair = (line: Buffer): Buffer => {
    if (isUtf8(line)) return line;
    const body = line.at(-1) === NEWLINE ? line.subarray(0, -1) : line;
    onInvalid?.(body.byteLength);
    let value: unknown;
    try {
      value = JSON.parse(body.toString("utf8"));
    } catch {
      return line;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) return line;
    markInvalidUtf8(value as Record<string, unknown>, body);
    return Buffer.from(`${JSON.stringify(value)}\n`);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const out: Buffer[] = [];
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(NEWLINE, start);
        if (newline === -1) break;
        const piece = chunk.subarray(start, newline + 1);
        start = newline + 1;
        out.push(repair(pending.length === 0 ? piece : Buffer.concat([...pending, piece])));
        pending = [];
      }
      if (start < chunk.byteLength) pending.push(Buffer.from(chunk.subarray(start)));
      done(null, out.length === 0 ? undefined : out.length === 1 ? out[0] : Buffer.concat(out));
    },
    flush(done) {
      const tail = Buffer.concat(pending);
      pending = [];
      done(null, tail.byteLength === 0 ? undefined : repair(tail));
    },
  });
}
