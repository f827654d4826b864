/**
 * The runtime's helper threads run below the TUI's main thread (#18, src/app/helper-threads.ts): which threads are
 * lowered, once each, again when an id comes back as another thread, and what happens when the system refuses. The
 * last test lowers a real thread of this process through the C library and reads its nice value back from /proc.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { HELPER_NICE, HelperThreads, linuxThreadTable, type ThreadTable } from "../../src/app/helper-threads.ts";

class FakeTable implements ThreadTable {
  threads = new Map<number, string>();
  readonly lowered: number[] = [];
  refuse = new Set<number>();
  async ids(): Promise<readonly number[]> {
    return [...this.threads.keys()];
  }
  async name(id: number): Promise<string | undefined> {
    return this.threads.get(id);
  }
  async lower(id: number, nice: number): Promise<boolean> {
    expect(nice).toBe(HELPER_NICE);
    if (this.refuse.has(id)) return false;
    this.lowered.push(id);
    return true;
  }
}

function helpersOver(table: FakeTable, unavailable: string[] = []): HelperThreads {
  return new HelperThreads(table, { mainId: 1, onUnavailable: (reason) => unavailable.push(reason) });
}

describe("HelperThreads", () => {
  test("lowers the JIT compilers, the tree-sitter worker and the scavenger, never the main thread, the GC's helpers or the I/O pool", async () => {
    const table = new FakeTable();
    table.threads = new Map([
      [1, "JITWorker"],
      [2, "JITWorker"],
      [3, "mi-scavenger"],
      [4, "HeapHelper"],
      [5, "Worker"],
      [6, "Bun Pool 0"],
      [7, "t Helper Thread"],
    ]);
    const helpers = helpersOver(table);
    await helpers.scan();
    expect(table.lowered.sort()).toEqual([2, 3, 5]);
    await helpers.scan();
    expect(table.lowered).toHaveLength(3);
  });

  test("a thread started later is lowered at the next scan; an id that comes back as another thread is looked at again", async () => {
    const table = new FakeTable();
    table.threads = new Map([[10, "HeapHelper"]]);
    const helpers = helpersOver(table);
    await helpers.scan();
    expect(table.lowered).toEqual([]);
    table.threads.delete(10);
    await helpers.scan();
    table.threads.set(10, "JITWorker");
    table.threads.set(11, "JITWorker");
    await helpers.scan();
    expect(table.lowered.sort()).toEqual([10, 11]);
  });

  test("two scans at once look at each thread once", async () => {
    const table = new FakeTable();
    table.threads = new Map([[2, "JITWorker"]]);
    const helpers = helpersOver(table);
    await Promise.all([helpers.scan(), helpers.scan()]);
    expect(table.lowered).toEqual([2]);
  });

  test("a refusal for a live thread is told once and scanning stops; one for a thread that just ended is not a refusal", async () => {
    const table = new FakeTable();
    const unavailable: string[] = [];
    table.threads = new Map([[2, "JITWorker"]]);
    table.refuse.add(2);
    // The thread ends between the listing and the call: lower() fails, and it is gone when asked again.
    const ending = new (class extends FakeTable {
      override async lower(id: number): Promise<boolean> {
        this.threads.delete(id);
        return false;
      }
    })();
    ending.threads = new Map([[3, "Worker"]]);
    const fine: string[] = [];
    await helpersOver(ending, fine).scan();
    expect(fine).toEqual([]);

    const helpers = helpersOver(table, unavailable);
    await helpers.scan();
    expect(unavailable).toEqual(["the system refused to lower the priority of thread 2 (JITWorker)"]);
    table.refuse.clear();
    table.threads.set(4, "Worker");
    await helpers.scan();
    expect(table.lowered).toEqual([]);
    expect(unavailable).toHaveLength(1);
  });

  test("a table that cannot be read is told once and scanning stops", async () => {
    const unavailable: string[] = [];
    const broken: ThreadTable = {
      ids: () => Promise.reject(new Error("ENOENT: /proc/self/task")),
      name: async () => undefined,
      lower: async () => true,
    };
    const helpers = new HelperThreads(broken, { mainId: 1, onUnavailable: (reason) => unavailable.push(reason) });
    await helpers.scan();
    await helpers.scan();
    expect(unavailable).toEqual(["ENOENT: /proc/self/task"]);
  });
});

describe.if(process.platform === "linux")("linuxThreadTable", () => {
  /** Field 19 of /proc/<pid>/task/<id>/stat: the thread's nice value. */
  function niceOf(id: number): number {
    const stat = readFileSync(`/proc/self/task/${id}/stat`, "latin1");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
  }

  test("lowers a real thread of this process and leaves the main thread as it was", async () => {
    const table = linuxThreadTable() as ThreadTable;
    const worker = new Worker(URL.createObjectURL(new Blob(["setInterval(() => {}, 1000);"], { type: "application/javascript" })));
    try {
      await Bun.sleep(50);
      const before = readdirSync("/proc/self/task").map(Number);
      const ids = await table.ids();
      expect([...ids].sort()).toEqual(before.sort());
      const workers: number[] = [];
      for (const id of ids) if ((await table.name(id)) === "Worker" && niceOf(id) === 0) workers.push(id);
      expect(workers.length).toBeGreaterThan(0);
      const helpers = new HelperThreads(table, { mainId: process.pid, names: new Set(["Worker"]), onUnavailable: (reason) => expect(reason).toBeUndefined() });
      await helpers.scan();
      for (const id of workers) expect(niceOf(id)).toBe(HELPER_NICE);
      expect(niceOf(process.pid)).toBe(0);
      expect(await table.name(2 ** 30)).toBeUndefined();
    } finally {
      worker.terminate();
    }
  });
});
