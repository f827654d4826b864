/**
 * `/plugins` in the real terminal UI (tmux): the list with binding states, enabling through the consent
 * card, a plugin command in `/` completion once active, the "stopped" toast, restarting a failed binding,
 * and no runner left after /exit.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { PluginCatalog } from "../../src/plugin/catalog.ts";
import { EXIT_MARKER, processesIn, Tmux } from "../support/tmux.ts";
import { BATON_VERSION, FIXTURE_DIR, npmEnv, tempDir } from "../support/plugin-rig.ts";

const LAUNCHER = path.resolve(import.meta.dir, "../../bin/baton.cjs");
const HELLO = path.resolve(import.meta.dir, "../../examples/marketplace");
let tmux: Tmux | undefined;
let base: string | undefined;

afterEach(() => {
  tmux?.kill();
  tmux = undefined;
  if (base) rmSync(base, { recursive: true, force: true });
});

/**
 * Type a whole command name, wait until completion offers it (the composer has caught up with the keys),
 * then its argument and Enter — so a space never accepts a candidate for a half-typed name.
 */
async function command(t: Tmux, name: string, offered: string, argument: string): Promise<void> {
  t.type(name);
  await t.waitFor(offered, 15_000);
  t.type(` ${argument}`);
  await t.waitFor(`${name} ${argument}`);
  t.keys("Enter");
}

test("/plugins lists states, enables with consent, runs a plugin command, toasts a failure, restarts it; /exit leaves no runner", async () => {
  base = tempDir("baton-tui-plugins-");
  const cwd = path.join(base, "project");
  const home = path.join(base, "baton");
  mkdirSync(cwd, { recursive: true });
  const catalog = new PluginCatalog({ home, batonVersion: BATON_VERSION, npm: { env: npmEnv(base) } });
  await catalog.marketplaces.add(HELLO);
  await catalog.install("example/hello");
  await catalog.install(FIXTURE_DIR);
  await catalog.enable({ pluginId: "baton-test/fixture" }, async () => true);

  const env = { PATH: process.env["PATH"] ?? "", HOME: base, BATON_HOME: home, TERM: "screen-256color", LANG: "C.UTF-8" };
  const t = (tmux = Tmux.start({ command: ["node", LAUNCHER], env, cwd, width: 130, height: 40 }));
  await t.waitFor(/baton · session bs_\w+/, 15_000);

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
