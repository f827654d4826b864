/**
 * baton/test-watch as shipped (bundled-plugins/test-watch), installed through the real pipeline and run in
 * a real runner: `/tests run` runs the configured command in a process group of its own, the run's end is
 * in the TestWatch status, `/tests` shows the output; a hung command is stopped with its children (no
 * orphan) and shown as an error.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createPluginRig, type PluginRig } from "../support/plugin-rig.ts";
import { isRunning } from "../support/processes.ts";

const TEST_WATCH_DIR = path.resolve(import.meta.dir, "../../bundled-plugins/test-watch");
const WATCH = { apiVersion: "testwatch.baton.dev/v1alpha1", kind: "TestWatch", name: "project" };

let rigs: PluginRig[] = [];
afterEach(async () => {
  for (const rig of rigs) await rig.close();
  rigs = [];
});

async function poll<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The pid the test command's background child wrote to child.pid. */
function childPid(rig: PluginRig): Promise<number> {
  return poll(async () => {
    try {
      const text = readFileSync(path.join(rig.cwd, "child.pid"), "utf8").trim();
      return text === "" ? undefined : Number(text);
    } catch {
      return undefined;
    }
  }, "the child's pid");
}

async function testWatch(config: Record<string, unknown>) {
  const rig = createPluginRig();
  rigs.push(rig);
  const key = await rig.installAndEnable(TEST_WATCH_DIR, config);
  const binding = rig.manager.binding(key);
  expect(binding?.state).toBe("active");
  const id = binding?.instance.pluginInstanceId ?? "";
  const tests = async (argument = "") => {
    const result = await rig.manager.execute(id, "tests", argument);
    return result.kind === "message" ? result.text : "";
  };
  const run = async () => (await binding?.resources?.get(WATCH))?.status["run"] as Record<string, unknown> | undefined;
  const finished = () => poll(async () => ((await run())?.["state"] === "running" ? undefined : await run()), "the run to end");
  return { rig, tests, run, finished };
}

describe("baton/test-watch in a real runner", () => {
  test("/tests run: a failing command is recorded with its count and signature; /tests shows its output; a pass after it", async () => {
    const { rig, tests, finished } = await testWatch({ command: "sh ./check.sh" });
    writeFileSync(path.join(rig.cwd, "a.txt"), "broken\n");
    writeFileSync(path.join(rig.cwd, "check.sh"), 'if grep -qx ok a.txt; then echo " 1 pass"; echo " 0 fail"; else echo "(fail) a.txt says ok"; echo "FAIL a.txt: expected ok, got $(cat a.txt)" >&2; echo " 1 fail"; exit 1; fi\n');
    expect(await tests()).toBe("No test run in this session yet; `sh ./check.sh` (from settings). Run now: /tests run");

    expect(await tests("run")).toBe("Running `sh ./check.sh`… (/tests shows the output when it ends)");
    const failed = await finished();
    expect(failed).toMatchObject({ state: "failed", command: "sh ./check.sh", exitCode: 1, failing: 1, firstFailure: "(fail) a.txt says ok" });
    expect(failed["signature"]).toMatch(/^[0-9a-f]{16}$/);
    const shown = await tests();
    expect(shown.split("\n")[0]).toBe("Tests failed (1 failing): `sh ./check.sh` exited with 1.");
    // stderr is merged into the output in order.
    expect(shown).toContain("(fail) a.txt says ok\nFAIL a.txt: expected ok, got broken\n 1 fail");

    writeFileSync(path.join(rig.cwd, "a.txt"), "ok\n");
    await tests("run");
    const passed = await poll(async () => {
      const r = await finished();
      return r["state"] === "passed" ? r : undefined;
    }, "a pass");
    expect(passed).toMatchObject({ state: "passed", passed: 1 });
    // The failed run's keys are gone (a status merge keeps what is not removed).
    expect([passed["exitCode"], passed["signature"], passed["firstFailure"]]).toEqual([undefined, undefined, undefined]);
    expect((await tests()).split("\n")[0]).toMatch(/^Tests passed in \d+\.\d s: `sh \.\/check\.sh`\.$/);
  });

  test("a hung command is stopped at its timeout with everything it started, and shown as an error", async () => {
    const { rig, tests, finished } = await testWatch({ command: "sleep 300 & echo $! > child.pid; wait", timeoutMs: 1000 });
    await tests("run");
    const pid = await childPid(rig);
    const run = await finished();
    expect(run).toMatchObject({ state: "error", error: "`sleep 300 & echo $! > child.pid; wait` ran longer than 1 s and was stopped with everything it started" });
    await poll(async () => (isRunning(pid) ? undefined : true), `the test command's child ${pid} to be gone`, 5_000);
    expect(rig.toasts.map((t) => t.text)).toContain("Tests: `sleep 300 & echo $! > child.pid; wait` ran longer than 1 s and was stopped with everything it started");
    expect((await tests()).split("\n")[0]).toBe("The test command did not finish: `sleep 300 & echo $! > child.pid; wait` ran longer than 1 s and was stopped with everything it started.");
  });

  test("a runner killed with -9 mid-run takes the test command's children with it (the group's watchdog)", async () => {
    const { rig, tests } = await testWatch({ command: "sleep 300 & echo $! > child.pid; wait" });
    await tests("run");
    const pid = await childPid(rig);
    const runner = rig.manager.activeBindings()[0]?.runnerPid;
    expect(runner).toBeNumber();
    process.kill(runner as number, "SIGKILL");
    await poll(async () => (isRunning(pid) ? undefined : true), `the test command's child ${pid} to be gone`, 10_000);
  });

  test("a command the shell cannot find is an error, not failing tests", async () => {
    const { tests, finished } = await testWatch({ command: "no-such-test-runner --all" });
    await tests("run");
    const run = await finished();
    expect(run["state"]).toBe("error");
    expect(String(run["error"])).toMatch(/^`no-such-test-runner --all` could not run \(exit 127\): .*not found/);
  });
});

