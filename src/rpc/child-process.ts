/**
 * A child process Baton owns (a harness, its probe, inspector or text generator), started so that only Baton
 * decides what the terminal's signals mean and so that it never outlives Baton:
 *
 * - **Own session and process group** (`setsid`). The terminal's Ctrl+C (SIGINT) and hangup (SIGHUP) go to the
 *   foreground process group; the child is not in it, so they reach Baton only, which turns them into a
 *   cancelled turn or its normal shutdown. The child has no controlling terminal either, so nothing it runs can
 *   read the user's keystrokes.
 * - **A watchdog** that needs no cooperation from Baton: a tiny `sh` in a session of its own whose stdin is a
 *   pipe only Baton holds open. When Baton dies in any way (kill -9, crash, an exit that forgot a child) the
 *   kernel closes the pipe, `read` returns, and the watchdog stops the child's whole group: SIGTERM, up to 1 s,
 *   SIGKILL. A terminal hangup that kills Baton is covered the same way.
 * - **Signals go to the whole group**, so what the agent started (a shell command, a test run) stops with it.
 * - **Stop** closes stdin, waits for a clean exit, then signals the group (TERM, then KILL) and resolves once the
 *   child has been reaped. When the child has exited, whatever it left in its group is killed and the watchdog is
 *   let go.
 *
 * Two ways in: `spawnChild` (Node's child_process: its stdio as Node streams, any number of pipes) and `spawnPiped`
 * (Bun.spawn: stdin a FileSink, stdout and stderr web streams). Node builds its stream machinery at the first spawn
 * with pipes, ≈ 15–20 ms that `baton exec` paid before Codex could start (#18); a JSON-lines child on its stdio
 * needs none of it. Both share the lifecycle below, and the watchdog is always started with Bun.spawn.
 */
import type { ChildProcess, IOType } from "node:child_process";
import { createRequire } from "node:module";
import type { FileSink, Subprocess } from "bun";

export interface ChildExit {
  readonly code: number | null;
  readonly signal: string | null;
  /** Set when the process could not be started at all. */
  readonly error?: string;
  /** The errno code of a start failure (ENOENT, EACCES, …). */
  readonly errorCode?: string;
}

export interface ChildSpawnOptions {
  readonly cwd?: string;
  /** The child's complete environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** stdin, stdout, stderr, then any extra pipes (fd 3, 4, …). */
  readonly stdio?: readonly IOType[];
  /**
   * Run nothing until the watchdog watches (a plugin's `processGroup` exec, whose command may start children at
   * once): a tiny `sh` gate waits on one more pipe, opened once the watchdog is up, then execs the program (same
   * pid). If the owner dies first, the gate reads EOF and exits. A program not on PATH is spawned as is (same error).
   */
  readonly armFirst?: boolean;
}

export interface StopOptions {
  /** After closing stdin, how long the child may take to exit by itself before it is signalled (default 0). */
  readonly eofGraceMs?: number;
  /** After SIGTERM, how long before SIGKILL (default 1000). */
  readonly termGraceMs?: number;
}

export interface ChildHandle {
  readonly pid: number | undefined;
  /** The Node child process (its stdio streams, events). Signal it through the handle, never directly. */
  readonly child: ChildProcess;
  /** Resolves once the child has exited and been reaped (or could not start). Never rejects. */
  readonly exited: Promise<ChildExit>;
  exitInfo(): ChildExit | undefined;
  /** Send `signal` to the child's whole process group. False when it has already exited. */
  signal(signal: NodeJS.Signals): boolean;
  /** Stop the child (see the module doc); resolves with its exit once it is reaped. */
  stop(options?: StopOptions): Promise<ChildExit>;
}

/**
 * The watchdog: `$1` is the process group (and the pid of its leader) to stop once stdin reaches EOF. It waits for
 * the leader to be gone — on Linux a zombie counts as gone, since an orphan is reaped only when init gets to it —
 * then KILLs whatever is left of the group.
 */
const WATCHDOG_SCRIPT = [
  "trap '' INT HUP TERM QUIT PIPE",
  "gone() {",
  "  if [ -d /proc/self ]; then",
  '    { read -r s < "/proc/$1/stat"; } 2>/dev/null || return 0',
  '    s=${s##*) }',
  '    case "$s" in Z*|X*|"") return 0;; esac',
  "    return 1",
  "  fi",
  '  ! kill -s 0 -- "-$1" 2>/dev/null',
  "}",
  "while read -r _; do :; done",
  'kill -s TERM -- "-$1" 2>/dev/null || exit 0',
  "n=0",
  'while [ "$n" -lt 10 ] && ! gone "$1"; do sleep 0.1; n=$((n+1)); done',
  'kill -s KILL -- "-$1" 2>/dev/null',
  "exit 0",
].join("\n");

