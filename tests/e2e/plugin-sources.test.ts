/**
 * Sources (REC-06) through a real runner: cron Sources on the Manager's manual clock (IANA zones across a DST
 * change, due times persisted and resumed after a restart with one catch-up tick, coalesced ticks, validation),
 * and resource Sources (emit creates or wakes; a changed spec or label is refused; a failed start blocks
 * nothing). The loops fixture's Task controller takes its Sources from its config; runs are read from its
 * reconciles.log.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { waitUntil } from "../support/baton-process.ts";
import { loopsRigs, type LoopsRig } from "../support/loops-rig.ts";
import { LOOPS_DIR } from "../support/plugin-rig.ts";

setDefaultTimeout(40_000);

const TASK = { apiVersion: "loops.baton.dev/v1", kind: "Task" };
const task = (name: string) => ({ ...TASK, name });
const CONTROLLER = "loops.baton.dev/v1/Task";
const HOUR = 3_600_000;

const rigs = loopsRigs();

interface Loops extends LoopsRig {
  /** Move the manual clock and let what fell due run. */
  advance(ms: number): Promise<void>;
  dueAt(sourceId?: string): number | undefined;
  res(op: string, ...args: unknown[]): Promise<{ ok?: unknown; error?: { code: string; message: string } }>;
}

async function loops(config: unknown, start = "2026-03-06T15:00:00.000Z"): Promise<Loops> {
  const base = await rigs.open({ config, start });
  const { rig, clock, key, pluginInstanceId } = base;
  // Onto the rig itself: its `store` is a getter (the binding's store of the moment).
  const l: Loops = Object.assign(base, {
    advance: async (ms: number) => {
      clock.advance(ms);
      await l.settle();
    },
    dueAt: (sourceId = "tick") => rig.manager.binding(key)?.controllerHost?.cronTicker.dueAt(CONTROLLER, sourceId),
    res: async (op: string, ...args: unknown[]) => {
      const result = await rig.manager.execute(pluginInstanceId, "res", JSON.stringify({ op, args }));
      return JSON.parse(result.kind === "message" ? result.text : "{}") as never;
    },
  });
  await l.settle();
  return l;
}

