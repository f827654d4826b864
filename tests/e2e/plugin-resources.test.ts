/**
 * Resources through a real runner: the loops fixture calls `ctx.resources` over fd 3/4 and the host's
 * store answers. What the plugin wrote is on disk where RES-07 says; a refusal reaches the plugin as a
 * ResourceError with its code and the binding stays active; Baton's Turn type and undeclared types are
 * not writable.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import path from "node:path";
import { waitUntil } from "../support/baton-process.ts";
import { createPluginRig, LOOPS_DIR, type PluginRig } from "../support/plugin-rig.ts";

let rigs: PluginRig[] = [];
afterEach(async () => {
  for (const rig of rigs) await rig.close();
  rigs = [];
});

const TASK = { apiVersion: "loops.baton.dev/v1", kind: "Task" };
const STEP = { apiVersion: "loops.baton.dev/v1", kind: "Step" };

async function loops(): Promise<{ rig: PluginRig; res: (op: string, ...args: unknown[]) => Promise<{ ok?: any; error?: { name: string; code: string; message: string } }> }> {
  const rig = createPluginRig();
  rigs.push(rig);
  const key = await rig.installAndEnable(LOOPS_DIR);
  const id = rig.manager.binding(key)?.instance.pluginInstanceId ?? "";
  const res = async (op: string, ...args: unknown[]) => {
    const result = await rig.manager.execute(id, "res", JSON.stringify({ op, args }));
    return JSON.parse(result.kind === "message" ? result.text : "{}");
  };
  return { rig, res };
}

describe("plugin resources over the runner protocol", () => {
  test("create, patch and list from the plugin; the host's store holds the same object under the session", async () => {
    const { rig, res } = await loops();
    const created = await res("create", { ...TASK, metadata: { name: "build", labels: { stage: "ci" } }, spec: { goal: "green" } });
    expect(created.ok).toMatchObject({ ...TASK, metadata: { name: "build", generation: 1, resourceVersion: "1" }, spec: { goal: "green" } });
    expect((await res("patchStatus", { ...TASK, name: "build" }, { phase: "running" })).ok.metadata.resourceVersion).toBe("2");
    expect((await res("replaceSpec", { ...TASK, name: "build" }, { goal: "faster" })).ok.metadata.generation).toBe(2);
    expect((await res("list", TASK, { matchLabels: { stage: "ci" } })).ok.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual(["build"]);

    const binding = rig.manager.activeBindings()[0];
    const id = binding?.instance.pluginInstanceId ?? "";
    const onHost = await binding?.resources?.get({ ...TASK, name: "build" });
    expect(onHost).toMatchObject({ spec: { goal: "faster" }, status: { phase: "running" }, metadata: { namespace: id, generation: 2, resourceVersion: "3" } });
    expect(existsSync(path.join(rig.root, "session", "plugins", id, "resources", "loops.baton.dev", "v1", "Task", "build.json"))).toBe(true);
  });

  test.each([
    ["a bad apiVersion", ["create", { apiVersion: "Foo/v1", kind: "Task", metadata: { name: "x" } }], "invalid", "apiVersion 'Foo/v1'"],
    ["an undeclared type", ["create", { apiVersion: "other.dev/v1", kind: "Task", metadata: { name: "x" } }], "invalid", "not listed under permissions.resourceTypes"],
    ["the Turn type", ["create", { apiVersion: "baton.dev/v1alpha1", kind: "Turn", metadata: { name: "x" } }], "invalid", "read-only"],
    ["a missing resource", ["patchStatus", { ...TASK, name: "nobody" }, { a: 1 }], "not_found", "does not exist"],
    ["a stale resourceVersion", ["patchStatus", { ...TASK, name: "t" }, { a: 1 }, { expectedResourceVersion: "7" }], "conflict", "is at resourceVersion 1, not 7"],
    ["a taken name", ["create", { ...TASK, metadata: { name: "t" } }], "exists", "already exists"],
  ])("%s is refused with a ResourceError the plugin can read; the binding stays active", async (_name, [op, ...args], code, message) => {
    const { rig, res } = await loops();
    await res("create", { ...TASK, metadata: { name: "t" } });
    const answer = await res(op as string, ...args);
    expect(answer.error).toMatchObject({ name: "ResourceError", code });
    expect(answer.error?.message).toContain(message);
    expect(rig.manager.activeBindings()).toHaveLength(1);
    expect(rig.updates.map((u) => u.state)).toEqual(["active"]);
  });

  test("delete from the plugin: a Task stays terminating until its controller's terminating reconcile succeeds; a Step (no controller) is gone at once", async () => {
    const { rig, res } = await loops();
    await res("create", { ...TASK, metadata: { name: "t" }, spec: { mode: "fail-delete" } });
    await res("create", { ...TASK, metadata: { name: "u" }, spec: { mode: "ok" } });
    await res("create", { ...STEP, metadata: { name: "s" }, spec: { task: "t" } });

    const step = await res("delete", { ...STEP, name: "s" });
    expect(step.ok.metadata.deletionTimestamp).toBeString();
    expect((await res("get", { ...STEP, name: "s" })).ok).toBeNull();

    const deleted = await res("delete", { ...TASK, name: "t" });
    expect(deleted.ok.metadata.deletionTimestamp).toBeString();
    await waitUntil(() => rig.toasts.some((t) => t.text.includes("Plugin reconcile failed for Task/t: cannot let go")), 10_000, "the failed terminating reconcile");
    expect((await res("get", { ...TASK, name: "t" })).ok.metadata.deletionTimestamp).toBe(deleted.ok.metadata.deletionTimestamp);

    await res("delete", { ...TASK, name: "u" });
    const gone = rig.manager.activeBindings()[0]?.resources;
    await waitUntil(() => !existsSync(gone?.fileOf({ ...TASK, name: "u" }) ?? ""), 10_000, "the successful terminating reconcile");
    expect((await res("get", { ...TASK, name: "u" })).ok).toBeNull();
    expect((await res("get", { ...TASK, name: "nothing" })).ok).toBeNull();
  });
});
