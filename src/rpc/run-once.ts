/** A short-lived child run to completion (`<agent> --version`): own process group, bounded output and time. */
import { spawnChild, type ChildExit } from "./child-process.ts";

export interface RunOnceResult {
  readonly exit: ChildExit;
  /** At most `maxOutputChars` of stdout. */
  readonly stdout: string;
  /** At most `maxOutputChars` of stderr (what a failing program said). */
  readonly stderr: string;
  readonly timedOut: boolean;
}

export interface RunOnceOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
  readonly maxOutputChars?: number;
}

/** Never rejects: a program that cannot start resolves with `exit.error` set. */
export function runOnce(file: string, args: readonly string[], options: RunOnceOptions): Promise<RunOnceResult> {
  const handle = spawnChild(file, args, { env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  const limit = options.maxOutputChars ?? 64 * 1024;
  let stdout = "";
  let stderr = "";
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    handle.signal("SIGKILL");
  }, options.timeoutMs);
  handle.child.stdout?.setEncoding("utf8");
  handle.child.stdout?.on("data", (data: string) => (stdout = (stdout + data).slice(0, limit)));
  handle.child.stderr?.setEncoding("utf8");
  handle.child.stderr?.on("data", (data: string) => (stderr = (stderr + data).slice(0, limit)));
  // 'close' comes once stdout is drained too; a start failure has no close to wait for.
  const closed = new Promise<void>((resolve) => handle.child.once("close", () => resolve()));
  return handle.exited.then(async (exit) => {
    if (exit.error === undefined) await closed;
    clearTimeout(timer);
    return { exit, stdout, stderr, timedOut };
  });
}
