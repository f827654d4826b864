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
 */
import { spawn, type ChildProcess, type IOType } from "node:child_process";

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

/** Watchdogs of live children: referenced here so their stdin pipe (the liveness signal) is never collected. */
const watchdogs = new Set<ChildProcess>();

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

function startWatchdog(pgid: number): ChildProcess | undefined {
  try {
    const watchdog = spawn("/bin/sh", ["-c", WATCHDOG_SCRIPT, "baton-watchdog", String(pgid)], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    watchdog.once("error", () => watchdogs.delete(watchdog));
    watchdog.once("exit", () => watchdogs.delete(watchdog));
    watchdog.stdin?.on("error", () => undefined);
    watchdogs.add(watchdog);
    // Baton's own exit is never held up by a watchdog: when Baton goes, the watchdog's work starts.
    watchdog.unref();
    return watchdog;
  } catch {
    return undefined;
  }
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
  const child = spawn(gate === undefined ? file : "/bin/sh", gate === undefined ? [...args] : ["-c", gateScript(gate), file, ...args], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { ...options.env },
    stdio: gate === undefined ? stdio : [...stdio, "pipe"],
    detached: GROUPS,
    windowsHide: true,
  });
  const pid = child.pid;
  const watchdog = GROUPS && pid !== undefined ? startWatchdog(pid) : undefined;
  if (gate !== undefined) {
    const pipe = child.stdio[gate] as NodeJS.WritableStream & { on(event: "error", listener: () => void): unknown };
    pipe.on("error", () => undefined);
    pipe.end("go\n");
  }
  let exit: ChildExit | undefined;
  const exited = new Promise<ChildExit>((resolve) => {
    child.on("error", (error) => {
      if (exit !== undefined) return;
      // An error after a successful start (a failed kill) is not an exit; the 'exit' event still comes.
      if (pid !== undefined && child.exitCode === null && child.signalCode === null) return;
      const code = errnoOf(error);
      exit = { code: null, signal: null, error: describeFailure(error), ...(code === undefined ? {} : { errorCode: code }) };
      resolve(exit);
    });
    child.once("exit", (code, signal) => {
      exit ??= { code, signal };
      // The leader is reaped: nothing of its group may outlive it, and its watchdog can go.
      if (GROUPS && pid !== undefined) signalGroup(pid, "SIGKILL");
      if (watchdog !== undefined) {
        watchdog.kill("SIGKILL");
        watchdogs.delete(watchdog);
      }
      resolve(exit);
    });
  });
  child.stdin?.on("error", () => undefined);

  const signal = (name: NodeJS.Signals): boolean => {
    if (exit !== undefined || pid === undefined) return false;
    if (GROUPS && signalGroup(pid, name)) return true;
    try {
      return child.kill(name);
    } catch {
      return false;
    }
  };
  const within = (ms: number): Promise<boolean> => Promise.race([exited.then(() => true), sleep(ms)]);

  return {
    pid,
    child,
    exited,
    exitInfo: () => exit,
    signal,
    async stop(stopOptions = {}) {
      if (exit !== undefined) return exit;
      if (child.stdin && !child.stdin.destroyed) child.stdin.end();
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
