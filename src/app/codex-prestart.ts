/**
 * `baton exec`'s Codex prestart: the app-server is spawned in the first milliseconds of the process, before Baton's
 * own modules load, so that Codex's start (≈ 45–60 ms to its `initialize` answer) runs beside Baton's instead of
 * after it. Which process to start cannot be known yet (that takes the config, the registry and the target), so it
 * is the one the last such run started: a run whose session used the prelaunched Codex (src/app/harnesses.ts)
 * remembers its command in `$BATON_HOME/cache/codex-prestart.json` as it ends, keyed by the `--agent` it was given
 * (null: a new session's default agent); a run whose target is not a plain Codex launch forgets it. Only a launch in the user's own environment is remembered (no target `env`): the file holds a
 * command line, never an environment.
 *
 * - **Adopted only when exact.** The prelaunch takes the process only when its argv, cwd and whole environment are
 *   the ones it would start now (`take`); anything else — another config, another Codex, another directory — and
 *   the process is stopped, and Baton starts the right one as it would have without a prestart.
 * - **Never an orphan.** The caller that got it (src/app/start.ts) calls `discard()` before it exits, on every path:
 *   a process nobody took is stopped (stdin EOF, which ends an app-server at once; SIGKILL to its group after
 *   `EOF_GRACE_MS`) and reaped. Until it is taken it has no watchdog: a Baton killed in those milliseconds closes
 *   the app-server's stdin with its own death, and Codex exits on that EOF. Once taken, it is the prelaunch's
 *   (group, watchdog, stop sequence: src/rpc/child-process.ts).
 *
 * Node builtins and Bun only, like src/app/start-bundle.ts: it runs before anything else.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Subprocess } from "bun";
import { batonHome, childEnvAtEntry } from "./entry-env.ts";
import { EXEC_OPTIONS } from "./commands/exec-options.ts";

export const PRESTART_FORMAT = 1;
/** How long a process nobody took gets to exit on stdin EOF before its group is killed. */
const EOF_GRACE_MS = 2_000;

/** What `$BATON_HOME/cache/codex-prestart.json` holds. */
export interface PrestartMemo {
  readonly format: number;
  /** The `--agent` of the run that remembered it; null: none given (a new session's default agent). */
  readonly agent: string | null;
  /** The app-server command it started. */
  readonly argv: readonly string[];
}

export interface PrestartLaunch {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

export type PrestartedProcess = Subprocess<"pipe", "pipe", "pipe">;

export interface CodexPrestart {
  /** The `--agent` this run names (null: none, a new session). */
  readonly agent: string | null;
  /** The process, when it was started with exactly `launch`; handed over once (the caller then owns it). */
  take(launch: PrestartLaunch): PrestartedProcess | undefined;
  /** Remember the app-server command this run starts for its agent, or (undefined) that it starts none to remember. */
  remember(argv: readonly string[] | undefined): void;
  /** Stop and reap the process unless it was taken; the same promise every time. */
  discard(): Promise<void>;
}

export function memoPath(home: string): string {
  return path.join(home, "cache", "codex-prestart.json");
}

export function readPrestartMemo(file: string): PrestartMemo | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<PrestartMemo> | null;
    if (value === null || typeof value !== "object" || value.format !== PRESTART_FORMAT) return undefined;
    if (value.agent !== null && typeof value.agent !== "string") return undefined;
    const argv = value.argv;
    if (!Array.isArray(argv) || argv.length === 0 || !argv.every((part): part is string => typeof part === "string")) return undefined;
    return { format: PRESTART_FORMAT, agent: value.agent, argv };
  } catch {
    return undefined;
  }
}

/**
 * The prestart of this process's command line: undefined unless it is `baton exec` with a known target (an
 * `--agent`, or a new session). The app-server is spawned now when the memo names one for the same agent.
 */
export function prestartCodex(argv: readonly string[], processEnv: Readonly<Record<string, string | undefined>>, processCwd: string): CodexPrestart | undefined {
  if (argv[0] !== "exec") return undefined;
  let values: { agent?: string | undefined; cwd?: string | undefined; session?: string | undefined; continue?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args: argv.slice(1), options: EXEC_OPTIONS, allowPositionals: true, strict: true }));
  } catch {
    return undefined; // exec's own parse says what is wrong
  }
  const agent = values.agent ?? null;
  if (agent === null && (values.session !== undefined || values.continue === true)) return undefined;
  const env = childEnvAtEntry(processEnv, processCwd);
  const file = memoPath(batonHome(env, undefined, processCwd));
  const memo = readPrestartMemo(file);
  let launched: (PrestartLaunch & { readonly child: PrestartedProcess }) | undefined;
  if (memo !== undefined && memo.agent === agent) {
    try {
      const cwd = fs.realpathSync(path.resolve(processCwd, values.cwd ?? "."));
      const child = Bun.spawn([...memo.argv], { cwd, env: { ...env }, stdio: ["pipe", "pipe", "pipe"], detached: process.platform !== "win32", windowsHide: true });
      launched = { argv: memo.argv, cwd, env, child };
    } catch {
      launched = undefined; // gone or not runnable: the prelaunch starts (and reports) what the config says
    }
  }
  let taken = false;
  let discarded: Promise<void> | undefined;
  return {
    agent,
    take(launch) {
      if (launched === undefined || taken || discarded !== undefined || !sameLaunch(launched, launch)) return undefined;
      taken = true;
      return launched.child;
    },
    remember(next) {
      if (next === undefined ? memo === undefined || memo.agent !== agent : memo !== undefined && memo.agent === agent && sameArgv(memo.argv, next)) return;
      try {
        if (next === undefined) fs.rmSync(file, { force: true });
        else writeMemo(file, { format: PRESTART_FORMAT, agent, argv: next });
      } catch {
        // A cache: the next run starts Codex where it always did.
      }
    },
    discard() {
      discarded ??= launched === undefined || taken ? Promise.resolve() : stop(launched.child);
      return discarded;
    },
  };
}

function writeMemo(file: string, memo: PrestartMemo): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(memo)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

async function stop(child: PrestartedProcess): Promise<void> {
  try {
    void Promise.resolve(child.stdin.end()).catch(() => undefined);
  } catch {
    // already closed
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graced = await Promise.race([child.exited.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), EOF_GRACE_MS)))]);
  clearTimeout(timer);
  if (graced) return;
  try {
    if (process.platform === "win32") child.kill("SIGKILL");
    else process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
  await child.exited;
}

function sameArgv(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

function sameLaunch(a: PrestartLaunch, b: PrestartLaunch): boolean {
  if (a.cwd !== b.cwd || !sameArgv(a.argv, b.argv)) return false;
  const keys = Object.keys(a.env);
  return keys.length === Object.keys(b.env).length && keys.every((key) => Object.hasOwn(b.env, key) && a.env[key] === b.env[key]);
}
