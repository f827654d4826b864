/**
 * Plugins in a real session: binding facts go through the Controller into the ledger and the projection,
 * the same instance has the same pi_ id in two sessions (PLG-02), and closing the session stops every
 * runner after the harnesses and before the ledger is flushed (the `closed` fact is on disk).
 */
import { afterEach, describe, expect, test } from "bun:test";
import path from "node:path";
import type { AppContext } from "../../src/app/app-context.ts";
import { createCatalog, sessionPlugins } from "../../src/app/plugins.ts";
import { readLedgerFile } from "../../src/store/index.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { FIXTURE_DIR, FIXTURE_ID, npmEnv } from "../support/plugin-rig.ts";
import { isRunning } from "../support/processes.ts";
import { makeTestHome, openTestSession, type TestHome } from "../support/session-host.ts";

let home: TestHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

describe("plugins in a session", () => {
  test("binding facts are in the ledger; same pi_ id across sessions; close stops the runner before the flush", async () => {
    home = makeTestHome();
    const ctx = { home: home.home, childEnv: npmEnv(path.dirname(home.home)) } as unknown as AppContext;
    const catalog = createCatalog(ctx);
    await catalog.install(FIXTURE_DIR);
    await catalog.enable({ pluginId: FIXTURE_ID }, async () => true);

    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const opened = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] })] });
      const plugins = sessionPlugins(ctx, opened, new Set(["exit", "model"]));
      const report = await plugins.manager.start();
      expect(report.activated).toEqual([`${FIXTURE_ID}@local`]);
      const [binding] = Object.values(opened.controller.state.plugins);
      expect(binding).toMatchObject({ pluginId: FIXTURE_ID, state: "active" });
      ids.push(binding?.pluginInstanceId ?? "");
      expect(await plugins.execute(binding?.pluginInstanceId ?? "", "echo", "through the port")).toEqual({ kind: "message", text: "through the port" });
      const pid = plugins.manager.activeBindings()[0]?.runnerPid ?? 0;
      expect(isRunning(pid)).toBe(true);

      await opened.close();
      expect(isRunning(pid)).toBe(false);
      const updates = readLedgerFile(opened.ref.paths.ledger).filter((e) => e.kind === "_baton_plugin_binding_update");
      expect(updates.map((e) => (e.payload as { state: string; reason?: { code: string } }).state + (e.payload as { reason?: { code: string } }).reason?.code)).toEqual([
        "activeundefined",
        "closedshutdown",
      ]);
      expect(updates.every((e) => e.source.type === "baton")).toBe(true);
    }
    expect(ids[0]).toMatch(/^pi_[0-9a-f]{16}$/);
    expect(ids[1]).toBe(ids[0]);
  });
});
