/**
 * The resource store (RES-01..07) as given/when/then tables on a temp session directory: shape and names,
 * generation/resourceVersion, labels and annotations, owners with uids, the deletion state machine with
 * cascade, type ownership and the read-only Turn type, the file layout, corrupt files, and two processes
 * reconciling one resource that never overlap.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ResourceStore, type ResourceChange } from "../../src/plugin/resources/store.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import type { Logger } from "../../src/shared/log.ts";

const TASK = { apiVersion: "example.dev/v1", kind: "Task" } as const;
const STEP = { apiVersion: "example.dev/v1", kind: "Step" } as const;
const task = (name: string) => ({ ...TASK, name });
const step = (name: string) => ({ ...STEP, name });

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  roots = [];
});

function createMemoryLogger(): Logger & { records: { level: string; message: string }[] } {
  const records: { level: string; message: string }[] = [];
  const logger = { records, log: (level: string, message: string) => void records.push({ level, message }), child: () => logger };
  return logger as never;
}

function makeStore(extra: { root?: string; reconciled?: readonly { apiVersion: string; kind: string }[] } = {}) {
  const root = extra.root ?? mkdtempSync(path.join(os.tmpdir(), "baton-resources-"));
  roots.push(root);
  const logger = createMemoryLogger();
  const changes: ResourceChange[] = [];
  const store = new ResourceStore({ root, namespace: "pi_0123456789abcdef", owned: [TASK, STEP], reconciled: extra.reconciled ?? [TASK, STEP], clock: new ManualClock(), log: logger });
  store.onChange((c) => changes.push(c));
  return { store, root, changes, logger };
}

describe("RES-01 shape and names", () => {
  test.each([
    ["apiVersion Foo/v1", { apiVersion: "Foo/v1", kind: "Task", metadata: { name: "a" } }, "apiVersion 'Foo/v1' must look like"],
    ["apiVersion without a version", { apiVersion: "example.dev", kind: "Task", metadata: { name: "a" } }, "apiVersion 'example.dev'"],
    ["apiVersion v1beta", { apiVersion: "example.dev/v1beta", kind: "Task", metadata: { name: "a" } }, "must look like"],
    ["a lowercase kind", { apiVersion: "example.dev/v1", kind: "task", metadata: { name: "a" } }, "kind 'task'"],
    ["a name with a slash", { apiVersion: "example.dev/v1", kind: "Task", metadata: { name: "a/b" } }, "name 'a/b'"],
    ["a name with ..", { apiVersion: "example.dev/v1", kind: "Task", metadata: { name: "a..b" } }, "name 'a..b'"],
    ["an upper-case name", { apiVersion: "example.dev/v1", kind: "Task", metadata: { name: "A" } }, "name 'A'"],
    ["a spec that is not JSON", { apiVersion: "example.dev/v1", kind: "Task", metadata: { name: "a" }, spec: { at: new Date(0) } }, "spec: value.at is not plain JSON"],
  ])("given %s, create is rejected with one line", async (_name, input, message) => {
    const { store } = makeStore();
    const error = (await store.create(input as never).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(message);
    expect(error.message.split("\n")).toHaveLength(1);
  });

  test("a created resource has the full shape, namespace = the instance, uid pr_, generation 1, resourceVersion '1'", async () => {
    const { store } = makeStore();
    const created = await store.create({ ...TASK, metadata: { name: "build" }, spec: { goal: "x" } });
    expect(created).toMatchObject({ ...TASK, spec: { goal: "x" }, status: {}, metadata: { name: "build", namespace: "pi_0123456789abcdef", generation: 1, resourceVersion: "1" } });
    expect(created.metadata.uid).toMatch(/^pr_[0-9A-Z]{26}$/);
    expect(created.metadata.creationTimestamp).toBe("2026-01-01T00:00:00.000Z");
    await expect(store.create({ ...TASK, metadata: { name: "build" } })).rejects.toThrow("already exists");
  });
});

describe("RES-02 versioning", () => {
  test.each([
    // when, then generation, then resourceVersion
    ["patchStatus {phase: a}", async (s: ResourceStore) => s.patchStatus(task("t"), { phase: "a" }), 1, "2"],
    ["the same status patch twice", async (s: ResourceStore) => (await s.patchStatus(task("t"), { phase: "a" }), s.patchStatus(task("t"), { phase: "a" })), 1, "2"],
    ["replaceSpec with a new spec", async (s: ResourceStore) => s.replaceSpec(task("t"), { goal: "y" }), 2, "2"],
    ["replaceSpec with the same spec", async (s: ResourceStore) => s.replaceSpec(task("t"), { goal: "x" }), 1, "1"],
    ["a label", async (s: ResourceStore) => s.patchMetadata(task("t"), { labels: { a: "1" } }), 1, "2"],
    ["deleting a label that is not there", async (s: ResourceStore) => s.patchMetadata(task("t"), { labels: { a: null } }), 1, "1"],
    ["delete", async (s: ResourceStore) => s.delete(task("t")), 1, "2"],
    ["delete twice", async (s: ResourceStore) => (await s.delete(task("t")), s.delete(task("t"))), 1, "2"],
  ])("given a new Task, when %s, then generation %d and resourceVersion %s", async (_when, act, generation, version) => {
    const { store } = makeStore();
    await store.create({ ...TASK, metadata: { name: "t" }, spec: { goal: "x" } });
    const after = await act(store);
    expect(after?.metadata.generation).toBe(generation);
    expect(after?.metadata.resourceVersion).toBe(version);
    expect((await store.get(task("t")))?.metadata.resourceVersion).toBe(version);
  });

  test("patchStatus merges (RFC 7386: nested objects merge, null deletes); a stale expectedResourceVersion is a conflict", async () => {
    const { store } = makeStore();
    await store.create({ ...TASK, metadata: { name: "t" }, status: { phase: "new", counts: { a: 1, b: 2 } } });
    const patched = await store.patchStatus(task("t"), { counts: { b: null, c: 3 }, note: "hi" });
    expect(patched.status).toEqual({ phase: "new", counts: { a: 1, c: 3 }, note: "hi" });
    await expect(store.patchStatus(task("t"), { phase: "x" }, { expectedResourceVersion: "1" })).rejects.toThrow("is at resourceVersion 2, not 1");
    expect((await store.patchStatus(task("t"), { phase: "x" }, { expectedResourceVersion: "2" })).status["phase"]).toBe("x");
  });

  test("a change is announced once with the old object; a no-op announces nothing", async () => {
    const { store, changes } = makeStore();
    await store.create({ ...TASK, metadata: { name: "t" } });
    await store.patchStatus(task("t"), { a: 1 });
    await store.patchStatus(task("t"), { a: 1 });
    expect(changes.map((c) => [c.reason, c.old?.metadata.resourceVersion ?? null, c.object.metadata.resourceVersion])).toEqual([
      ["created", null, "1"],
      ["status", "1", "2"],
    ]);
  });
});

describe("RES-03 labels and annotations", () => {
  test("matchLabels is an exact AND; annotations are not selectable; patchMetadata null deletes and never moves generation", async () => {
    const { store } = makeStore();
    await store.create({ ...TASK, metadata: { name: "both", labels: { a: "1", b: "2" } } });
    await store.create({ ...TASK, metadata: { name: "only-a", labels: { a: "1" } } });
    await store.create({ ...TASK, metadata: { name: "wrong-b", labels: { a: "1", b: "3" }, annotations: { "any key at all": "x" } } });
    expect((await store.list(TASK, { matchLabels: { a: "1", b: "2" } })).map((o) => o.metadata.name)).toEqual(["both"]);
    expect((await store.list(TASK, { matchLabels: { a: "1" } })).map((o) => o.metadata.name)).toEqual(["both", "only-a", "wrong-b"]);
    const patched = await store.patchMetadata(task("both"), { labels: { b: null, "example.dev/c": "x" }, annotations: { note: "n" } });
    expect(patched.metadata.labels).toEqual({ a: "1", "example.dev/c": "x" });
    expect(patched.metadata.annotations).toEqual({ note: "n" });
    expect(patched.metadata.generation).toBe(1);
  });

  test.each([
    ["a key with a space", { "a b": "1" }, "label key 'a b'"],
    ["a 64-character name", { ["x".repeat(64)]: "1" }, "at most 63"],
    ["a bad prefix", { "Example.dev/a": "1" }, "invalid prefix"],
    ["a value with a slash", { a: "x/y" }, "label 'a' value 'x/y'"],
  ])("given %s, the label is rejected", async (_name, labels, message) => {
    const { store } = makeStore();
    await expect(store.create({ ...TASK, metadata: { name: "t", labels } })).rejects.toThrow(message);
  });
});

describe("RES-04 owners", () => {
  test("an owner must exist with that uid and not be terminating; a resource cannot own itself", async () => {
    const { store } = makeStore();
    const parent = await store.create({ ...TASK, metadata: { name: "p" } });
    const owner = { ...task("p"), uid: parent.metadata.uid };
    expect((await store.create({ ...STEP, metadata: { name: "s1", owner } })).metadata.owner).toEqual(owner);
    await expect(store.create({ ...STEP, metadata: { name: "s2", owner: { ...task("p"), uid: "" } } })).rejects.toThrow("must carry the owner's uid");
    await expect(store.create({ ...STEP, metadata: { name: "s3", owner: { ...task("nobody"), uid: "pr_x" } } })).rejects.toThrow("does not exist");
    await expect(store.create({ ...TASK, metadata: { name: "p2", owner: { ...task("p2"), uid: "pr_x" } } })).rejects.toThrow("cannot own itself");
    // Deleted and recreated: the old uid names an incarnation that is gone.
    await store.delete(task("p"));
    await expect(store.create({ ...STEP, metadata: { name: "s4", owner } })).rejects.toThrow("is being deleted");
    await store.finalize(task("p"), parent.metadata.uid);
    const again = await store.create({ ...TASK, metadata: { name: "p" } });
    expect(again.metadata.uid).not.toBe(parent.metadata.uid);
    await expect(store.create({ ...STEP, metadata: { name: "s5", owner } })).rejects.toThrow("is another incarnation");
  });
});

describe("RES-05 deletion", () => {
  test("deleting a parent stamps every descendant; each disappears only with its own finalize", async () => {
    const { store, changes } = makeStore();
    const p = await store.create({ ...TASK, metadata: { name: "p" } });
    const c = await store.create({ ...STEP, metadata: { name: "c", owner: { ...task("p"), uid: p.metadata.uid } } });
    const g = await store.create({ ...STEP, metadata: { name: "g", owner: { ...step("c"), uid: c.metadata.uid } } });
    await store.create({ ...STEP, metadata: { name: "unrelated" } });
    await store.schedule(step("g"), g.metadata.uid, 123_456);
    await store.delete(task("p"));
    const stamped = async (ref: { apiVersion: string; kind: string; name: string }) => (await store.get(ref))?.metadata.deletionTimestamp !== undefined;
    expect([await stamped(task("p")), await stamped(step("c")), await stamped(step("g")), await stamped(step("unrelated"))]).toEqual([true, true, true, false]);
    expect((await store.read(step("g")))?.control).toEqual({});
    expect(changes.filter((x) => x.reason === "deleting").map((x) => x.object.metadata.name)).toEqual(["p", "c", "g"]);
    expect(await store.finalize(step("c"), c.metadata.uid)).toBe(true);
    expect(await store.get(step("c"))).toBeUndefined();
    expect(await stamped(task("p"))).toBe(true);
    expect(await stamped(step("g"))).toBe(true);
    expect(changes.at(-1)).toMatchObject({ reason: "deleted", object: { metadata: { name: "c" } } });
    // A resource that is not terminating (or another incarnation) is never finalized.
    expect(await store.finalize(step("unrelated"), "pr_whatever")).toBe(false);
    await expect(store.replaceSpec(task("p"), { x: 1 })).rejects.toThrow("is being deleted");
    expect(await store.delete(task("nothing"))).toBeUndefined();
  });

  // Given a store where only Task has a controller (Step has none):
  test.each([
    ["a Task (reconciled)", "task", ["terminating", "live", "-"]],
    ["a Step (nobody reconciles it)", "step", ["live", "gone", "-"]],
    ["a Task whose Step child has a Step grandchild", "tree", ["terminating", "gone", "gone"]],
  ] as const)("when deleting %s, then a reconciled resource stays terminating and an unreconciled one is gone at once", async (_name, what, expected) => {
    const { store, changes } = makeStore({ reconciled: [TASK] });
    const p = await store.create({ ...TASK, metadata: { name: "p" } });
    const c = await store.create({ ...STEP, metadata: { name: "c", ...(what === "tree" ? { owner: { ...task("p"), uid: p.metadata.uid } } : {}) } });
    if (what === "tree") await store.create({ ...STEP, metadata: { name: "g", owner: { ...step("c"), uid: c.metadata.uid } } });
    const deleted = await store.delete(what === "step" ? step("c") : task("p"));
    expect(deleted?.metadata.deletionTimestamp).toBeString();
    const state = async (ref: { apiVersion: string; kind: string; name: string }) => {
      const found = await store.get(ref);
      return found === undefined ? "gone" : found.metadata.deletionTimestamp === undefined ? "live" : "terminating";
    };
    expect([await state(task("p")), await state(step("c")), what === "tree" ? await state(step("g")) : "-"]).toEqual([...expected]);
    // Watches still see the whole story of what went: stamped, then deleted.
    for (const name of what === "task" ? [] : what === "step" ? ["c"] : ["c", "g"]) {
      expect(changes.filter((x) => x.object.metadata.name === name && x.reason !== "created").map((x) => x.reason)).toEqual(["deleting", "deleted"]);
    }
  });

  test("given a Step stamped by a process that died before removing it, when the store sweeps, then it is gone and a Task is not", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "baton-resources-"));
    const before = makeStore({ root, reconciled: [TASK, STEP] });
    await before.store.create({ ...TASK, metadata: { name: "p" } });
    await before.store.create({ ...STEP, metadata: { name: "c" } });
    await before.store.delete(task("p"));
    await before.store.delete(step("c"));
    const after = makeStore({ root, reconciled: [TASK] });
    expect(await after.store.sweepTerminating()).toBe(1);
    expect(await after.store.get(step("c"))).toBeUndefined();
    expect((await after.store.get(task("p")))?.metadata.deletionTimestamp).toBeString();
  });
});

describe("RES-06 type ownership", () => {
  test.each([
    ["the Turn type", { apiVersion: "baton.dev/v1alpha1", kind: "Turn" }, "read-only"],
    ["a type the manifest does not list", { apiVersion: "other.dev/v1", kind: "Task" }, "not listed under permissions.resourceTypes"],
  ])("creating %s is rejected", async (_name, type, message) => {
    const { store } = makeStore();
    await expect(store.create({ ...type, metadata: { name: "t" } })).rejects.toThrow(message);
  });
});

describe("RES-07 storage", () => {
  test("one JSON file per resource at <group>/<version>/<Kind>/<name>.json holding {object, control}", async () => {
    const { store, root } = makeStore();
    const created = await store.create({ ...TASK, metadata: { name: "t" } });
    await store.schedule(task("t"), created.metadata.uid, 42);
    const file = path.join(root, "example.dev", "v1", "Task", "t.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ object: created, control: { nextReconcileAt: 42 } });
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  test("a corrupt or wrongly scoped file is reported with its path, skipped by list, and left as it is", async () => {
    const { store, root, logger } = makeStore();
    await store.create({ ...TASK, metadata: { name: "good" } });
    const dir = path.join(root, "example.dev", "v1", "Task");
    writeFileSync(path.join(dir, "torn.json"), '{"object": {');
    const other = JSON.parse(readFileSync(path.join(dir, "good.json"), "utf8"));
    other.object.metadata.namespace = "pi_someoneelse00000";
    writeFileSync(path.join(dir, "moved.json"), JSON.stringify({ ...other, object: { ...other.object, metadata: { ...other.object.metadata, name: "moved" } } }));
    expect((await store.list(TASK)).map((o) => o.metadata.name)).toEqual(["good"]);
    const errors = logger.records.filter((r) => r.level === "error").map((r) => r.message);
    expect(errors.some((m) => m.includes(`${path.join(dir, "torn.json")}: corrupt resource file`))).toBe(true);
    expect(errors.some((m) => m.includes("moved.json: holds example.dev/v1 Task/moved of namespace pi_someoneelse00000"))).toBe(true);
    await expect(store.get(task("torn"))).rejects.toThrow("torn.json: corrupt resource file");
    expect(readFileSync(path.join(dir, "torn.json"), "utf8")).toBe('{"object": {');
  });

  test("two processes reconciling the same resource never overlap", async () => {
    const { store, root } = makeStore();
    await store.create({ ...TASK, metadata: { name: "shared" } });
    const marks = path.join(root, "marks.txt");
    const script = path.join(root, "reconciler.ts");
    mkdirSync(path.dirname(script), { recursive: true });
    writeFileSync(
      script,
      `import fs from "node:fs";
       import { ResourceStore } from ${JSON.stringify(path.resolve(import.meta.dir, "../../src/plugin/resources/store.ts"))};
       import { systemClock } from ${JSON.stringify(path.resolve(import.meta.dir, "../../src/shared/clock.ts"))};
       import { silentLogger } from ${JSON.stringify(path.resolve(import.meta.dir, "../../src/shared/log.ts"))};
       const store = new ResourceStore({ root: ${JSON.stringify(root)}, namespace: "pi_0123456789abcdef", owned: [], reconciled: [], clock: systemClock, log: silentLogger });
       const who = process.argv[2];
       for (let i = 0; i < 5; i++) {
         await store.withReconcileLock({ apiVersion: "example.dev/v1", kind: "Task", name: "shared" }, async () => {
           fs.appendFileSync(${JSON.stringify(marks)}, "start " + who + "\\n");
           await new Promise((r) => setTimeout(r, 15));
           fs.appendFileSync(${JSON.stringify(marks)}, "end " + who + "\\n");
         }, 20000);
       }`,
    );
    const run = (who: string) =>
      new Promise<number | null>((resolve) => spawn(process.execPath, [script, who], { stdio: "inherit" }).on("exit", (code) => resolve(code)));
    expect(await Promise.all([run("a"), run("b")])).toEqual([0, 0]);
    const lines = readFileSync(marks, "utf8").trim().split("\n");
    expect(lines).toHaveLength(20);
    for (let i = 0; i < lines.length; i += 2) {
      const who = lines[i]?.split(" ")[1];
      expect([lines[i], lines[i + 1]]).toEqual([`start ${who}`, `end ${who}`]);
    }
    expect(new Set(lines.map((l) => l.split(" ")[1]))).toEqual(new Set(["a", "b"]));
  });
});
