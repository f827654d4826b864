/**
 * Who had the CPUs during a main-thread gap (issue #18): every thread of this process, from Linux's
 * `/proc/self/task/<tid>/schedstat` (ns on a CPU). A gap where the main thread waited for a CPU is Baton's when its
 * own other threads (JSC's GC helpers and JIT compilers, the tree-sitter worker) held the CPUs, and the machine's
 * when they did not.
 *
 * `sample()` reads every thread (≈ 20 files, tens of µs; the thread list again every 16th call): call it at each
 * tick of the gap probe. `open()` is undefined where the files are not (not Linux).
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";

export interface ThreadSample {
  /** ns on a CPU per thread id. */
  readonly run: ReadonlyMap<number, number>;
}

export interface GapThreads {
  /** ms on a CPU during the gap by thread name (main thread as `main`), largest first. */
  readonly byThread: readonly (readonly [string, number])[];
}

const buffer = Buffer.alloc(256);

function readAt(fd: number): string {
  const n = readSync(fd, buffer, 0, buffer.length, 0);
  return buffer.toString("latin1", 0, n);
}

export class ThreadAccounting {
  private readonly fds = new Map<number, number>();
  private readonly names = new Map<number, string>();
  private readonly mainTid = process.pid;
  private samples = 0;

  static open(): ThreadAccounting | undefined {
    try {
      readdirSync("/proc/self/task");
      return new ThreadAccounting();
    } catch {
      return undefined;
    }
  }

  private refresh(): void {
    for (const entry of readdirSync("/proc/self/task")) {
      const tid = Number(entry);
      if (this.fds.has(tid)) continue;
      try {
        this.fds.set(tid, openSync(`/proc/self/task/${tid}/schedstat`, "r"));
        const comm = readFileSync(`/proc/self/task/${tid}/comm`, "latin1").trim();
        this.names.set(tid, tid === this.mainTid ? "main" : comm);
      } catch {
        // The thread ended between the listing and the open.
      }
    }
  }

  /** Every thread's CPU time now. Lists the threads again every 16th call (they come and go: JSC's helpers). */
  sample(): ThreadSample {
    if (this.samples++ % 16 === 0) this.refresh();
    const run = new Map<number, number>();
    for (const [tid, fd] of this.fds) {
      try {
        run.set(tid, Number(readAt(fd).split(" ")[0]));
      } catch {
        closeSync(fd);
        this.fds.delete(tid);
      }
    }
    return { run };
  }

  /** What each thread ran between two samples, by name (threads of one name summed), ms, largest first. */
  between(before: ThreadSample, after: ThreadSample): GapThreads {
    const byName = new Map<string, number>();
    for (const [tid, ns] of after.run) {
      const ran = (ns - (before.run.get(tid) ?? ns)) / 1e6;
      if (ran <= 0) continue;
      const name = this.names.get(tid) ?? String(tid);
      byName.set(name, (byName.get(name) ?? 0) + ran);
    }
    return { byThread: [...byName].sort((a, b) => b[1] - a[1]) };
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

/** `main 4.1, HeapHelper 2.0, …` (ms, the threads that ran over 0.1 ms). */
export function describeThreads(threads: GapThreads): string {
  return threads.byThread
    .filter(([, ms]) => ms >= 0.1)
    .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
    .join(", ");
}
