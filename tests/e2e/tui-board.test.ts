/**
 * The Board and plugin commands in the real terminal UI (tmux, TUI-11, BRD-01, CMD-01): a card the board
 * fixture creates is on the Board (footer `board:1`) but, on a 100-column terminal, shown only after
 * `/board` (overlay; Esc closes it); at 150 columns `/board auto` shows it inline; `/pick` and `/find` answer
 * with pickers whose chosen item runs the command again (CMD-01).
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { PluginCatalog } from "../../src/plugin/catalog.ts";
import { EXIT_MARKER, processesIn, Tmux } from "../support/tmux.ts";
import { BATON_VERSION, BOARD_DIR, npmEnv, tempDir } from "../support/plugin-rig.ts";

const LAUNCHER = path.resolve(import.meta.dir, "../../bin/baton.cjs");
let tmux: Tmux | undefined;
let base: string | undefined;

afterEach(() => {
  tmux?.kill();
  tmux = undefined;
  if (base) rmSync(base, { recursive: true, force: true });
});

/** Type a command name, wait for completion to offer it (the composer caught up), then the rest and Enter. */
async function command(t: Tmux, name: string, offered: string, argument = ""): Promise<void> {
  t.type(name);
  await t.waitFor(offered, 15_000);
  if (argument !== "") {
    t.type(` ${argument}`);
    await t.waitFor(`${name} ${argument}`);
  }
  t.keys("Enter");
}

async function waitGone(t: Tmux, text: string, timeoutMs = 10_000): Promise<string> {
  const start = Date.now();
  let screen = t.capture();
  while (screen.includes(text) && Date.now() - start < timeoutMs) {
    await Bun.sleep(25);
    screen = t.capture();
  }
  if (screen.includes(text)) throw new Error(`'${text}' still on screen:\n${screen}`);
  return screen;
}

test("/board shows the plugin Board (overlay when narrow, inline when wide), kept current as cards arrive", async () => {
  base = tempDir("baton-tui-board-");
  const cwd = path.join(base, "project");
  const home = path.join(base, "baton");
  mkdirSync(cwd, { recursive: true });
  const catalog = new PluginCatalog({ home, batonVersion: BATON_VERSION, npm: { env: npmEnv(base) } });
  await catalog.install(BOARD_DIR);
  await catalog.enable({ pluginId: "baton-test/board" }, async () => true);

  const env = { PATH: process.env["PATH"] ?? "", HOME: base, BATON_HOME: home, TERM: "screen-256color", LANG: "C.UTF-8" };
  const t = (tmux = Tmux.start({ command: ["node", LAUNCHER], env, cwd, width: 100, height: 40 }));
  await t.waitFor(/baton · session bs_\w+/, 15_000);

  await command(t, "/card", "Put a card on the Board", "first Deploy the docs");
  let screen = await t.waitFor("card first created", 15_000);
  screen = await t.waitFor("board:1", 10_000);
  // 100 columns, mode auto: the Board is not drawn.
  expect(screen).not.toContain("Deploy the docs");

  await command(t, "/board", "Show or hide the plugin Board");
  screen = await t.waitFor("Deploy the docs", 10_000);
  expect(screen).toContain("Card · baton-test/board");
  expect(screen).toContain("Esc close");
  t.keys("Escape");
  await waitGone(t, "Deploy the docs");

  // Wide: hidden stays hidden until `/board auto`, then it is inline (no overlay footer).
  t.resize(150, 40);
  await Bun.sleep(200);
  expect(t.capture()).not.toContain("Deploy the docs");
  await command(t, "/board", "Show or hide the plugin Board", "auto");
  screen = await t.waitFor("Deploy the docs", 10_000);
  expect(screen).not.toContain("Esc close");
  // A second card shows up without a command to the Board.
  await command(t, "/card", "Put a card on the Board", "second Ship it");
  screen = await t.waitFor("Ship it", 15_000);
  await t.waitFor("board:2");

  // Commands that answer with a picker (CMD-01): choosing an item runs the command again with its value,
  // and the answer shows as the plugin's item. (The transcript shares its lines with the inline Board.)
  await command(t, "/pick", "Choose a colour");
  screen = await t.waitFor("Pick a colour", 15_000);
  expect(screen).toMatch(/❯ Red {2}warm/);
  t.keys("Down");
  await t.waitFor(/❯ Green/);
  t.keys("Enter");
  screen = await t.waitFor(/● baton-test\/board[^\n]*\n\s+picked green/, 15_000);
  expect(screen).not.toContain("Pick a colour");
  // A remote search: the list is the plugin's answer to the typed query.
  await command(t, "/find", "Find a fruit");
  await t.waitFor("a fruit's first letters", 15_000);
  t.type("bl");
  screen = await t.waitFor(/⌕ bl[\s\S]*❯ blueberry/, 15_000);
  expect(screen).not.toContain("banana");
  t.keys("Enter");
  await t.waitFor(/● baton-test\/board[^\n]*\n\s+found blueberry/, 15_000);

  t.type("/exit");
  t.keys("Enter");
  await t.waitFor(EXIT_MARKER, 20_000);
  expect(processesIn(cwd, "bun")).toEqual([]);
}, 120_000);
