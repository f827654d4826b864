/**
 * The screen's thread first (#18). On Linux the TUI process gives the runtime's background threads a lower
 * scheduling priority than the main thread, which reads keys, runs the Controller and draws frames: JavaScriptCore's
 * JIT compilers (`JITWorker`), the tree-sitter highlighter's worker (`Worker`, OpenTUI's) and mimalloc's scavenger.
 * On two cores those three, runnable at once during a streamed answer, kept the main thread waiting for a CPU 2–7 ms
 * at a time (bench/stall.ts, per-thread schedstat); lowered, they still run on any CPU the main thread leaves idle,
 * so nothing is lost on an idle machine. The garbage collector's helpers keep their priority (the main thread waits
 * for them), as do Bun's I/O pool threads.
 *
 * The runtime starts and ends these threads as it goes (a JIT thread idle for ~10 s exits, and a new one is made
 * by the thread that needs it, at its priority), so the table is scanned again every `intervalMs`: an id not seen
 * before is named (`/proc/self/task/<id>/comm`) and, if it is a helper, lowered with `setpriority(2)` — a thread's
 * own nice value on Linux; raising a priority needs a privilege, lowering one does not. Elsewhere (and where the
 * C library cannot be loaded) nothing changes; the reason is logged once.
 */
import fs from "node:fs";

export const HELPER_THREAD_NAMES: ReadonlySet<string> = new Set(["JITWorker", "Worker", "mi-scavenger"]);
/** Nice value of a lowered helper: a tenth of the main thread's CPU share when both want the same CPU. */
export const HELPER_NICE = 10;
export const HELPER_SCAN_MS = 1000;

/** This process's threads, as the operating system lists them. */
export interface ThreadTable {
  /** The ids of the threads alive now. */
  ids(): Promise<readonly number[]>;
  /** A thread's name; undefined when it has ended. */
  name(id: number): Promise<string | undefined>;
  /** Sets a thread's nice value; false when the system refused (or the thread has ended). */
  lower(id: number, nice: number): Promise<boolean>;
}

export interface HelperThreadOptions {
  /** The main thread's id (the process id on Linux): never lowered. */
  readonly mainId: number;
  readonly names?: ReadonlySet<string>;
  readonly nice?: number;
  readonly intervalMs?: number;
  /** Told once when the priorities cannot be changed here; scanning stops. */
  readonly onUnavailable: (reason: string) => void;
}

export class HelperThreads {
  /** Ids looked at, with their names; an id that disappears is forgotten (ids are reused). */
  private readonly seen = new Map<number, string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private scanning: Promise<void> | undefined;
  private stopped = false;
  private readonly names: ReadonlySet<string>;
  private readonly nice: number;

  constructor(
    private readonly table: ThreadTable,
    private readonly options: HelperThreadOptions,
  ) {
    this.names = options.names ?? HELPER_THREAD_NAMES;
    this.nice = options.nice ?? HELPER_NICE;
  }

  /** Scans now and then every `intervalMs` (an unref'd timer) until `stop()`. */
  start(): void {
    if (this.stopped || this.timer !== undefined) return;
    void this.scan();
    this.timer = setInterval(() => void this.scan(), this.options.intervalMs ?? HELPER_SCAN_MS);
    this.timer.unref?.();
  }

  /** Lowers the helpers not seen before. One scan at a time: a call during a scan waits for that one. */
  scan(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.scanning ??= this.scanOnce().finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async scanOnce(): Promise<void> {
    try {
      const ids = await this.table.ids();
      const alive = new Set(ids);
      for (const id of this.seen.keys()) if (!alive.has(id)) this.seen.delete(id);
      for (const id of ids) {
        if (id === this.options.mainId || this.seen.has(id)) continue;
        const name = await this.table.name(id);
        if (name === undefined || this.stopped) continue;
        if (this.names.has(name) && !(await this.table.lower(id, this.nice)) && (await this.table.name(id)) !== undefined) {
          throw new Error(`the system refused to lower the priority of thread ${id} (${name})`);
        }
        this.seen.set(id, name);
      }
    } catch (error) {
      this.stop();
      this.options.onUnavailable(error instanceof Error ? error.message : String(error));
    }
  }
}

const PRIO_PROCESS = 0;

/**
 * Linux's thread table: `/proc/self/task` read asynchronously, `setpriority(PRIO_PROCESS, tid, nice)` through the C
 * library (bun:ffi, loaded on first use). Undefined on other systems.
 */
export function linuxThreadTable(): ThreadTable | undefined {
  if (process.platform !== "linux") return undefined;
  let setpriority: Promise<(which: number, who: number, prio: number) => number> | undefined;
  return {
    ids: async () => (await fs.promises.readdir("/proc/self/task")).map(Number).filter(Number.isInteger),
    name: async (id) => {
      try {
        return (await fs.promises.readFile(`/proc/self/task/${id}/comm`, "latin1")).trim();
      } catch {
        return undefined;
      }
    },
    async lower(id, nice) {
      setpriority ??= loadSetpriority();
      return (await setpriority)(PRIO_PROCESS, id, nice) === 0;
    },
  };
}

async function loadSetpriority(): Promise<(which: number, who: number, prio: number) => number> {
  // Loaded lazily: bun:ffi is only needed once a helper thread is found.
  const { dlopen, FFIType } = await import("bun:ffi");
  const errors: string[] = [];
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      const lib = dlopen(name, { setpriority: { args: [FFIType.i32, FFIType.u32, FFIType.i32], returns: FFIType.i32 } });
      return (which, who, prio) => lib.symbols.setpriority(which, who, prio) as number;
    } catch (error) {
      errors.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`the C library could not be loaded (${errors.join("; ")})`);
}

/** From now until `stop()`, this process's helper threads run below its main thread (Linux); undefined elsewhere. */
export function lowerHelperThreads(onUnavailable: (reason: string) => void): HelperThreads | undefined {
  const table = linuxThreadTable();
  if (table === undefined) return undefined;
  const helpers = new HelperThreads(table, { mainId: process.pid, onUnavailable });
  helpers.start();
  return helpers;
}
