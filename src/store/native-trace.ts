/**
 * The raw native wire trace (LOG-03): `native-<target>.jsonl` beside the session log — every message
 * exchanged with the harness, for debugging adapters. Never part of the ledger; 0600, rotated at
 * 10 MiB to `.1`; writes are async and a failure never reaches the adapter.
 */
import path from "node:path";
import type { Clock } from "../shared/clock.ts";
import { LogSink } from "./session-log.ts";

export type TraceDirection = "in" | "out";

export interface NativeTrace {
  readonly path: string;
  trace(direction: TraceDirection, message: unknown): void;
  /** Resolves once every line traced so far was written (or given up on). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const ROTATE_BYTES = 10 * 1024 * 1024;
const QUEUE_BYTES = 8 * 1024 * 1024;
const MAX_LINE_BYTES = 1024 * 1024;

export function nativeTracePath(sessionDir: string, targetId: string): string {
  return path.join(sessionDir, `native-${targetId.replace(/[^A-Za-z0-9._-]/g, "_")}.jsonl`);
}

export function createNativeTrace(sessionDir: string, targetId: string, clock: Clock): NativeTrace {
  const file = nativeTracePath(sessionDir, targetId);
  const sink = new LogSink(file, ROTATE_BYTES, QUEUE_BYTES, (count) => `${JSON.stringify({ ts: new Date(clock.now()).toISOString(), dropped: count })}\n`);
  return {
    path: file,
    trace(direction, message) {
      let line: string;
      try {
        line = `${JSON.stringify({ ts: new Date(clock.now()).toISOString(), dir: direction, msg: message })}\n`;
      } catch {
        line = `${JSON.stringify({ ts: new Date(clock.now()).toISOString(), dir: direction, unserializable: true })}\n`;
      }
      let bytes = Buffer.byteLength(line);
      if (bytes > MAX_LINE_BYTES) {
        line = `${JSON.stringify({ ts: new Date(clock.now()).toISOString(), dir: direction, truncated: bytes })}\n`;
        bytes = Buffer.byteLength(line);
      }
      sink.enqueue(line, bytes);
    },
    flush: () => sink.flush(),
    close: () => sink.close(),
  };
}