describe("cron Sources", () => {
  test("given 0 9 * * * in America/New_York, when the clock crosses the March DST change, then it ticks at 09:00 local on both sides", async () => {
    const l = await loops({ cron: "0 9 * * *", timeZone: "America/New_York" });
    await l.store.create({ ...TASK, metadata: { name: "a" }, spec: { mode: "ok" } });
    await l.settle();
    expect(l.runs("a")).toHaveLength(1);
    // 2026-03-06 10:00 EST now; the next 09:00 EST is 14:00Z on the 7th.
    expect(new Date(l.dueAt() ?? 0).toISOString()).toBe("2026-03-07T14:00:00.000Z");
    await l.advance(Date.parse("2026-03-07T14:00:00.000Z") - 1 - l.clock.now());
    expect(l.runs("a")).toHaveLength(1);
    await l.advance(1);
    await waitUntil(() => l.runs("a").length === 2, 10_000, "the 09:00 EST tick");
    // Clocks spring forward on the 8th: 09:00 EDT is 13:00Z.
    expect(new Date(l.dueAt() ?? 0).toISOString()).toBe("2026-03-08T13:00:00.000Z");
    await l.advance(Date.parse("2026-03-08T13:00:00.000Z") - 1 - l.clock.now());
    expect(l.runs("a")).toHaveLength(2);
    await l.advance(1);
    await waitUntil(() => l.runs("a").length === 3, 10_000, "the 09:00 EDT tick");
    expect(new Date(l.dueAt() ?? 0).toISOString()).toBe("2026-03-09T13:00:00.000Z");
  });

  test("given a wall time the spring-forward skips (02:30 in Europe/Berlin on 29 March), then that day's tick runs at 03:00 local", async () => {
    const l = await loops({ cron: "30 2 * * *", timeZone: "Europe/Berlin" }, "2026-03-28T12:00:00.000Z");
    expect(new Date(l.dueAt() ?? 0).toISOString()).toBe("2026-03-29T01:00:00.000Z");
    await l.advance((l.dueAt() ?? 0) - l.clock.now());
    expect(new Date(l.dueAt() ?? 0).toISOString()).toBe("2026-03-30T00:30:00.000Z");
  });

  test("given a due time that passed while Baton was not running, when the plugin starts again, then one catch-up tick runs (not one per missed occurrence) and the schedule goes on from now", async () => {
    const l = await loops({ cron: "*/5 * * * *" }, "2026-03-01T10:00:30.000Z");
    // A Task that requeues itself a day ahead: only ticks reconcile it, the initial pass of a restart does not.
    await l.store.create({ ...TASK, metadata: { name: "r" }, spec: { mode: "requeue", ms: 24 * HOUR } });
    await l.settle();
    expect(l.runs("r")).toHaveLength(1);
    await l.advance(Date.parse("2026-03-01T10:05:00.000Z") - l.clock.now());
    await waitUntil(() => l.runs("r").length === 2, 10_000, "the 10:05 tick");
    await l.settle();
    const cronFile = path.join(l.rig.root, "session", "plugins", l.pluginInstanceId, "cron.json");
    const persisted = JSON.parse(readFileSync(cronFile, "utf8")) as { sources: Record<string, { dueAt: number }> };
    expect(persisted.sources[`${CONTROLLER}#tick`]?.dueAt).toBe(Date.parse("2026-03-01T10:10:00.000Z"));

    await l.rig.manager.disable("baton-test/loops");
    // 10:10 and 10:15 pass while it is stopped.
    l.clock.advance(Date.parse("2026-03-01T10:17:00.000Z") - l.clock.now());
    await l.rig.manager.enable("baton-test/loops");
    await l.settle();
    await waitUntil(() => l.runs("r").length === 3, 10_000, "the one catch-up tick");
    await l.settle();
    expect(l.runs("r")).toHaveLength(3);
    expect(new Date(l.dueAt() ?? 0).toISOString()).toBe("2026-03-01T10:20:00.000Z");
    await l.advance(Date.parse("2026-03-01T10:20:00.000Z") - l.clock.now());
    await waitUntil(() => l.runs("r").length === 4, 10_000, "the 10:20 tick");
  });

  test("given a due time still ahead at a restart, then the restart waits for it and nothing catches up", async () => {
    const l = await loops({ cron: "0 * * * *" }, "2026-03-01T10:20:00.000Z");
    await l.store.create({ ...TASK, metadata: { name: "r" }, spec: { mode: "requeue", ms: 24 * HOUR } });
    await l.settle();
    await l.rig.manager.restart("baton-test/loops");
    await l.settle();
    expect(new Date(l.dueAt() ?? 0).toISOString()).toBe("2026-03-01T11:00:00.000Z");
    expect(l.runs("r")).toHaveLength(1);
    await l.advance(Date.parse("2026-03-01T11:00:00.000Z") - l.clock.now());
    await waitUntil(() => l.runs("r").length === 2, 10_000, "the 11:00 tick");
  });

  test("given two cron Sources of one controller falling due together, then each resource is reconciled once for that tick", async () => {
    const l = await loops({
      cron: [
        { sourceId: "a", cron: "0 * * * *", timeZone: "UTC" },
        { sourceId: "b", cron: "0 */2 * * *", timeZone: "Europe/Paris" },
      ],
    }, "2026-03-01T10:30:00.000Z");
    for (const name of ["x", "y"]) await l.store.create({ ...TASK, metadata: { name }, spec: { mode: "requeue", ms: 24 * HOUR } });
    await l.settle();
    expect(l.runs()).toHaveLength(2);
    // 11:00Z is 12:00 in Paris: both fall due.
    expect(l.dueAt("a")).toBe(Date.parse("2026-03-01T11:00:00.000Z"));
    expect(l.dueAt("b")).toBe(Date.parse("2026-03-01T11:00:00.000Z"));
    await l.advance(HOUR / 2);
    await waitUntil(() => l.runs().length === 4, 10_000, "the 11:00 tick");
    await l.settle();
    expect(l.runs("x")).toHaveLength(2);
    expect(l.runs("y")).toHaveLength(2);
  });

  test.each([
    ["an invalid field", { cron: "61 * * * *" }, "cron Source 'tick': cron '61 * * * *': Invalid value for minute: 61"],
    ["seven fields", { cron: "0 0 0 * * * 2027" }, "has 7 fields; use 5 (minute hour day month weekday) or 6 (seconds first)"],
    ["an unknown time zone", { cron: "0 9 * * *", timeZone: "Mars/Olympus" }, "timeZone 'Mars/Olympus' is not an IANA time zone"],
    ["a duplicate sourceId", { cron: [{ sourceId: "t", cron: "* * * * *", timeZone: "UTC" }, { sourceId: "t", cron: "0 * * * *", timeZone: "UTC" }] }, "sourceId 't' is used twice in this controller"],
    ["a Source for Baton's Turns (RES-06)", { mode: "turn-source" }, "Baton's Turn resources come from the session's turns and take no Source"],
  ])("given %s, then activation fails saying so", async (_what, config, message) => {
    const rig = rigs.bare();
    await expect(rig.installAndEnable(LOOPS_DIR, config)).rejects.toThrow(message);
    expect(rig.updates.at(-1)).toMatchObject({ state: "failed", reason: { code: "activation" } });
  });
});

