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
