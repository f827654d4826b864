/**
 * A process handle for a child that speaks JSON lines (style rule 10), on top of `spawnChild` (own process
 * group and session, a parent-death watchdog, group signals, reaping): an optional channel on stdio or on
 * fd 3/4, stdout/stderr read line by line with a byte cap per line, a bounded stderr ring, exit as a typed
 * error, an AbortSignal. With `fd34` the child writes fd 3 and reads fd 4, so its own stdout cannot corrupt
 * the protocol (the plugin runner). Without fd 3/4 the child is started with Bun.spawn (`spawnPiped`: no Node
 * streams to build, #18); with them, with Node's child_process.
 */
import type { Readable, Writable } from "node:stream";
import type { FileSink } from "bun";
import { BatonError, describeError } from "../shared/errors.ts";
import { terminalSafe } from "../shared/terminal-text.ts";
import { endSink, spawnChild, spawnPiped, type ChildExit, type PipedChild, type StartedProcess, type StopOptions } from "./child-process.ts";
import type { JsonRpcTransport } from "./jsonrpc.ts";

export type ExitInfo = ChildExit;
export type ChildStream = "stdout" | "stderr";
export type ChannelKind = "stdio" | "fd34" | "none";

export interface ProcessSpec {
  /** Names the child in messages ("plugin acme/hello", "npm pack"). */
  readonly label: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The complete environment (nothing is inherited). */
  readonly env: Readonly<Record<string, string>>;
  readonly channel?: ChannelKind;
  /** Aborting terminates the child (SIGTERM to its group, then SIGKILL after `killGraceMs`). */
  readonly signal?: AbortSignal;
  readonly killGraceMs?: number;
  /** Every non-empty stdout/stderr line (colour codes stripped), cut at `lineCapBytes`. */
  readonly onLine?: (stream: ChildStream, line: string) => void;
  readonly lineCapBytes?: number;
  readonly stderrRingBytes?: number;
  /** The child, already spawned from exactly this spec with stdio piped (channel `stdio`): adopted, not spawned again. */
  readonly started?: StartedProcess;
}

export interface ProcessHandle {
  readonly label: string;
  /** The program and its arguments, as started (for messages). */
  readonly argv: readonly string[];
  readonly pid: number | undefined;
  /** The channel as a transport (undefined with channel `none`). */
  readonly transport: JsonRpcTransport | undefined;
  /** Resolves once the process has exited and been reaped (or failed to start); never rejects. */
  readonly exited: Promise<ExitInfo>;
  exitInfo(): ExitInfo | undefined;
  /** The last few KB of stderr, colour codes stripped. */
  stderrTail(): string;
  /** Signal the child's whole process group. Harmless after exit. */
  kill(signal?: NodeJS.Signals): void;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once reaped (members of its group die with it). */
  terminate(graceMs?: number): Promise<ExitInfo>;
  /** Close its stdin (EOF), give it `eofGraceMs` to exit by itself, then TERM/KILL the group; resolves once reaped. */
  stop(options?: StopOptions): Promise<ExitInfo>;
  /** SIGKILL whatever is still in the child's group (after the leader exited). */
  reapGroup(): void;
}

export const DEFAULT_LINE_CAP_BYTES = 8 * 1024;
const DEFAULT_STDERR_RING = 8 * 1024;
const DEFAULT_KILL_GRACE_MS = 1_000;

export function describeExit(exit: ExitInfo | undefined): string {
  if (exit === undefined) return "still running";
  if (exit.error !== undefined) return `failed to start: ${exit.error}`;
  if (exit.signal !== null) return `killed by ${exit.signal}`;
  return `exit code ${String(exit.code)}`;
}

/** The exit as the error a caller rejects with: `harness_start_failed` when it never started, else `harness_dead`. */
export function exitError(label: string, exit: ExitInfo, stderrTail = ""): BatonError {
  const tail = stderrTail.trim().split("\n").slice(-3).join(" | ");
  const detail = `${label}: ${describeExit(exit)}${tail === "" ? "" : ` (${tail.slice(0, 500)})`}`;
  return new BatonError(exit.error !== undefined ? "harness_start_failed" : "harness_dead", detail);
}

/** Splits a byte stream into lines, cutting any line at `cap` bytes (the rest of that line is skipped). */
class CappedLines {
  private pending = "";
  private skipping = false;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly cap: number,
    private readonly emit: (line: string) => void,
  ) {}

  push(chunk: Uint8Array | string): void {
    const text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const newline = text.indexOf("\n", start);
      const piece = text.slice(start, newline === -1 ? undefined : newline);
      if (!this.skipping) {
        this.pending += piece;
        if (Buffer.byteLength(this.pending) > this.cap) {
          this.emit(`${Buffer.from(this.pending).subarray(0, this.cap).toString("utf8")} … (line cut at ${this.cap} bytes)`);
          this.pending = "";
          this.skipping = true;
        }
      }
      if (newline === -1) return;
      if (!this.skipping) this.emit(this.pending.replace(/\r$/, ""));
      this.pending = "";
      this.skipping = false;
      start = newline + 1;
    }
  }

  finish(): void {
    const rest = this.pending + this.decoder.decode();
    this.pending = "";
    if (!this.skipping && rest !== "") this.emit(rest);
  }
}

function pipeTransport(label: string, input: Readable, output: Writable): JsonRpcTransport {
  return {
    input,
    write(line) {
      if (output.destroyed || !output.writable) throw new Error(`${label}: its input is closed`);
      output.write(line);
    },
    end() {
      if (!output.destroyed) output.end();
    },
  };
}

