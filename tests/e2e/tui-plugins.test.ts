/**
 * `/plugins` in the real terminal UI (tmux): the list with binding states, enabling through the consent
 * card, a plugin command in `/` completion once active, the "stopped" toast, restarting a failed binding,
 * and no runner left after /exit.
 */
import { afterEach, expect, test } from "bun:test";
import path from "node:path";
import { EXIT_MARKER, processesIn } from "../support/tmux.ts";
import { FIXTURE_DIR } from "../support/plugin-rig.ts";
import { startPluginTui, typeCommand as command, type PluginTui } from "../support/plugin-tui.ts";

const HELLO = path.resolve(import.meta.dir, "../../examples/marketplace");
let tui: PluginTui | undefined;

afterEach(() => {
  tui?.cleanup();
  tui = undefined;
});

test("/plugins lists states, enables with consent, runs a plugin command, toasts a failure, restarts it; /exit leaves no runner", async () => {
  tui = await startPluginTui({
    prefix: "baton-tui-plugins-",
    width: 130,
    prepare: async (catalog) => {
      await catalog.marketplaces.add(HELLO);
      await catalog.install("example/hello");
      await catalog.install(FIXTURE_DIR);
      await catalog.enable({ pluginId: "baton-test/fixture" }, async () => true);
    },
  });
  const { t, cwd } = tui;

  // The fixture was enabled before: it starts with the session, then its commands complete.
  await command(t, "/echo", "echo (baton-test/fixture)", "first");
  await t.waitFor(/● baton-test\/fixture\s+first/, 15_000);
  t.type("/plugins");
  t.keys("Enter");
  let screen = await t.waitFor("baton-test/fixture 0.1.0", 15_000);
  await t.waitFor(/local · active/);
  screen = await t.waitFor(/example · disabled/);
  expect(screen).toContain("example/hello 0.1.0");

  // Enable hello: the action, then the consent card (what it may do, not a sandbox), then it is active.
  t.type("hello");
  t.keys("Enter");
  await t.waitFor("Enable (shows what it may do first)");
  t.keys("Enter");
  screen = await t.waitFor("Enable plugin example/hello 0.1.0 (example)?", 15_000);
  expect(screen).toContain("may run: git");
  expect(screen).toContain("it does not sandbox");
  t.keys("1");
  await t.waitFor("Plugin example/hello active", 15_000);

  await command(t, "/hello", "Say hello (add a name) (example/hello)", "tmux");
  await t.waitFor("Hello, tmux! (greeting #1", 15_000);

  // A binding that fails shows the toast; /plugins shows why and restarts it.
  await command(t, "/exit-runner", "exit-runner (baton-test/fixture)", "3");
  await t.waitFor(/Plugin baton-test\/fixture stopped: exit/, 15_000);
  t.type("/plugins");
  t.keys("Enter");
  screen = await t.waitFor(/local · failed: exit/, 15_000);
  t.type("fixture");
  t.keys("Enter");
  await t.waitFor("Restart it");
  t.keys("Enter");
  await t.waitFor("Plugin baton-test/fixture active", 15_000);
  await command(t, "/echo", "echo (baton-test/fixture)", "still works");
  await t.waitFor("still works", 15_000);

  t.type("/exit");
  t.keys("Enter");
  await t.waitFor(EXIT_MARKER, 20_000);
  expect(processesIn(cwd, "bun")).toEqual([]);
}, 120_000);
