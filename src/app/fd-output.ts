/**
 * The process's stdout and stderr, written straight to their file descriptors (#18). Bun builds `process.stdout` and
 * `process.stderr` — and with them Node's whole stream machinery — the first time they are touched: ≈ 20 ms of the
 * main thread for the two (this: ≈ 0.3 ms), which `baton exec` paid between admitting its input and starting its
 * harness (the first status line) and every printing command paid once.
 *
 * - **A terminal is written synchronously** (a character device: a TTY, /dev/null), as Node writes a TTY, so what
 *   stdout and stderr print on the same terminal keeps the order it was written in.
 * - **A pipe or a file is written off the thread** (`fs.write`, one write at a time, queued text coalesced), so a
 *   slow reader never holds the event loop; `write` returns false past HIGH_WATER_BYTES queued, and "drain" follows
 *   once the queue is back under it.
 * - A terminal whose descriptor was left non-blocking (EAGAIN) is written like a pipe from then on. The first other
 *   write error (EPIPE: the reader went away) is emitted once as "error" and drops everything queued and later.
 * - `isTTY` loads node:tty only when asked (≈ 10 ms): only the TUI's and the session picker's checks ask.
 *
 * It is the subset of a Node WriteStream that process-io.ts uses, so a test can hand it either.
 */
import fs from "node:fs";
import { createRequire } from "node:module";

/** What process-io.ts needs of an output stream (a Node WriteStream has it too). */
export interface WriteSink {
  readonly isTTY?: boolean;
  readonly writableFinished: boolean;
  write(text: string): boolean;
  on(event: "error" | "drain", listener: (error?: unknown) => void): unknown;
  once(event: "error", listener: (error?: unknown) => void): unknown;
  end(done: () => void): unknown;
}

const HIGH_WATER_BYTES = 64 * 1024;
/** Queued text is written in batches of at most this much. */
const BATCH_CHARS = 1024 * 1024;
/** How long a write that found the descriptor full (EAGAIN) waits before it tries again. */
const AGAIN_MS = 2;

type Listener = (error?: unknown) => void;

export function fdOutput(fd: number): WriteSink {
  let blocking = isCharacterDevice(fd);
  const queue: string[] = [];
  let queued = 0;
  let inFlight = false;
  let overHighWater = false;
  let failure: unknown;
  let ending = false;
  let finished = false;
  let tty: boolean | undefined;
  const listeners = { error: new Set<Listener>(), drain: new Set<Listener>() };
  const enders: (() => void)[] = [];

  const emit = (event: "error" | "drain", error?: unknown): void => {
    for (const listener of [...listeners[event]]) listener(error);
  };
  const fail = (error: unknown): void => {
    failure = error;
    queue.length = 0;
    queued = 0;
    // Emitted a turn later, as a stream does: a write never calls back into its caller.
    queueMicrotask(() => {
      emit("error", error);
      settle();
    });
  };
  const settle = (): void => {
    if (!ending || inFlight || queue.length > 0) return;
    finished = true;
    for (const done of enders.splice(0)) done();
  };
  const pump = (): void => {
    if (inFlight || failure !== undefined || queue.length === 0) return;
    let text = "";
    while (queue.length > 0 && text.length < BATCH_CHARS) text += queue.shift();
    inFlight = true;
    send(Buffer.from(text), text.length);
  };
  const send = (bytes: Buffer, chars: number): void => {
    fs.write(fd, bytes, 0, bytes.length, null, (error, written) => {
      if (error !== null) {
        if (error.code === "EAGAIN") {
          setTimeout(() => send(bytes, chars), AGAIN_MS);
          return;
        }
        inFlight = false;
        fail(error);
        return;
      }
      if (written < bytes.length) {
        send(bytes.subarray(written), chars);
        return;
      }
      inFlight = false;
      queued -= chars;
      if (overHighWater && queued < HIGH_WATER_BYTES) {
        overHighWater = false;
        emit("drain");
      }
      pump();
      settle();
    });
  };
  /** Writes `text` now; false (and the rest in flight, written off the thread) when the descriptor was full. */
  const writeNow = (text: string): boolean => {
    const bytes = Buffer.from(text);
    let offset = 0;
    try {
      while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EAGAIN") {
        fail(error);
        return true;
      }
      // Left non-blocking by someone: what was not written goes out like a pipe's, and so does all that follows.
      const rest = bytes.subarray(offset);
      inFlight = true;
      queued += rest.length;
      send(rest, rest.length);
      return false;
    }
  };

  return {
    get isTTY() {
      tty ??= isTerminal(fd);
      return tty;
    },
    get writableFinished() {
      return finished;
    },
    write(text) {
      if (failure !== undefined) return false;
      if (text.length === 0) return true;
      if (blocking && queue.length === 0 && !inFlight) {
        if (writeNow(text)) return true;
        blocking = false;
      } else {
        queue.push(text);
        queued += text.length;
        pump();
      }
      if (queued >= HIGH_WATER_BYTES) overHighWater = true;
      return !overHighWater;
    },
    on(event, listener) {
      listeners[event].add(listener);
      return this;
    },
    once(event, listener) {
      const once: Listener = (error) => {
        listeners[event].delete(once);
        listener(error);
      };
      listeners[event].add(once);
      return this;
    },
    end(done) {
      ending = true;
      enders.push(done);
      queueMicrotask(settle);
      return this;
    },
  };
}

function isCharacterDevice(fd: number): boolean {
  try {
    return fs.fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

function isTerminal(fd: number): boolean {
  try {
    return (createRequire(import.meta.url)("node:tty") as typeof import("node:tty")).isatty(fd);
  } catch {
    return false;
  }
}