describe("baton/test-watch's loop (controllers)", () => {
  setDefaultTimeout(60_000);
  const FAILURE = { apiVersion: "testwatch.baton.dev/v1alpha1", kind: "TestFailure" };
  let revision = 0;
  const editTurn = (rig: PluginRig, target: string, kind = "edit") => {
    revision += 1;
    rig.injectEvent("_baton_turn_summary", { turnId: `t_${revision}`, toolCalls: [{ toolCallId: `c${revision}`, title: "edit a.txt", kind, status: "completed" }] }, target);
  };

  test("an edit that breaks the tests proposes one fix to its agent; the same failure never again; a pass withdraws; a new failure proposes", async () => {
    const { rig, finished } = await testWatch({ command: "sh ./check.sh" });
    writeFileSync(path.join(rig.cwd, "check.sh"), 'if grep -qx ok a.txt; then echo " 1 pass"; else echo "FAIL a.txt: expected ok, got $(cat a.txt)"; exit 1; fi\n');
    writeFileSync(path.join(rig.cwd, "a.txt"), "ok\n");
    const binding = rig.manager.activeBindings()[0];
    const store = binding?.resources;
    let pokes = 0;
    const wake = async () => {
      await store?.patchStatus(WATCH, { poke: ++pokes });
      for (let i = 0; i < 3; i++) await binding?.controllerHost?.idle();
    };
    const settled = async () => {
      const run = await finished();
      await poll(async () => (((await store?.get(WATCH))?.status["run"] as Record<string, unknown>)?.["settled"] === true ? true : undefined), "the run to be settled");
      for (let i = 0; i < 3; i++) await binding?.controllerHost?.idle();
      return run;
    };
    const proposals = () => rig.outputs.flatMap((o) => (o.output.kind === "proposed-input" ? [{ output: o.output }] : []));
    await poll(async () => ((await store?.get(WATCH))?.status["seenRevision"] !== undefined ? true : undefined), "the first look");

    writeFileSync(path.join(rig.cwd, "a.txt"), "broken\n");
    editTurn(rig, "codex");
    await wake();
    expect((await settled())["state"]).toBe("failed");
    expect(proposals()).toHaveLength(1);
    expect(proposals()[0]?.output).toMatchObject({ kind: "proposed-input", targetId: "codex", title: "Fix the failing tests" });
    expect(proposals()[0]?.output.text).toContain("FAIL a.txt: expected ok, got broken");

    editTurn(rig, "claude");
    await wake();
    expect((await settled())["state"]).toBe("failed");
    expect(proposals()).toHaveLength(1);

    writeFileSync(path.join(rig.cwd, "a.txt"), "ok\n");
    editTurn(rig, "codex");
    await wake();
    expect((await settled())["state"]).toBe("passed");
    expect(await store?.list(FAILURE)).toEqual([]);

    writeFileSync(path.join(rig.cwd, "a.txt"), "worse\n");
    editTurn(rig, "claude");
    await wake();
    await settled();
    expect(proposals()).toHaveLength(2);
    expect(proposals()[1]?.output).toMatchObject({ targetId: "claude" });
  });
});
