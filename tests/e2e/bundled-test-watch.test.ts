/**
 * baton/test-watch as shipped (bundled-plugins/test-watch), installed through the real pipeline and run in
 * a real runner: `/tests run` runs the configured command in a process group of its own, the run's end is
 * in the TestWatch status, `/tests` shows the output; a hung command is stopped with its children (no
 * orphan) and shown as an error.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bundledLoop, fakeLoopSession, type BundledLoop, type FakeLoopSession } from "../support/bundled-loops.ts";
import { createPluginRig, type PluginRig } from "../support/plugin-rig.ts";
import { isRunning } from "../support/processes.ts";

const TEST_WATCH_DIR = path.resolve(import.meta.dir, "../../bundled-plugins/test-watch");
const WATCH = { apiVersion: "testwatch.baton.dev/v1alpha1", kind: "TestWatch", name: "project" };

let rigs: PluginRig[] = [];
let sessions: FakeLoopSession[] = [];
afterEach(async () => {
  for (const rig of rigs) await rig.close();
  for (const s of sessions) await s.close();
  rigs = [];
  sessions = [];
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

describe("baton/test-watch from real turns (a session with the fake adapter)", () => {
  setDefaultTimeout(60_000);

  test("an editing turn that breaks the tests → one proposal with the failing line; the same failure never again; submitted, the fix turn runs and the Board goes green; a new failure proposes again", async () => {
    const f = await fakeLoopSession({
      fake: [
        [{ type: "write", path: "a.txt", content: "broken\n" }, { type: "text", text: "I changed a.txt." }],
        [{ type: "write", path: "b.txt", content: "b\n" }, { type: "text", text: "Added b.txt." }],
        [{ type: "write", path: "a.txt", content: "ok\n" }, { type: "text", text: "Fixed a.txt." }],
      ],
      other: [[{ type: "write", path: "a.txt", content: "worse\n" }, { type: "text", text: "Changed a.txt again." }]],
    });
    sessions.push(f);
    writeFileSync(path.join(f.home.cwd, "a.txt"), "ok\n");
    writeFileSync(path.join(f.home.cwd, "check.sh"), 'if grep -qx ok a.txt; then echo " 1 pass"; else echo "FAIL a.txt: expected ok, got $(cat a.txt)"; exit 1; fi\n');
    const loop: BundledLoop = await bundledLoop(f.session, "test-watch", { command: "sh ./check.sh" });
    rigs.push(loop.rig);
    const runs = async () => (await loop.binding.resources?.get(WATCH))?.status["run"] as { id: string; settled?: boolean } | undefined;
    const actedOn = async (before: string | undefined) =>
      loop.until(async () => {
        const run = await runs();
        return run !== undefined && run.id !== before && run.settled === true ? run : undefined;
      }, "the turn's run to be acted on");
    await loop.until(() => (loop.board()[0] === "Tests: waiting for an edit" ? true : undefined), "the Board's first line");

    expect(await f.say("fake", "change a.txt")).toBe("completed");
    await actedOn(undefined);
    const [card, ...more] = loop.pending();
    expect(more).toEqual([]);
    expect(card?.draft).toMatchObject({ type: "proposed_input", title: "Fix the failing tests", targetId: "fake" });
    expect(card?.draft.text).toContain("FAIL a.txt: expected ok, got broken");
    expect(card?.draft.pluginContext).toMatchObject({ pluginId: "baton/test-watch", resource: { apiVersion: "testwatch.baton.dev/v1alpha1", kind: "TestFailure" } });
    expect(loop.board()).toEqual(["Tests: failing (exit 1)"]);

    // Another edit, the same failure: it runs again, and no second card.
    let before = (await runs())?.id;
    expect(await f.say("fake", "add b.txt")).toBe("completed");
    await actedOn(before);
    expect(loop.opened()).toHaveLength(1);
    expect(loop.pending().map((p) => String(p.interactionId))).toEqual([String(card?.interactionId)]);

    // Submitted as suggested: the agent's prompt is the proposal's text, its fix makes the run pass.
    before = (await runs())?.id;
    expect(await f.session.controller.proposals.submit(card?.interactionId ?? "")).toBe("completed");
    expect(JSON.stringify(f.fake.adapters[0]?.record.prompts.at(-1))).toContain("FAIL a.txt: expected ok, got broken");
    await actedOn(before);
    await loop.until(() => (loop.board()[0]?.startsWith("Tests: passing ✓") === true ? true : undefined), "the Board to go green");
    expect(loop.board()[0]).toMatch(/^Tests: passing ✓ \d+\.\d s$/);
    expect(loop.pending()).toEqual([]);
    expect(await loop.binding.resources?.list({ apiVersion: "testwatch.baton.dev/v1alpha1", kind: "TestFailure" })).toEqual([]);

    // A new failure, by the other agent: proposed again, to that agent.
    before = (await runs())?.id;
    expect(await f.say("other", "change a.txt again")).toBe("completed");
    await actedOn(before);
    expect(loop.opened()).toHaveLength(2);
    expect(loop.pending()[0]?.draft).toMatchObject({ targetId: "other" });
    expect(loop.pending()[0]?.draft.text).toContain("FAIL a.txt: expected ok, got worse");
  });
});
