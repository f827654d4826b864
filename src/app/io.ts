/** The CLI's view of the process: streams, environment, cwd, signals. Tests pass their own. */
import type { HarnessDefinition } from "../harness/definition.ts";
import type { CodexPrestart } from "./codex-prestart.ts";
import { terminalSafe } from "../shared/terminal-text.ts";

export type TerminationSignal = "SIGTERM" | "SIGHUP" | "SIGPIPE";

export interface OutStream {
  write(text: string): void;
  /** Resolves once what was written has left the process's buffer (backpressure; a broken stream resolves at once). */
  drain?(): Promise<void>;
  readonly isTTY?: boolean;
  /** The stream under a terminal-safe one: only for control sequences Baton itself means (the title). */
  readonly raw?: OutStream;
}

export interface CliIo {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /** Lines of standard input, read lazily (repl, `exec -`). */
  readonly stdin: LineSource;
  readonly stdinIsTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Subscribe to Ctrl+C / SIGINT; returns an unsubscribe function. */
  onInterrupt(listener: () => void): () => void;
  /**
   * Subscribe to the end of the process's life from outside: SIGTERM, SIGHUP (the terminal went away) or a broken
   * output pipe (reported as SIGPIPE). The command runs its normal shutdown (cancel the turn, close the session,
   * release the lock) and returns; the process then exits with 128 + the signal number. Delivered once.
   */
  onTerminate(listener: (signal: TerminationSignal) => void): () => void;
  /** The harness definitions to register (the composition root's choice; tests pass fakes). */
  readonly definitions: readonly HarnessDefinition[];
  /** BATON_HOME as it was given, when it was relative (it is resolved once, at entry; `doctor` says so). */
  readonly relativeHome?: string;
  /** `baton exec`'s Codex app-server started at process entry (src/app/codex-prestart.ts), for the prelaunch to take. */
  readonly prestart?: CodexPrestart;
}

export interface LineSource {
  /** The next line without its terminator, or undefined at end of input. */
  next(): Promise<string | undefined>;
  /** Everything that is left. */
  readAll(): Promise<string>;
}

/** A LineSource over an async iterable of byte/string chunks. */
export function lineSource(chunks: AsyncIterable<Uint8Array | string>): LineSource {
  const iterator = chunks[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  let buffer = "";
  let ended = false;
  async function fill(): Promise<boolean> {
    if (ended) return false;
    const { value, done } = await iterator.next();
    if (done) {
      ended = true;
      buffer += decoder.decode();
      return false;
    }
    buffer += typeof value === "string" ? value : decoder.decode(value, { stream: true });
    return true;
  }
  return {
    async next() {
      for (;;) {
        const newline = buffer.indexOf("\n");
        if (newline >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, "");
          buffer = buffer.slice(newline + 1);
          return line;
        }
        if (!(await fill())) {
          if (buffer.length === 0) return undefined;
          const line = buffer;
          buffer = "";
          return line;
        }
      }
    },
    async readAll() {
      while (await fill()) {
        // keep reading
      }
      const all = buffer;
      buffer = "";
      return all;
    },
  };
}

export function linesFrom(text: string): LineSource {
  return lineSource((async function* () {
    yield text;
  })());
}

/**
 * `stream` with every write made terminal-safe (#11.11): whatever an agent or a tool wrote reaches the
 * terminal without its control sequences. JSON output is written with `terminalJson`, which this leaves as is.
 */
export function terminalOut(stream: OutStream): OutStream {
  if (stream.raw !== undefined) return stream;
  return withIo(stream, { write: (text: string) => stream.write(terminalSafe(text)), raw: stream });
}

/** `io` whose stdout and stderr are terminal-safe (`terminalOut`). */
export function terminalIo(io: CliIo): CliIo {
  return withIo(io, { stdout: terminalOut(io.stdout), stderr: terminalOut(io.stderr) });
}

/**
 * `base` with `overrides` over it, getters kept as getters (a spread would call them): the process's streams are
 * made on first use (process-io.ts), and a derived io must not make them.
 */
export function withIo<T extends object>(base: T, overrides: Partial<T>): T {
  return Object.defineProperties({}, { ...Object.getOwnPropertyDescriptors(base), ...Object.getOwnPropertyDescriptors(overrides) }) as T;
}
