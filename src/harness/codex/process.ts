/**
 * The `codex app-server` child: spawn (own process group, watchdog: see rpc/child-process), stdio as a JSON-RPC
 * transport, bounded stderr, exit, group signals and stop.
 */
import { terminalSafe } from "../../shared/terminal-text.ts";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { BatonError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { spawnChild, type ChildExit, type StopOptions } from "../../rpc/child-process.ts";
import type { JsonRpcTransport } from "../../rpc/jsonrpc.ts";

export type ExitInfo = ChildExit;

export interface CodexProcess {
  readonly pid: number | undefined;
  readonly argv: readonly string[];
  readonly transport: JsonRpcTransport;
  /** Resolves once the process has exited (or failed to start). */
  readonly exited: Promise<ExitInfo>;
  exitInfo(): ExitInfo | undefined;
  /** The last few KB of stderr. */
  stderrTail(): string;
  /** Signal the app-server's whole process group (what it runs stops with it). */
  kill(signal?: NodeJS.Signals): void;
  /** Close stdin, wait for a clean exit, then TERM/KILL the group; resolves once it is reaped. */
  stop(options?: StopOptions): Promise<ExitInfo>;
}

const STDERR_RING_BYTES = 8 * 1024;
const STDERR_LOG_LINE = 500;

export function describeExit(exit: ExitInfo | undefined): string {
  if (exit === undefined) return "still running";
  if (exit.error !== undefined) return `failed to start: ${exit.error}`;
  if (exit.signal !== null) return `killed by ${exit.signal}`;
  return `exit code ${String(exit.code)}`;
}

export function spawnAppServer(argv: readonly string[], options: { cwd: string; env: Readonly<Record<string, string>>; log: Logger }): CodexProcess {
  const [file, ...args] = argv;
  if (file === undefined) throw new BatonError("harness_start_failed", "empty codex command");
  const handle = spawnChild(file, args, { cwd: options.cwd, env: options.env });
  const child = handle.child as ChildProcessWithoutNullStreams;
  let stderr = "";
  child.stdin.on("error", (error) => options.log.log("debug", "codex stdin error", { error }));
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (data: string) => {
    stderr = (stderr + terminalSafe(data)).slice(-STDERR_RING_BYTES);
    for (const line of data.split("\n")) {
      const plain = terminalSafe(line);
      if (plain.trim() !== "") options.log.log("warn", `codex stderr: ${plain.slice(0, STDERR_LOG_LINE)}`);
    }
  });
  const transport: JsonRpcTransport = {
    input: child.stdout,
    write(line) {
      if (child.stdin.destroyed || !child.stdin.writable) throw new Error("codex stdin is closed");
      child.stdin.write(line);
    },
    end() {
      if (!child.stdin.destroyed) child.stdin.end();
    },
  };
  return {
    pid: handle.pid,
    argv,
    transport,
    exited: handle.exited,
    exitInfo: () => handle.exitInfo(),
    stderrTail: () => stderr,
    kill(signal = "SIGTERM") {
      handle.signal(signal);
    },
    stop: (stopOptions) => handle.stop(stopOptions),
  };
}