const GROUPS = process.platform !== "win32";
const REAP_LIMIT_MS = 2_000;

/** Node's child_process, loaded by the first `spawnChild` (not by a run that only uses `spawnPiped`). */
const requireHere = createRequire(import.meta.url);
const nodeSpawn = (): typeof import("node:child_process").spawn => (requireHere("node:child_process") as typeof import("node:child_process")).spawn;

interface Watchdog {
  readonly process: Subprocess;
  /** Its stdin, the liveness signal: held here, so it is closed only when Baton is gone. */
  readonly pipe: FileSink;
}

/** Watchdogs of live children: referenced here so their stdin pipe (the liveness signal) is never collected. */
const watchdogs = new Set<Watchdog>();

function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number): Promise<false> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref?.();
  });
}

/**
 * The exit, or undefined when the child is still running after `ms`. A real timer (not the clock port: it bounds
 * an OS effect, not domain time) that never holds Baton's exit up.
 */
export function exitWithin(exited: Promise<ChildExit>, ms: number): Promise<ChildExit | undefined> {
  return Promise.race([exited, sleep(ms).then(() => undefined)]);
}

/** Send a signal to a whole process group; false when no member is left. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function startWatchdog(pgid: number): Watchdog | undefined {
  try {
    const child = Bun.spawn(["/bin/sh", "-c", WATCHDOG_SCRIPT, "baton-watchdog", String(pgid)], { stdio: ["pipe", "ignore", "ignore"], detached: true });
    const watchdog: Watchdog = { process: child, pipe: child.stdin };
    watchdogs.add(watchdog);
    void child.exited.then(() => watchdogs.delete(watchdog));
    // Baton's own exit is never held up by a watchdog: when Baton goes, the watchdog's work starts.
    child.unref();
    watchdog.pipe.unref();
    return watchdog;
  } catch {
    return undefined;
  }
}

function stopWatchdog(watchdog: Watchdog | undefined): void {
  if (watchdog === undefined) return;
  watchdog.process.kill("SIGKILL");
  watchdogs.delete(watchdog);
}

/** What the shared lifecycle needs of a started process, whichever API started it. */
interface Started {
  readonly pid: number | undefined;
  /** The exit once the process is reaped, or the start failure; never rejects. */
  readonly exit: Promise<ChildExit>;
  /** Signal the process itself (when its group is gone or there are no groups). */
  kill(signal: NodeJS.Signals): boolean;
  closeStdin(): void;
}

type Lifecycle = Pick<ChildHandle, "exited" | "exitInfo" | "signal" | "stop">;

/** Group signals, the watchdog, the reap of what the leader left, and the stop sequence (see the module doc). */
function lifecycle(started: Started): Lifecycle {
  const { pid } = started;
  const watchdog = GROUPS && pid !== undefined ? startWatchdog(pid) : undefined;
  let exit: ChildExit | undefined;
  const exited = started.exit.then((result) => {
    exit = result;
    // The leader is reaped: nothing of its group may outlive it, and its watchdog can go.
    if (GROUPS && pid !== undefined && result.error === undefined) signalGroup(pid, "SIGKILL");
    stopWatchdog(watchdog);
    return result;
  });
  const signal = (name: NodeJS.Signals): boolean => {
    if (exit !== undefined || pid === undefined) return false;
    if (GROUPS && signalGroup(pid, name)) return true;
    return started.kill(name);
  };
  const within = (ms: number): Promise<boolean> => Promise.race([exited.then(() => true), sleep(ms)]);
  return {
    exited,
    exitInfo: () => exit,
    signal,
    async stop(stopOptions = {}) {
      if (exit !== undefined) return exit;
      started.closeStdin();
      const eofGraceMs = stopOptions.eofGraceMs ?? 0;
      if (eofGraceMs > 0 && (await within(eofGraceMs))) return exited;
      signal("SIGTERM");
      if (await within(stopOptions.termGraceMs ?? 1_000)) return exited;
      signal("SIGKILL");
      await within(REAP_LIMIT_MS);
      return exit ?? { code: null, signal: "SIGKILL" };
    },
  };
}

/** Baton's own environment as a complete child environment (the user's login and settings; unset keys dropped). */
export function inheritedEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) out[key] = value;
  return out;
}

/** The gate of `armFirst`: `$0 "$@"` runs once a line arrives on fd `gate`, never on EOF. */
function gateScript(gate: number): string {
  return `IFS= read -r _ <&${gate} || exit 125; exec "$0" "$@" ${gate}<&-`;
}

