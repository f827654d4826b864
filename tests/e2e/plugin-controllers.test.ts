/**
 * Controllers through a real runner (REC-01..05, REC-07..09, RES-05), the loops fixture's Task controller
 * driven by each Task's spec.mode, on a manual clock for the Manager (tests/support/loops-rig.ts). Runs are
 * read from the fixture's reconciles.log.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { backoffMs } from "../../src/plugin/resources/controller-host.ts";
import { waitUntil } from "../support/baton-process.ts";
import { loopsRigs } from "../support/loops-rig.ts";
import { LOOPS_DIR } from "../support/plugin-rig.ts";

setDefaultTimeout(30_000);

const TASK = { apiVersion: "loops.baton.dev/v1", kind: "Task" };
const STEP = { apiVersion: "loops.baton.dev/v1", kind: "Step" };
const task = (name: string) => ({ ...TASK, name });

const rigs = loopsRigs();
const loops = () => rigs.open();

describe("controllers", () => {
  test("REC-04: created and changed resources are reconciled; a no-op write wakes nothing", async () => {
    const l = await loops();
    await l.store.create({ ...TASK, metadata: { name: "a" }, spec: { mode: "ok" } });
    await l.settle();
    expect(l.runs()).toEqual(["a gen=1 mode=ok"]);
    await l.store.patchStatus(task("a"), { seen: true });
    await l.settle();
    await l.store.patchStatus(task("a"), { seen: true });
    await l.settle();
    await l.store.replaceSpec(task("a"), { mode: "ok", v: 2 });
    await l.settle();
    expect(l.runs()).toEqual(["a gen=1 mode=ok", "a gen=1 mode=ok", "a gen=2 mode=ok"]);
  });

  test("REC-04: requeueAfterMs 1000 reconciles again 1 s later, persisted, and after a restart", async () => {
    const l = await loops();
    await l.store.create({ ...TASK, metadata: { name: "r" }, spec: { mode: "requeue", ms: 1000 } });
    await l.settle();
    expect((await l.store.read(task("r")))?.control.nextReconcileAt).toBe(l.clock.now() + 1000);
    l.clock.advance(999);
    await l.settle();
    expect(l.runs()).toHaveLength(1);
    l.clock.advance(1);
    await l.settle();
    expect(l.runs()).toHaveLength(2);
    // A restart with the due time still ahead waits for it instead of reconciling at once.
    await l.rig.manager.restart("baton-test/loops");
    await l.settle();
    expect(l.runs()).toHaveLength(2);
    l.clock.advance(1000);
    await waitUntil(() => l.runs().length === 3, 10_000, "the requeued reconcile after the restart");
  });

  test("REC-05: failures back off 1 s, 2 s, 4 s (persisted), a success resets it, and each failure is shown", async () => {
    const l = await loops();
    await l.store.create({ ...TASK, metadata: { name: "f" }, spec: { mode: "fail" } });
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      await waitUntil(() => l.runs().length === i + 1, 10_000, `failure ${i + 1}`);
      await l.settle();
      await waitUntil(() => l.rig.toasts.length === i + 1, 10_000, "the toast");
      const due = (await l.store.read(task("f")))?.control.nextReconcileAt ?? 0;
      delays.push(due - l.clock.now());
      l.clock.advance(due - l.clock.now());
    }
    expect(delays).toEqual([1000, 2000, 4000]);
    expect(l.rig.toasts[0]?.text).toContain("Plugin reconcile failed for Task/f: failing on purpose");
    await waitUntil(() => l.runs().length === 4, 10_000, "the fourth run");
    await l.store.replaceSpec(task("f"), { mode: "ok" });
    await l.settle();
    await l.store.replaceSpec(task("f"), { mode: "fail" });
    await waitUntil(() => l.rig.toasts.length === 5, 10_000, "the failure after the success");
    await l.settle();
    expect(((await l.store.read(task("f")))?.control.nextReconcileAt ?? 0) - l.clock.now()).toBe(1000);
  });

  test.each([
    [1, 1000],
    [2, 2000],
    [6, 32_000],
    [7, 60_000],
    [30, 60_000],
  ])("REC-05: after %d failures in a row the next try is %d ms later", (failures, ms) => {
    expect(backoffMs(failures)).toBe(ms);
  });

  test("REC-03: a spec change during a reconcile discards that run's output and reconciles again", async () => {
    const l = await loops();
    await l.store.create({ ...TASK, metadata: { name: "s" }, spec: { mode: "slow", ms: 1500 } });
    await waitUntil(() => l.runs().length === 1, 10_000, "the slow reconcile to start");
    await l.store.replaceSpec(task("s"), { mode: "propose", text: "fresh" });
    await waitUntil(() => l.runs().length === 2, 10_000, "the follow-up");
    await l.settle();
    expect(l.runs()).toEqual(["s gen=1 mode=slow", "s gen=2 mode=propose"]);
    expect(l.rig.outputs.map((o) => o.output)).toEqual([{ kind: "proposed-input", text: "fresh (gen 2)" }]);
    expect(l.rig.outputs[0]).toMatchObject({ pluginId: "baton-test/loops", controllerId: "loops.baton.dev/v1/Task", resource: { metadata: { name: "s", generation: 2 } } });
  });

  test("REC-08: an empty proposal is a reconcile error (backoff, toast), never an output", async () => {
    const l = await loops();
    await l.store.create({ ...TASK, metadata: { name: "e" }, spec: { mode: "empty-proposal" } });
    await waitUntil(() => l.rig.toasts.length === 1, 10_000, "the failure");
    expect(l.rig.toasts[0]?.text).toContain("invalid output: text: text must not be empty");
    expect(l.rig.outputs).toEqual([]);
    await l.settle();
    expect(((await l.store.read(task("e")))?.control.nextReconcileAt ?? 0) - l.clock.now()).toBe(1000);
  });

  test("REC-09: the snapshot and the resource are frozen inside reconcile; the snapshot is the session's", async () => {
    const l = await loops();
    await l.store.create({ ...TASK, metadata: { name: "m" }, spec: { mode: "mutate" } });
    await l.settle();
    expect((await l.store.get(task("m")))?.status).toEqual({ frozen: [true, true, true], cwd: l.rig.cwd });
  });

  test("RES-05: a terminating reconcile removes the file (its output discarded); a failing one keeps it and retries; a Step (no controller) goes at once", async () => {
    const l = await loops();
    const d = await l.store.create({ ...TASK, metadata: { name: "d" }, spec: { mode: "ok" } });
    await l.store.create({ ...TASK, metadata: { name: "k" }, spec: { mode: "fail-delete" } });
    await l.store.create({ ...STEP, metadata: { name: "child", owner: { ...task("d"), uid: d.metadata.uid } }, spec: { task: "d" } });
    await l.settle();
    await l.store.delete(task("d"));
    // The Step child was stamped with its parent and, with nobody to reconcile it, removed right away.
    expect(await l.store.get({ ...STEP, name: "child" })).toBeUndefined();
    await l.store.delete(task("k"));
    await l.settle();
    expect(await l.store.get(task("d"))).toBeUndefined();
    expect(l.rig.outputs).toEqual([]);
    expect((await l.store.get(task("k")))?.metadata.deletionTimestamp).toBeString();
    l.clock.advance(1000);
    await waitUntil(() => l.runs().filter((r) => r === "k gen=1 terminating mode=fail-delete").length === 2, 10_000, "the retry");
    expect(await l.store.get(task("k"))).toBeDefined();
  });

  test("REC-07: a watched Step moving from one Task to another wakes both", async () => {
    const l = await loops();
    for (const name of ["a", "b"]) await l.store.create({ ...TASK, metadata: { name }, spec: { mode: "ok" } });
    await l.settle();
    // Steps are the plugin's own type (no controller): created through the plugin so the store is the same.
    await l.store.create({ ...STEP, metadata: { name: "s1" }, spec: { task: "a" } });
    await l.settle();
    const before = l.runs().length;
    await l.store.replaceSpec({ ...STEP, name: "s1" }, { task: "b" });
    await l.settle();
    await waitUntil(() => l.runs().length === before + 2, 10_000, "both tasks");
    expect(l.runs().slice(before).sort()).toEqual(["a gen=1 mode=ok", "b gen=1 mode=ok"]);
  });

  test("REC-01: a second controller for the same type fails activation", async () => {
    const rig = rigs.bare();
    await expect(rig.installAndEnable(LOOPS_DIR, { mode: "double-controller" })).rejects.toThrow("registered twice (one per resource type)");
    expect(rig.updates.at(-1)).toMatchObject({ state: "failed", reason: { code: "activation" } });
  });
});