describe("resource Sources", () => {
  test("given a Source that emits at start, then the resource is created and reconciled; re-emitting it identical only wakes it; a changed spec or label is refused", async () => {
    const l = await loops({ source: { emit: [{ name: "s1", spec: { mode: "ok" }, labels: { from: "seed" } }] } });
    await waitUntil(() => l.runs("s1").length === 1, 10_000, "the emitted resource's reconcile");
    const created = await l.store.get(task("s1"));
    expect(created).toMatchObject({ spec: { mode: "ok" }, metadata: { labels: { from: "seed" }, generation: 1, resourceVersion: "1" } });

    expect(await l.res("emit", { name: "s1", spec: { mode: "ok" }, labels: { from: "seed" } })).toEqual({ ok: null });
    await l.settle();
    expect(l.runs("s1")).toHaveLength(2);
    expect((await l.store.get(task("s1")))?.metadata).toEqual(created?.metadata as never);

    const spec = await l.res("emit", { name: "s1", spec: { mode: "fail" } });
    expect(spec.error).toMatchObject({ code: "conflict" });
    expect(spec.error?.message).toContain("exists with another spec");
    const label = await l.res("emit", { name: "s1", spec: { mode: "ok" }, labels: { from: "elsewhere" } });
    expect(label.error).toMatchObject({ code: "conflict" });
    expect(label.error?.message).toContain("another value of label 'from'");
    const bad = await l.res("emit", { name: "s2", spec: {}, colour: "red" });
    expect(bad.error).toMatchObject({ code: "invalid" });
    await l.settle();
    expect(l.runs("s1")).toHaveLength(2);
    expect((await l.store.get(task("s1")))?.spec).toEqual({ mode: "ok" });
    expect(l.rig.manager.binding("baton-test/loops@local")?.state ?? "active").toBe("active");
  });

  test("given a Source whose start fails, then the known resources are still reconciled and the failure is shown; a late reportError is shown too", async () => {
    const l = await loops({ source: { emit: [{ name: "early", spec: { mode: "ok" } }], fail: true } });
    await waitUntil(() => l.rig.toasts.some((t) => t.text.includes("Plugin source seed failed: did not start")), 10_000, "the start failure toast");
    await l.store.create({ ...TASK, metadata: { name: "known" }, spec: { mode: "ok" } });
    await waitUntil(() => l.runs("known").length === 1 && l.runs("early").length === 1, 10_000, "reconciles despite the failed Source");
    expect((await l.res("emit", { name: "late", spec: {} })).error?.message).toContain("is not running");
  });

  test("given a running Source, when it reports a late failure, then it is logged and shown", async () => {
    const l = await loops({ source: {} });
    expect(await l.res("reportError", "the feed went away")).toEqual({ ok: null });
    await waitUntil(() => l.rig.toasts.some((t) => t.text === "Plugin source seed failed: the feed went away"), 10_000, "the reportError toast");
  });
});
