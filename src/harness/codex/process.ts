/** The `codex app-server` child: spawn, stdio as a JSON-RPC transport, bounded stderr, exit, kill. */
import { terminalSafe } from "../../shared/terminal-text.ts";
import { spawn } from "node:child_process";
import { BatonError, describeError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import type { JsonRpcTransport } from "../../rpc/jsonrpc.ts";

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: string | null;
  /** Set when the process could not be started at all. */
  readonly error?: string;
}

export interface CodexProcess {
  readonly pid: number | undefined;
  readonly argv: readonly string[];
  readonly transport: JsonRpcTransport;
  /** Resolves once the process has exited (or failed to start). */
  readonly exited: Promise<ExitInfo>;
  exitInfo(): ExitInfo | undefined;
  /** The last few KB of stderr. */
  stderrTail(): string;
  kill(signal?: NodeJS.Signals): void;
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
  const child = spawn(file, args, { cwd: options.cwd, env: { ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  let exit: ExitInfo | undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once("error", (error) => {
      exit ??= { code: null, signal: null, error: describeError(error) };
      resolve(exit);
    });
    child.once("exit", (code, signal) => {
      exit ??= { code, signal };
      resolve(exit);
    });
  });
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
    pid: child.pid,
    argv,
    transport,
    exited,
    exitInfo: () => exit,
    stderrTail: () => stderr,
    kill(signal = "SIGTERM") {
      if (exit !== undefined) return;
      try {
        child.kill(signal);
      } catch (error) {
        options.log.log("debug", "killing codex failed", { error });
      }
    },
  };
}
