/**
 * What Baton's entry knows before the rest of it loads: where its data lives (`BATON_HOME`, default `~/.baton`) and
 * the environment its child processes get. Node builtins only: the Codex prestart (codex-prestart.ts) runs first.
 */
import os from "node:os";
import path from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

/** bin/baton.cjs names itself here; Baton takes it out of its environment at start (process-io.ts), so no child sees it. */
export const LAUNCHER_PID_ENV = "BATON_LAUNCHER_PID";

export function batonHome(env: Env, override?: string, cwd: string = process.cwd()): string {
  const chosen = override ?? env["BATON_HOME"];
  if (chosen && chosen.length > 0) return path.resolve(cwd, chosen);
  return path.join(env["HOME"] ?? os.homedir(), ".baton");
}

/** `env` with a relative BATON_HOME resolved against `cwd` (what every command and child process then sees). */
export function resolvedHomeEnv<T extends Env>(env: T, cwd: string): T {
  const given = env["BATON_HOME"];
  if (given === undefined || given === "" || path.isAbsolute(given)) return env;
  return { ...env, BATON_HOME: path.resolve(cwd, given) };
}

/** The environment a child of this process gets, computed at entry: every set variable but the launcher's pid, BATON_HOME absolute. */
export function childEnvAtEntry(env: Env, cwd: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(resolvedHomeEnv(env, cwd))) if (value !== undefined && key !== LAUNCHER_PID_ENV) out[key] = value;
  return out;
}
