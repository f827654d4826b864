/**
 * REC-02 as given/when/then: the keyed queue deduplicates pending keys, turns any number of triggers during
 * a run into exactly one follow-up, keeps per-controller concurrency under a round-robin Manager capacity,
 * drains past a failure, and on close drops pending work while running work settles.
 */
import { describe, expect, test } from "bun:test";
import { FairCapacity, KeyedQueue } from "../../src/plugin/resources/keyed-queue.ts";

/** A run that waits until the test releases it, recording starts and ends. */
function gated() {
  const log: string[] = [];
  const gates = new Map<string, (() => void)[]>();
  const run = (key: string) =>
    new Promise<void>((resolve) => {
      log.push(`start ${key}`);
      gates.set(key, [...(gates.get(key) ?? []), () => (log.push(`end ${key}`), resolve())]);
    });
  const release = async (key: string) => {
    const list = gates.get(key) ?? [];
    const next = list.shift();
    if (next === undefined) throw new Error(`${key} is not running`);
    next();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { log, run, release };
}

const tick = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe("REC-02 keyed queue", () => {
  test("given one running key, when it is triggered five times, then exactly one follow-up runs", async () => {
    const g = gated();
    const q = new KeyedQueue({ owner: "c", concurrency: 1, run: g.run, onError: () => undefined });
    q.enqueue("a");
    await tick();
    for (let i = 0; i < 5; i++) q.enqueue("a");
    await g.release("a");
    await g.release("a");
    await q.idle();
    expect(g.log).toEqual(["start a", "end a", "start a", "end a"]);
  });

  test("given a pending key, when it is triggered again, then it runs once", async () => {
    const g = gated();
    const q = new KeyedQueue({ owner: "c", concurrency: 1, run: g.run, onError: () => undefined });
    q.enqueue("a");
    q.enqueue("b");
    q.enqueue("b");
    q.enqueue("b");
    await g.release("a");
    await g.release("b");
    await q.idle();
    expect(g.log).toEqual(["start a", "end a", "start b", "end b"]);
  });

  test.each([
    [1, ["start a"]],
    [2, ["start a", "start b"]],
  ])("given concurrency %d, when three keys are queued, then %j start at once", async (concurrency, started) => {
    const g = gated();
    const q = new KeyedQueue({ owner: "c", concurrency, run: g.run, onError: () => undefined });
    for (const key of ["a", "b", "c"]) q.enqueue(key);
    await tick();
    expect(g.log).toEqual(started);
  });

  test("given a capacity of 1 shared by two controllers, then their keys alternate (round-robin, none starves)", async () => {
    const capacity = new FairCapacity(1);
    const g = gated();
    const busy = new KeyedQueue({ owner: "busy", concurrency: 4, capacity, run: (k) => g.run(`busy/${k}`), onError: () => undefined });
    const quiet = new KeyedQueue({ owner: "quiet", concurrency: 4, capacity, run: (k) => g.run(`quiet/${k}`), onError: () => undefined });
    for (const key of ["1", "2", "3"]) busy.enqueue(key);
    quiet.enqueue("1");
    await tick();
    await g.release("busy/1");
    await g.release("quiet/1");
    await g.release("busy/2");
    await g.release("busy/3");
    expect(g.log.filter((l) => l.startsWith("start"))).toEqual(["start busy/1", "start quiet/1", "start busy/2", "start busy/3"]);
  });

  test("given a run that throws, then the error is reported and the queue keeps draining", async () => {
    const errors: string[] = [];
    const ran: string[] = [];
    const q = new KeyedQueue({
      owner: "c",
      concurrency: 1,
      run: async (k) => {
        ran.push(k);
        if (k === "bad") throw new Error("boom");
      },
      onError: (k, e) => errors.push(`${k}: ${(e as Error).message}`),
    });
    for (const key of ["bad", "good"]) q.enqueue(key);
    await q.idle();
    expect(ran).toEqual(["bad", "good"]);
    expect(errors).toEqual(["bad: boom"]);
  });

  test("given running and pending work, when closed, then the running run settles, pending is dropped, new work refused", async () => {
    const g = gated();
    const q = new KeyedQueue({ owner: "c", concurrency: 1, run: g.run, onError: () => undefined });
    q.enqueue("a");
    q.enqueue("b");
    await tick();
    q.enqueue("a"); // dirty follow-up: dropped too
    const closed = q.close();
    expect(q.enqueue("c")).toBe(false);
    await g.release("a");
    await closed;
    expect(g.log).toEqual(["start a", "end a"]);
  });
});