export function spawnChild(file: string, args: readonly string[], options: ChildSpawnOptions): ChildHandle {
  const stdio = [...(options.stdio ?? ["pipe", "pipe", "pipe"])];
  const gate = GROUPS && options.armFirst === true && Bun.which(file, { PATH: options.env["PATH"] ?? "", ...(options.cwd === undefined ? {} : { cwd: options.cwd }) }) !== null ? stdio.length : undefined;
  const child = nodeSpawn()(gate === undefined ? file : "/bin/sh", gate === undefined ? [...args] : ["-c", gateScript(gate), file, ...args], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { ...options.env },
    stdio: gate === undefined ? stdio : [...stdio, "pipe"],
    detached: GROUPS,
    windowsHide: true,
  });
  const pid = child.pid;
  const exit = new Promise<ChildExit>((resolve) => {
    child.on("error", (error) => {
      // An error after a successful start (a failed kill) is not an exit; the 'exit' event still comes.
      if (pid !== undefined && child.exitCode === null && child.signalCode === null) return;
      const code = errnoOf(error);
      resolve({ code: null, signal: null, error: describeFailure(error), ...(code === undefined ? {} : { errorCode: code }) });
    });
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  child.stdin?.on("error", () => undefined);
  const life = lifecycle({
    pid,
    exit,
    kill(name) {
      try {
        return child.kill(name);
      } catch {
        return false;
      }
    },
    closeStdin() {
      if (child.stdin && !child.stdin.destroyed) child.stdin.end();
    },
  });
  // The watchdog is up (lifecycle started it): now the gated program may run.
  if (gate !== undefined) {
    const pipe = child.stdio[gate] as NodeJS.WritableStream & { on(event: "error", listener: () => void): unknown };
    pipe.on("error", () => undefined);
    pipe.end("go\n");
  }
  return { pid, child, ...life };
}

export interface PipedChild extends Lifecycle {
  readonly pid: number | undefined;
  /** Undefined when the process did not start, or with `stdin: "ignore"`. */
  readonly stdin: FileSink | undefined;
  readonly stdout: ReadableStream<Uint8Array> | undefined;
  readonly stderr: ReadableStream<Uint8Array> | undefined;
}

/** A child already spawned through Bun.spawn with all three stdio piped and in a group of its own (`detached`), for `spawnPiped` to adopt. */
export type StartedProcess = Subprocess<"pipe", "pipe", "pipe">;

/**
 * `spawnChild` through Bun.spawn: stdout and stderr piped, stdin piped or not (see the module doc). `started`: the
 * same launch, spawned earlier by its caller, whose lifecycle (group, watchdog, reap) starts here.
 */
export function spawnPiped(
  file: string,
  args: readonly string[],
  options: { readonly cwd?: string; readonly env: Readonly<Record<string, string | undefined>>; readonly stdin: "pipe" | "ignore"; readonly started?: StartedProcess },
): PipedChild {
  let child: Subprocess<"pipe" | "ignore", "pipe", "pipe">;
  try {
    child = options.started ?? Bun.spawn([file, ...args], {
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      env: { ...options.env },
      stdio: [options.stdin, "pipe", "pipe"],
      detached: GROUPS,
      windowsHide: true,
    });
  } catch (error) {
    // Bun says at once what Node reports in an 'error' event (ENOENT, EACCES, a missing cwd): the same exit.
    const code = errnoOf(error);
    const failed: ChildExit = { code: null, signal: null, error: describeFailure(error), ...(code === undefined ? {} : { errorCode: code }) };
    return { pid: undefined, stdin: undefined, stdout: undefined, stderr: undefined, ...lifecycle({ pid: undefined, exit: Promise.resolve(failed), kill: () => false, closeStdin: () => undefined }) };
  }
  const stdin = options.stdin === "pipe" ? (child.stdin as FileSink) : undefined;
  const exit = child.exited.then((): ChildExit => (child.signalCode === null ? { code: child.exitCode, signal: null } : { code: null, signal: String(child.signalCode) }));
  const life = lifecycle({
    pid: child.pid,
    exit,
    kill(name) {
      try {
        child.kill(name);
        return true;
      } catch {
        return false;
      }
    },
    closeStdin() {
      endSink(stdin);
    },
  });
  return { pid: child.pid, stdin, stdout: child.stdout, stderr: child.stderr, ...life };
}

/** End a FileSink; a peer already gone (EPIPE) is not an error here. */
export function endSink(sink: FileSink | undefined): void {
  if (sink === undefined) return;
  try {
    void Promise.resolve(sink.end()).catch(() => undefined);
  } catch {
    // already closed
  }
}
