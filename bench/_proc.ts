/** Process readings for benches (Linux /proc). */
import * as fs from "node:fs";

/** On-CPU nanoseconds of this process's threads (`/proc/<pid>/task/<tid>/schedstat`): the main thread's, and all of them; NaN off Linux. */
export function threadCpu(): { readonly main: number; readonly all: number } {
  try {
    const main = Number(fs.readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]);
    let all = 0;
    for (const task of fs.readdirSync("/proc/self/task")) {
      try {
        all += Number(fs.readFileSync(`/proc/self/task/${task}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // the thread ended
      }
    }
    return { main, all };
  } catch {
    return { main: NaN, all: NaN }; // not Linux
  }
}

/**
 * Which start `main` (a checkout's src/app/main.ts) runs now: "bundle", or "sources (why)". A checkout whose
 * dist/ is older than its sources runs its sources (docs/start.md), so an A/B against it would compare a bundle
 * with sources: the benches print this beside each side.
 */
export function startOf(main: string): string {
  const child = Bun.spawnSync([process.execPath, main, "--version"], { env: { ...process.env, BATON_DEBUG_START: "1" }, stdout: "ignore", stderr: "pipe" });
  const said = /baton: start: (bundle|sources.*)/.exec(child.stderr.toString())?.[1];
  if (said === undefined) return `unknown (${main} --version said nothing of its start)`;
  return said.startsWith("bundle") ? "bundle" : said;
}
