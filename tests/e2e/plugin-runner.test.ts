/**
 * Runners and bindings on real processes, driven by the fixture plugin (plugins.md §8): round trips,
 * cancellation, hung and exiting runners, the process group, the environment, protocol violations,
 * activation atomicity and rollback, consent, the crash-loop guard, close.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { waitUntil } from "../support/baton-process.ts";
import { createPluginRig, FIXTURE_DIR, FIXTURE_ID, fixtureVariant, type PluginRig, type RigOptions } from "../support/plugin-rig.ts";
import { isRunning } from "../support/processes.ts";

let rigs: PluginRig[] = [];
afterEach(async () => {
  for (const rig of rigs) await rig.close();
  rigs = [];
});

function rig(options: RigOptions = {}): PluginRig {
  const made = createPluginRig(options);
  rigs.push(made);
  return made;
}

const KEY = `${FIXTURE_ID}@local`;

function binding(r: PluginRig) {
  const b = r.manager.binding(KEY);
  if (b === undefined) throw new Error("no binding");
  return b;
}

async function run(r: PluginRig, command: string, argument = ""): Promise<string> {
  const b = binding(r);
  const result = await r.manager.execute(b.instance.pluginInstanceId, command, argument);
  return result.kind === "message" ? result.text : "";
}

describe("plugin runner", () => {
  test("activation: active with its commands recorded, data dirs 0700, round trips, stdout in the plugin log", async () => {
    const r = rig();
    await r.installAndEnable();
    const b = binding(r);
    expect(b.state).toBe("active");
    expect(r.updates.map((u) => u.state)).toEqual(["active"]);
    expect(r.updates[0]?.registrations?.map((x) => x.name).sort()).toEqual(["echo", "env", "exec-denied", "exit-runner", "garbage", "sleep", "spawn-child", "spin", "toast"]);
    expect(r.projected()[b.instance.pluginInstanceId]?.state).toBe("active");
    expect(await run(r, "echo", "hi there")).toBe("hi there");
    const instanceDir = path.join(r.root, "session", "plugins", "baton-test%2Ffixture", b.instance.pluginInstanceId);
    expect(statSync(instanceDir).mode & 0o777).toBe(0o700);
    await r.manager.close();
    const log = readFileSync(path.join(r.home, "plugins", "logs", "baton-test%2Ffixture.log"), "utf8");
    expect(log).toContain('"message":"fixture stdout line"');
    expect(log).toContain('"pluginInstanceId":"' + b.instance.pluginInstanceId + '"');
    expect(readFileSync(path.join(instanceDir, "closed.log"), "utf8")).toBe("closed\n");
    expect(r.updates.map((u) => [u.state, u.reason?.code])).toEqual([["active", undefined], ["closed", "shutdown"]]);
  });

  test("a slow call past its deadline is cancelled; the runner hears the cancel and the binding stays active", async () => {
    const r = rig({ timings: { deadlines: { "command/execute": 300 } } });
    await r.installAndEnable();
    const error = await run(r, "sleep", "5000").catch((e: unknown) => e);
    expect((error as Error).message).toContain("did not answer command/execute within 300 ms");
    const sleepLog = path.join(r.root, "session", "plugins", "baton-test%2Ffixture", binding(r).instance.pluginInstanceId, "sleep.log");
    // appendFileSync creates the file before it writes: wait for the line, not only the file (a loaded machine
    // shows the empty file in between).
    await waitUntil(() => existsSync(sleepLog) && readFileSync(sleepLog, "utf8").endsWith("\n"), 3000, "the runner to see the cancel");
    expect(readFileSync(sleepLog, "utf8")).toBe("cancelled\n");
    expect(binding(r).state).toBe("active");
    expect(await run(r, "echo", "still here")).toBe("still here");
  });

  test("a spinning runner is killed (group) within ~12 s while a 25 ms host timer keeps firing", async () => {
    const r = rig();
    await r.installAndEnable();
    const grandchild = Number(await run(r, "spawn-child"));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 25);
    const spinning = run(r, "spin").catch((e: unknown) => e);
    try {
      await waitUntil(() => binding(r).state === "failed", 20_000, "the hung runner to be killed");
    } finally {
      clearInterval(timer);
    }
    expect(binding(r).reason?.code).toBe("hung");
    expect(((await spinning) as Error).message).toMatch(/closed|stopped/);
    // The host's event loop ran all along: ~12 s of a 25 ms timer is hundreds of ticks, not a handful.
    expect(ticks).toBeGreaterThan(100);
    await waitUntil(() => !isRunning(grandchild), 3000, "the plugin's grandchild to die with its group");
    expect(r.updates.map((u) => u.state)).toEqual(["active", "failed"]);
    expect(r.projected()[binding(r).instance.pluginInstanceId]?.commands).toEqual([]);
  }, 30_000);

  test("a grandchild process is gone after disable; data stays", async () => {
    const r = rig();
    await r.installAndEnable();
    const pid = Number(await run(r, "spawn-child"));
    expect(pid).toBeGreaterThan(0);
    expect(isRunning(pid)).toBe(true);
    await r.manager.disable(FIXTURE_ID);
    await waitUntil(() => !isRunning(pid), 3000, "the grandchild to be gone");
    expect(binding(r).state).toBe("closed");
    expect((await r.catalog.settings.get(KEY))?.enabled).toBe(false);
    expect(r.updates.map((u) => [u.state, u.reason?.code])).toEqual([["active", undefined], ["closed", "disabled"]]);
  });

  test("exit → failed{exit} once, no automatic restart; a manual restart works; three failures keep it stopped", async () => {
    const r = rig();
    await r.installAndEnable();
    const pid = binding(r).runnerPid;
    await run(r, "exit-runner", "7").catch(() => undefined);
    await waitUntil(() => binding(r).state === "failed", 5000, "the exit to be seen");
    expect(binding(r).reason).toMatchObject({ code: "exit" });
    expect(binding(r).reason?.detail).toContain("exit code 7");
    await Bun.sleep(300);
    expect(r.updates.filter((u) => u.state === "failed").length).toBe(1);
    expect(binding(r).runnerPid).toBe(pid);

    const restarted = await r.manager.restart(FIXTURE_ID);
    expect(restarted.state).toBe("active");
    expect(await run(r, "echo", "back")).toBe("back");
    for (let i = 0; i < 2; i++) {
      await run(r, "exit-runner", "1").catch(() => undefined);
      await waitUntil(() => binding(r).state === "failed", 5000, "the exit");
      if (i === 0) await r.manager.restart(FIXTURE_ID);
    }
    const refused = (await r.manager.restart(FIXTURE_ID).catch((e: unknown) => e)) as Error;
    expect(refused.message).toBe(`${FIXTURE_ID} failed 3 times in the last 10 minutes and stays stopped`);
    await r.manager.disable(FIXTURE_ID);
    expect((await r.manager.enable(FIXTURE_ID)).state).toBe("active");
  });

  test("the runner environment is scrubbed; exec refuses undeclared programs", async () => {
    const r = rig({ env: { OPENAI_API_KEY: "sk-secret", GITHUB_TOKEN: "ghp", AWS_SECRET_ACCESS_KEY: "x", FIXTURE_DECLARED_TOKEN: "ok", UNRELATED: "u", LANG: "C.UTF-8" } });
    await r.installAndEnable();
    const names = (await run(r, "env")).split(" ");
    expect(names).toContain("FIXTURE_DECLARED_TOKEN");
    expect(names).toContain("LANG");
    expect(names).toContain("BATON_PLUGIN_INSTANCE_ID");
    for (const secret of ["OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "UNRELATED"]) expect(names).not.toContain(secret);
    expect(await run(r, "exec-denied")).toBe("exec: 'curl' is not declared in permissions.exec of this plugin's manifest (declared: sh)");
  });

  test("garbage on fd 3 is a protocol violation: the binding fails closed", async () => {
    const r = rig();
    await r.installAndEnable();
    await run(r, "garbage").catch(() => undefined);
    await waitUntil(() => binding(r).state === "failed", 5000, "the violation");
    expect(binding(r).reason?.code).toBe("protocol");
    expect(binding(r).reason?.detail).toContain("this is not json");
  });

  test("a runner that exits during activation fails, and enable rolls back to disabled", async () => {
    const r = rig();
    const error = (await r.installAndEnable(undefined, { mode: "exit" }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("did not start");
    expect(error.message).toContain("it stays disabled");
    expect(binding(r).reason).toMatchObject({ code: "exit" });
    expect(binding(r).reason?.detail).toContain("during activation");
    expect((await r.catalog.settings.get(KEY))?.enabled).toBe(false);
  });

  test("MGR-02: activate that throws after registering leaves no command; a registration the manifest does not list fails", async () => {
    const r = rig();
    await r.installAndEnable(undefined, { mode: "throw-after-register" }).catch(() => undefined);
    expect(r.updates.map((u) => [u.state, u.reason?.code])).toEqual([["failed", "activation"]]);
    expect(r.updates[0]?.reason?.detail).toContain("activation failed on purpose");
    expect(r.updates.some((u) => u.registrations !== undefined)).toBe(false);

    await r.catalog.settings.upsert(KEY, { config: { mode: "extra-command" } });
    await r.manager.enable(FIXTURE_ID).catch(() => undefined);
    expect(r.updates.at(-1)?.reason?.detail).toContain("registered commands [echo, env, exec-denied, exit-runner, garbage, sleep, spawn-child, spin, surprise, toast] but its manifest lists");
  });

  test("a plugin command may not shadow a Baton command", async () => {
    const r = rig({ reserved: ["echo"] });
    await r.installAndEnable().catch(() => undefined);
    expect(r.updates.at(-1)?.reason?.detail).toBe("command /echo would shadow a Baton command; rename it");
  });

  test("consent: declined leaves it disabled; the digest is stored; an update whose permissions grow asks again", async () => {
    const r = rig();
    r.consentAnswer = false;
    expect(((await r.installAndEnable().catch((e: unknown) => e)) as Error).message).toBe(`${FIXTURE_ID} was not enabled: consent was not given`);
    expect(await r.catalog.settings.get(KEY)).toBeUndefined();
    expect(r.consents[0]).toMatchObject({ pluginId: FIXTURE_ID, lines: ["may run: sh", "reads environment: FIXTURE_DECLARED_TOKEN"], growth: undefined });
    expect(r.consents[0]?.warning).toContain("not sandbox");

    r.consentAnswer = true;
    await r.manager.enable(FIXTURE_ID);
    const stored = await r.catalog.settings.get(KEY);
    expect(stored?.consent?.treeDigest).toBe(r.consents[1]?.treeDigest);
    await r.manager.disable(FIXTURE_ID);
    await r.manager.enable(FIXTURE_ID);
    expect(r.consents.length).toBe(2);

    const v2 = fixtureVariant(path.join(r.root, "v2"), { version: "0.2.0", manifest: (m) => ((m["permissions"] as { exec: string[] }).exec = ["sh", "git"]) });
    await r.catalog.install(v2);
    await r.manager.enable(`${FIXTURE_ID}@0.2.0`);
    expect(r.consents[2]?.growth).toEqual(["may now run: git"]);
    expect(binding(r).version).toBe("0.2.0");
  });

  test("MGR-03: a failed version update keeps the old version active", async () => {
    const r = rig();
    await r.installAndEnable();
    const source = readFileSync(path.join(FIXTURE_DIR, "index.js"), "utf8");
    const broken = fixtureVariant(path.join(r.root, "broken"), { version: "0.3.0" });
    writeFileSync(path.join(broken, "index.js"), source.replace('version: "0.1.0"', 'version: "9.9.9"'));
    await r.catalog.install(broken);
    const error = (await r.manager.enable(`${FIXTURE_ID}@0.3.0`).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("the default export's version '9.9.9' differs from the manifest's '0.3.0'");
    expect(error.message).toContain("0.1.0 is active again");
    expect(binding(r).state).toBe("active");
    expect(binding(r).version).toBe("0.1.0");
    expect((await r.catalog.settings.get(KEY))?.version).toBe("0.1.0");
  });

  test("MGR-01: start closes what a dead process left active; one plugin failing activation still lets another activate", async () => {
    const r = rig();
    await r.catalog.install(FIXTURE_DIR);
    await r.catalog.enable({ pluginId: FIXTURE_ID }, async () => true);
    const other = fixtureVariant(path.join(r.root, "other"), { manifest: (m) => (m["pluginId"] = "baton-test/other") });
    writeFileSync(path.join(other, "index.js"), readFileSync(path.join(FIXTURE_DIR, "index.js"), "utf8").replace('pluginId: "baton-test/fixture"', 'pluginId: "baton-test/other"'));
    await r.catalog.install(other);
    await r.catalog.settings.upsert("baton-test/other@local", { enabled: true, version: "0.1.0", config: { mode: "exit" } });
    await r.catalog.enable({ pluginId: "baton-test/other" }, async () => true);
    const fixtureId = (await r.catalog.settings.get(KEY))?.pluginInstanceId ?? "";
    r.inject({ pluginInstanceId: fixtureId, pluginId: FIXTURE_ID, packageVersion: "0.1.0", treeDigest: "sha512-old", state: "active", registrations: [] });

    const report = await r.manager.start();
    expect(report.activated).toEqual([KEY]);
    expect(report.failures.map((f) => f.key)).toEqual(["baton-test/other@local"]);
    expect(r.updates[1]).toMatchObject({ pluginInstanceId: fixtureId, state: "closed", reason: { code: "recovery" } });
    expect(r.updates.slice(2).map((u) => `${u.pluginId} ${u.state}`).sort()).toEqual([`${FIXTURE_ID} active`, "baton-test/other failed"]);
  });

  test("MGR-04/05: reload starts fresh runners; close twice is harmless", async () => {
    const r = rig();
    await r.installAndEnable();
    const before = binding(r).runnerPid;
    const report = await r.manager.reload();
    expect(report.activated).toEqual([KEY]);
    expect(binding(r).runnerPid).not.toBe(before);
    expect(before !== undefined && isRunning(before)).toBe(false);
    await r.manager.close();
    await r.manager.close();
    expect(r.updates.map((u) => [u.state, u.reason?.code])).toEqual([["active", undefined], ["closed", "reload"], ["active", undefined], ["closed", "shutdown"]]);
    expect(((await r.manager.enable(FIXTURE_ID).catch((e: unknown) => e)) as Error).message).toBe("the session is closing");
  });
});
