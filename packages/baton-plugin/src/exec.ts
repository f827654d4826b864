/**
 * `exec`: the one way the SDK runs programs. It refuses a program the manifest does not declare under
 * `permissions.exec` (compared exactly as written: `git` is not `/usr/bin/git`), and always caps time and
 * output. By default the child stays in the runner's process group, so when Baton stops the binding it dies
 * too. With `processGroup: true` it leads a group of its own (what a test command or a build starts is in
 * it): a timeout, an abort or the program's own exit stops the whole group, and the runner's group spawner
 * (Baton's child-process helper, with its watchdog) stops it too when the runner dies.
 *
 * This is a courtesy boundary, not a sandbox: a plugin is ordinary code running as you, and could spawn
 * processes by other means. The allowlist makes the honest path the easy one and the declaration visible.
 */
import { spawn, type ChildProcess, type IOType } from "node:child_process";
import type { ExecFn, ExecOptions, ExecResult } from "./types.ts";

/** A child leading its own process group; `signal` reaches the whole group. */
export interface GroupChild {
  readonly child: ChildProcess;
  signal(signal: NodeJS.Signals): boolean;
}

/** Starts a program in a process group of its own (the runner passes Baton's, which adds a watchdog). */
export type GroupSpawner = (program: string, args: readonly string[], options: { cwd: string; env: Record<string, string>; stdio: IOType[] }) => GroupChild;

/** Without Baton's spawner (outside a runner): a detached child, signalled as a group. */
const plainGroupSpawner: GroupSpawner = (program, args, options) => {
  const child = spawn(program, [...args], { ...options, detached: process.platform !== "win32" });
  return {
    child,
    signal(name) {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return false;
      try {
        process.kill(process.platform === "win32" ? child.pid : -child.pid, name);
        return true;
      } catch {
        return false;
      }
    },
  };
};

export const EXEC_DEFAULT_TIMEOUT_MS = 60_000;
export const EXEC_MAX_TIMEOUT_MS = 600_000;
export const EXEC_DEFAULT_OUTPUT_BYTES = 1024 * 1024;
export const EXEC_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
const KILL_GRACE_MS = 1_000;

export class ExecRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExecRefused";
  }
}

function clamp(value: number | undefined, fallback: number, max: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new ExecRefused(`exec: ${what} must be a positive number, got ${String(value)}`);
  return Math.min(value, max);
}

interface Capture {
  text: string;
  bytes: number;
  truncated: boolean;
}

function capture(max: number): Capture & { add(chunk: Buffer): void } {
  const decoder = new TextDecoder();
  const state = {
    text: "",
    bytes: 0,
    truncated: false,
    add(chunk: Buffer) {
      if (state.bytes >= max) {
        state.truncated = true;
        return;
      }
      const room = max - state.bytes;
      const piece = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
      if (piece !== chunk) state.truncated = true;
      state.bytes += piece.byteLength;
      state.text += decoder.decode(piece, { stream: true });
    },
  };
  return state;
}

/** An `exec` bound to a manifest's allowlist and the runner's environment. */
export function createExec(allowed: readonly string[], baseEnv: Readonly<Record<string, string>> = {}, defaultCwd?: string, groupSpawner: GroupSpawner = plainGroupSpawner): ExecFn {
  const allow = new Set(allowed);
  return (program, args, options: ExecOptions = {}) => {
    if (!allow.has(program)) {
      const declared = allowed.length === 0 ? "none" : allowed.join(", ");
      return Promise.reject(new ExecRefused(`exec: '${program}' is not declared in permissions.exec of this plugin's manifest (declared: ${declared})`));
    }
    let timeoutMs: number;
    let maxBytes: number;
    try {
      timeoutMs = clamp(options.timeoutMs, EXEC_DEFAULT_TIMEOUT_MS, EXEC_MAX_TIMEOUT_MS, "timeoutMs");
      maxBytes = clamp(options.maxOutputBytes, EXEC_DEFAULT_OUTPUT_BYTES, EXEC_MAX_OUTPUT_BYTES, "maxOutputBytes");
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<ExecResult>((resolve, reject) => {
      const spawnOptions = {
        cwd: options.cwd ?? defaultCwd ?? process.cwd(),
        env: { ...baseEnv, ...options.env },
        stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"] as IOType[],
      };
      let child: ChildProcess;
      let kill: (signal: NodeJS.Signals) => void;
      if (options.processGroup === true) {
        const group = groupSpawner(program, args, spawnOptions);
        child = group.child;
        kill = (name) => void group.signal(name);
        // The leader is gone: nothing it started may live on (and hold its output pipes open).
        child.once("exit", () => kill("SIGKILL"));
      } else {
        child = spawn(program, [...args], spawnOptions);
        kill = (name) => void child.kill(name);
      }
      const out = capture(maxBytes);
      const err = capture(maxBytes);
      let timedOut = false;
      let killTimer: ReturnType<typeof setTimeout> | undefined;
      const stop = (): void => {
        kill("SIGTERM");
        killTimer ??= setTimeout(() => kill("SIGKILL"), KILL_GRACE_MS);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, timeoutMs);
      const onAbort = (): void => stop();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (options.signal?.aborted === true) stop();
      child.stdout?.on("data", (chunk: Buffer) => out.add(chunk));
      child.stderr?.on("data", (chunk: Buffer) => err.add(chunk));
      if (options.input !== undefined && child.stdin) {
        child.stdin.on("error", () => undefined);
        child.stdin.end(options.input);
      }
      const finish = (): void => {
        clearTimeout(timer);
        if (killTimer !== undefined) clearTimeout(killTimer);
        options.signal?.removeEventListener("abort", onAbort);
      };
      child.once("error", (error) => {
        finish();
        reject(new ExecRefused(`exec: could not start '${program}': ${error.message}`));
      });
      child.once("close", (code, signal) => {
        finish();
        resolve({ code, signal, stdout: out.text, stderr: err.text, timedOut, truncated: out.truncated || err.truncated });
      });
    });
  };
}

let configured: ExecFn | undefined;

/** Called by the runner before the plugin loads, with the manifest's allowlist. */
export function configureExec(fn: ExecFn): void {
  configured = fn;
}

/** The module-level `exec` (same allowlist as `ctx.exec`); outside a runner it refuses everything. */
export const exec: ExecFn = (program, args, options) => {
  if (configured === undefined) return Promise.reject(new ExecRefused("exec is only available inside a Baton plugin runner"));
  return configured(program, args, options);
};
