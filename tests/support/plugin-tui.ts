/**
 * The real `baton` TUI in tmux over a temp home whose plugins were installed (and enabled) beforehand, for
 * the plugin e2e tests: the temp tree (project dir, BATON_HOME), the catalog to prepare, the screen once the
 * session is up, and cleanup. Also how those tests type a command.
 */
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { PluginCatalog } from "../../src/plugin/catalog.ts";
import { BATON_VERSION, npmEnv, tempDir } from "./plugin-rig.ts";
import { Tmux } from "./tmux.ts";

const LAUNCHER = path.resolve(import.meta.dir, "../../bin/baton.cjs");

export interface PluginTui {
  readonly t: Tmux;
  /** The project directory baton runs in. */
  readonly cwd: string;
  /** Kill the tmux server and remove the temp tree. */
  cleanup(): void;
}

export async function startPluginTui(options: {
  readonly prefix: string;
  /** Install and enable plugins before baton starts. */
  readonly prepare: (catalog: PluginCatalog) => Promise<void>;
  readonly width: number;
  readonly height?: number;
}): Promise<PluginTui> {
  const base = tempDir(options.prefix);
  const cwd = path.join(base, "project");
  const home = path.join(base, "baton");
  mkdirSync(cwd, { recursive: true });
  let t: Tmux | undefined;
  const cleanup = (): void => {
    t?.kill();
    rmSync(base, { recursive: true, force: true });
  };
  try {
    await options.prepare(new PluginCatalog({ home, batonVersion: BATON_VERSION, npm: { env: npmEnv(base) } }));
    const env = { PATH: process.env["PATH"] ?? "", HOME: base, BATON_HOME: home, TERM: "screen-256color", LANG: "C.UTF-8" };
    t = Tmux.start({ command: ["node", LAUNCHER], env, cwd, width: options.width, height: options.height ?? 40 });
    await t.waitFor(/baton · session bs_\w+/, 15_000);
    return { t, cwd, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/**
 * Type a whole command name, wait until completion offers it (the composer has caught up with the keys),
 * then its argument and Enter — so a space never accepts a candidate for a half-typed name.
 */
export async function typeCommand(t: Tmux, name: string, offered: string, argument = ""): Promise<void> {
  t.type(name);
  await t.waitFor(offered, 15_000);
  if (argument !== "") {
    t.type(` ${argument}`);
    await t.waitFor(`${name} ${argument}`);
  }
  t.keys("Enter");
}
