/**
 * The real process behind CliIo: its streams, signals and exit.
 *
 * - **Exit only after the output is out.** Bun queues writes to a pipe out of JavaScript's sight, so
 *   `process.exit()` straight after a large write cut `baton export … | wc -c` at 64–128 KiB. `exit()` ends
 *   stdout and stderr and waits until both are flushed.
 * - **A broken pipe ends quietly** (`baton doctor | head -1`): the first write error stops all further output, and
 *   EPIPE ends the process like SIGPIPE would (normal shutdown, then status 141), without a stack trace.
 * - **SIGINT** goes to the command (interrupt the turn); with nobody listening, or at the third, Baton exits 130.
 * - **SIGTERM / SIGHUP** run the command's normal shutdown once (the launcher forwards what the process group
 *   already got, so a second copy is expected and ignored), then exit 128 + signal; a shutdown that hangs is cut
 *   off after TERMINATE_LIMIT_MS.
 * - **A launcher that dies** (bin/baton.cjs killed with -9) leaves no Baton behind: Baton watches it and shuts down
 *   as on a hangup.
 */
import { LAUNCHER_PID_ENV } from "./entry-env.ts";
import { fdOutput, type WriteSink } from "./fd-output.ts";
import { builtinDefinitions } from "./harnesses.ts";
import { lineSource, type CliIo, type LineSource, type OutStream, type TerminationSignal } from "./io.ts";

const SIGNAL_NUMBERS: Readonly<Record<TerminationSignal | "SIGINT", number>> = { SIGHUP: 1, SIGINT: 2, SIGPIPE: 13, SIGTERM: 15 };
/** A shutdown after SIGTERM/SIGHUP that takes longer than this is cut off (the turn's own cancel grace is shorter). */
const TERMINATE_LIMIT_MS = 30_000;
/** A forced exit (third Ctrl+C, a hung shutdown) waits this long at most for the output to flush. */
const FORCED_FLUSH_MS = 1_000;
const LAUNCHER_POLL_MS = 500;
/** The code passed when the status is decided by the termination signal anyway. */
const EXIT_UNUSED = 1;

export interface ProcessIo {
  readonly io: CliIo;
  /** Flush the output and exit: with 128 + signal when a termination signal arrived, else with `code`. */
  exit(code: number): Promise<never>;
}

interface Output extends OutStream {
  /** Resolves once everything written is flushed (or the stream is broken). */
  finish(): Promise<void>;
}

/**
 * One of the process's output streams, made on first use (the io a command sees is derived several times on the
 * way; a test's streams record which were made). The process's own are fd-output.ts's: Bun's `process.stdout` and
 * `stderr` cost ≈ 20 ms of Node stream machinery to build (#18).
 */
function output(open: () => WriteSink, onBroken: (error: unknown) => void): Output {
  let stream: WriteSink | undefined;
  let broken = false;
  let full = false;
  const waiting = new Set<() => void>();
  const release = (): void => {
    full = false;
    for (const resolve of [...waiting]) resolve();
    waiting.clear();
  };
  const opened = (): WriteSink => {
    if (stream !== undefined) return stream;
    const made = open();
    stream = made;
    made.on("error", (error) => {
      release();
      if (broken) return;
      broken = true;
      onBroken(error);
    });
    made.on("drain", release);
    return made;
  };
  return {
    get isTTY() {
      return opened().isTTY === true;
    },
    write(text) {
      if (!broken && !opened().write(text)) full = true;
    },
    drain() {
      if (broken || !full) return Promise.resolve();
      return new Promise((resolve) => waiting.add(resolve));
    },
    finish() {
      const made = stream;
      if (made === undefined || broken || made.writableFinished) return Promise.resolve();
      return new Promise((resolve) => {
        made.once("error", () => resolve());
        // Bun calls back before it reports a write that failed (EPIPE): give that error one turn to arrive.
        made.end(() => setImmediate(resolve));
      });
    },
  };
}