/** The channel of a Bun-spawned child: its stdout in, its stdin (a FileSink, flushed at every line) out. */
function sinkTransport(label: string, input: ReadableStream<Uint8Array>, output: FileSink, exited: Promise<unknown>): JsonRpcTransport {
  let closed = false;
  void exited.then(() => (closed = true));
  return {
    input,
    write(line) {
      if (closed) throw new Error(`${label}: its input is closed`);
      // A write the peer is gone for (EPIPE) fails quietly, as a Node pipe's does: its output ends, and the reader says so.
      try {
        output.write(line);
        void Promise.resolve(output.flush()).catch(() => (closed = true));
      } catch {
        closed = true;
      }
    },
    end() {
      if (closed) return;
      closed = true;
      endSink(output);
    },
  };
}

/** Read `stream` to its end, chunk by chunk; a read error ends it like EOF (the exit says what happened). */
async function drain(stream: ReadableStream<Uint8Array> | undefined, onData: (chunk: Uint8Array) => void, onEnd: () => void): Promise<void> {
  if (stream === undefined) return;
  try {
    for await (const chunk of stream) onData(chunk);
  } catch {
    // the pipe broke: what was read is all there is
  }
  onEnd();
}

function failedHandle(label: string, argv: readonly string[], exit: ExitInfo): ProcessHandle {
  return {
    label,
    argv,
    pid: undefined,
    transport: undefined,
    exited: Promise.resolve(exit),
    exitInfo: () => exit,
    stderrTail: () => "",
    kill: () => undefined,
    terminate: () => Promise.resolve(exit),
    stop: () => Promise.resolve(exit),
    reapGroup: () => undefined,
  };
}

export function spawnProcess(spec: ProcessSpec): ProcessHandle {
  const channel = spec.channel ?? "none";
  const cap = spec.lineCapBytes ?? DEFAULT_LINE_CAP_BYTES;
  const lines = (stream: ChildStream) =>
    new CappedLines(cap, (line) => {
      const plain = terminalSafe(line);
      if (plain.trim() !== "") spec.onLine?.(stream, plain);
    });
  const ring = new StderrRing(spec.stderrRingBytes ?? DEFAULT_STDERR_RING);
  const stderrLines = lines("stderr");
  let handle: Pick<PipedChild, "pid" | "exited" | "exitInfo" | "signal" | "stop">;
  let transport: JsonRpcTransport | undefined;
  try {
    if (channel === "fd34") {
      const started = spawnChild(spec.file, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"] });
      const child = started.child;
      child.stderr?.on("data", (data: Buffer) => {
        ring.push(data);
        stderrLines.push(data);
      });
      child.stderr?.on("end", () => stderrLines.finish());
      const stdoutLines = lines("stdout");
      child.stdout?.on("data", (data: Buffer) => stdoutLines.push(data));
      child.stdout?.on("end", () => stdoutLines.finish());
      for (const stream of child.stdio) stream?.on("error", () => undefined);
      transport = pipeTransport(spec.label, child.stdio[3] as Readable, child.stdio[4] as Writable);
      handle = started;
    } else {
      const started = spawnPiped(spec.file, spec.args, { cwd: spec.cwd, env: spec.env, stdin: channel === "stdio" ? "pipe" : "ignore", ...(spec.started === undefined ? {} : { started: spec.started }) });
      void drain(
        started.stderr,
        (data) => {
          ring.push(data);
          stderrLines.push(data);
        },
        () => stderrLines.finish(),
      );
      if (channel === "stdio") {
        if (started.stdout !== undefined && started.stdin !== undefined) transport = sinkTransport(spec.label, started.stdout, started.stdin, started.exited);
      } else {
        const stdoutLines = lines("stdout");
        void drain(started.stdout, (data) => stdoutLines.push(data), () => stdoutLines.finish());
      }
      handle = started;
    }
  } catch (error) {
    // Synchronous spawn failures (EINVAL…) become an exit like ENOENT does.
    return failedHandle(spec.label, [spec.file, ...spec.args], { code: null, signal: null, error: describeError(error) });
  }
  const terminate = (graceMs = spec.killGraceMs ?? DEFAULT_KILL_GRACE_MS): Promise<ExitInfo> => handle.stop({ termGraceMs: graceMs });
  if (spec.signal !== undefined) {
    const signal = spec.signal;
    const onAbort = (): void => void terminate();
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener("abort", onAbort, { once: true });
      void handle.exited.then(() => signal.removeEventListener("abort", onAbort));
    }
  }
  return {
    label: spec.label,
    argv: [spec.file, ...spec.args],
    pid: handle.pid,
    transport,
    exited: handle.exited,
    exitInfo: () => handle.exitInfo(),
    stderrTail: () => ring.text,
    kill: (signal = "SIGTERM") => void handle.signal(signal),
    terminate,
    stop: (options) => handle.stop(options),
    reapGroup: () => {
      const pid = handle.pid;
      if (pid === undefined) return;
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // nothing left in the group
      }
    },
  };
}

/** The last `bytes` characters of stderr, colour codes stripped (decoded as a stream: a character split across reads stays whole). */
class StderrRing {
  text = "";
  private readonly decoder = new TextDecoder();

  constructor(private readonly bytes: number) {}

  push(data: Uint8Array): void {
    this.text = (this.text + terminalSafe(this.decoder.decode(data, { stream: true }))).slice(-this.bytes);
  }
}
