/**
 * The bundled test-watch with the real Codex against the mock model server, in-process: Codex's apply_patch
 * breaks a.txt, the turn's summary (as the real adapter records it) makes test-watch run the tests, and its
 * one proposal goes to codex with the failing line; a second Codex turn fixes it, the run passes and the
 * TestFailure (the proposal's resource) is gone. The Manager's host port is the session: the BatonSnapshot
 * comes from its projection; reconcile outputs are collected here (the app's place for them is #16's).
 * Until Baton derives Turn resources from turn summaries, the test wakes the TestWatch after each turn.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { codexDefinition } from "../../src/harness/codex/definition.ts";
import { PluginCatalog } from "../../src/plugin/catalog.ts";
import { PluginManager, type PluginOutput } from "../../src/plugin/manager.ts";
import { batonSnapshot } from "../../src/plugin/resources/snapshot.ts";
import { makeCodexHome } from "../support/codex-home.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { BATON_VERSION, npmEnv } from "../support/plugin-rig.ts";
import { openRealSession } from "../support/session-host.ts";

setDefaultTimeout(120_000);
const TEST_WATCH = path.resolve(import.meta.dir, "../../bundled-plugins/test-watch");
const WATCH = { apiVersion: "testwatch.baton.dev/v1alpha1", kind: "TestWatch", name: "project" };
const FAILURE = { apiVersion: "testwatch.baton.dev/v1alpha1", kind: "TestFailure" };

let mock: MockResponses;
beforeAll(async () => {
  mock = await startMockResponses();
});
afterAll(async () => {
  await mock.stop();
});

async function until<T>(read: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test("real Codex: apply_patch breaks the tests → one proposal to codex with the failing line; the fix turn → passing, the proposal's resource gone", async () => {
  const home = makeCodexHome({ baseUrl: mock.baseUrl, approvalPolicy: "never", sandboxMode: "danger-full-access" });
  const cwd = home.workdir;
  writeFileSync(path.join(cwd, "a.txt"), "ok\n");
  writeFileSync(path.join(cwd, "check.sh"), 'if grep -qx ok a.txt; then echo " 1 pass"; else echo "FAIL a.txt: expected ok, got $(cat a.txt)"; exit 1; fi\n');
  const { session, home: batonHome, cleanup } = await openRealSession({ definitions: [codexDefinition], cwd, env: home.env, settings: { generateTitles: false } });
  const outputs: PluginOutput[] = [];
  const pluginsHome = path.join(batonHome, "plugins-home");
  mkdirSync(pluginsHome, { recursive: true });
  const catalog = new PluginCatalog({ home: pluginsHome, batonVersion: BATON_VERSION, npm: { env: npmEnv(pluginsHome) } });
  const manager = new PluginManager({
    catalog,
    session: { batonSessionId: session.ref.batonSessionId, cwd, projectDir: session.ref.projectDir, sessionDir: session.ref.paths.dir },
    host: {
      record: (update) => void session.controller.pipeline.append({ kind: "_baton_plugin_binding_update", payload: update, source: { type: "baton" } }),
      projected: () => session.controller.state.plugins,
      toast: () => undefined,
      askConsent: async () => true,
      snapshot: () => batonSnapshot(session.controller.state, cwd),
      publish: (output) => void outputs.push(output),
    },
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home.env["HOME"] ?? pluginsHome },
    log: session.log,
    reservedCommands: new Set(["tests-reserved-none"]),
  });
  try {
    const installed = await catalog.install(TEST_WATCH);
    await catalog.settings.upsert(`${installed.receipt.pluginId}@${installed.receipt.marketplace}`, { enabled: false, version: installed.receipt.version, config: { command: "sh ./check.sh" } });
    const binding = await manager.enable("baton/test-watch");
    expect(binding.state).toBe("active");
    const store = binding.resources;
    const status = async () => (await store?.get(WATCH))?.status ?? {};
    await until(async () => ((await status())["seenRevision"] !== undefined ? true : undefined), "test-watch's first look");
    let pokes = 0;
    const afterTurn = async () => {
      const before = ((await status())["run"] as { id?: string } | undefined)?.id;
      await store?.patchStatus(WATCH, { poke: ++pokes });
      // A new run (not the one before this turn), ended and acted on.
      await until(async () => {
        const run = (await status())["run"] as { id?: string; state?: string; settled?: boolean } | undefined;
        return run !== undefined && run.id !== before && run.state !== "running" && run.settled === true ? run : undefined;
      }, "the turn's run to end and be acted on");
      for (let i = 0; i < 3; i++) await binding.controllerHost?.idle();
      return (await status())["run"] as { state: string };
    };

    await mock.script([{ kind: "apply_patch", patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-ok\n+broken\n*** End Patch" }, { kind: "text", text: "I changed a.txt." }]);
    expect(await session.controller.submit("codex", [{ type: "text", text: "change a.txt" }])).toBe("completed");
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("broken\n");
    expect(session.controller.state.turnSummaries.at(-1)?.toolCalls.map((t) => t.kind)).toContain("edit");
    expect((await afterTurn()).state).toBe("failed");
    const proposals = () => outputs.flatMap((o) => (o.output.kind === "proposed-input" ? [o.output] : []));
    expect(proposals()).toHaveLength(1);
    expect(proposals()[0]).toMatchObject({ targetId: "codex", title: "Fix the failing tests" });
    expect(proposals()[0]?.text).toContain("FAIL a.txt: expected ok, got broken");

    await mock.script([{ kind: "apply_patch", patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-broken\n+ok\n*** End Patch" }, { kind: "text", text: "Fixed." }]);
    expect(await session.controller.submit("codex", [{ type: "text", text: proposals()[0]?.text ?? "" }])).toBe("completed");
    expect((await afterTurn()).state).toBe("passed");
    expect((await store?.list(FAILURE))?.filter((f) => f.metadata.deletionTimestamp === undefined)).toEqual([]);
    expect(proposals()).toHaveLength(1);
  } finally {
    await manager.close();
    await cleanup();
    home.cleanup();
  }
});