/** Where the process's streams come from (a test passes an object that sees which are made). */
export interface ProcessStreams {
  readonly stdout: WriteSink;
  readonly stderr: WriteSink;
  readonly stdin: NodeJS.Process["stdin"];
}

/** The process's own: its file descriptors 1 and 2, and `process.stdin`; each made when first read. */
const PROCESS_STREAMS: ProcessStreams = {
  get stdout() {
    return fdOutput(1);
  },
  get stderr() {
    return fdOutput(2);
  },
  get stdin() {
    return process.stdin;
  },
};

export function createProcessIo(std: ProcessStreams = PROCESS_STREAMS): ProcessIo {
  const interruptListeners = new Set<() => void>();
  const terminateListeners = new Set<(signal: TerminationSignal) => void>();
  let interrupts = 0;
  let terminatedBy: TerminationSignal | undefined;
  let exiting = false;

  const streams: Output[] = [];
  const flush = (): Promise<void> => Promise.all(streams.map((stream) => stream.finish())).then(() => undefined);
  /** Flush (bounded for a forced exit), then exit: 128 + signal once a termination signal arrived, else `code`. */
  const hardExit = async (code: number, flushLimitMs?: number): Promise<never> => {
    exiting = true;
    const flushed = flush();
    if (flushLimitMs === undefined) await flushed;
    else await Promise.race([flushed, new Promise((resolve) => setTimeout(resolve, flushLimitMs).unref())]);
    process.exit(terminatedBy === undefined ? code : 128 + SIGNAL_NUMBERS[terminatedBy]);
  };

  const terminate = (signal: TerminationSignal): void => {
    if (terminatedBy !== undefined) return;
    terminatedBy = signal;
    // Nobody to shut down, or the exit is already under way (perhaps waiting on a reader): leave now.
    if (exiting || terminateListeners.size === 0) {
      void hardExit(EXIT_UNUSED, FORCED_FLUSH_MS);
      return;
    }
    setTimeout(() => void hardExit(EXIT_UNUSED, FORCED_FLUSH_MS), TERMINATE_LIMIT_MS).unref();
    for (const listener of [...terminateListeners]) listener(signal);
  };

  const onBroken = (error: unknown): void => {
    if ((error as { code?: unknown } | null)?.code === "EPIPE") terminate("SIGPIPE");
  };
  const stdout = output(() => std.stdout, onBroken);
  const stderr = output(() => std.stderr, onBroken);
  streams.push(stdout, stderr);

  process.on("SIGINT", () => {
    interrupts++;
    if (interruptListeners.size === 0 || interrupts > 2) {
      void hardExit(128 + SIGNAL_NUMBERS.SIGINT, FORCED_FLUSH_MS);
      return;
    }
    for (const listener of [...interruptListeners]) listener();
  });
  process.on("SIGTERM", () => terminate("SIGTERM"));
  process.on("SIGHUP", () => terminate("SIGHUP"));
  watchLauncher(() => terminate("SIGHUP"));

  let stdin: LineSource | undefined;
  const io: CliIo = {
    stdout,
    stderr,
    // Made on first use, like the outputs.
    get stdin() {
      stdin ??= lineSource(std.stdin);
      return stdin;
    },
    get stdinIsTTY() {
      return std.stdin.isTTY === true;
    },
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(listener) {
      interruptListeners.add(listener);
      return () => interruptListeners.delete(listener);
    },
    onTerminate(listener) {
      terminateListeners.add(listener);
      return () => terminateListeners.delete(listener);
    },
    definitions: builtinDefinitions(),
  };
  return {
    io,
    exit: (code) => hardExit(code),
  };
}

/** bin/baton.cjs names itself in BATON_LAUNCHER_PID; when it is gone (our parent changed), so is the user's Baton. */
function watchLauncher(onGone: () => void): void {
  const launcher = Number(process.env[LAUNCHER_PID_ENV]);
  delete process.env[LAUNCHER_PID_ENV];
  if (!Number.isInteger(launcher) || launcher <= 1 || launcher !== process.ppid) return;
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    onGone();
  }, LAUNCHER_POLL_MS);
  timer.unref();
}
