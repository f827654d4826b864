/**
 * The Board and plugin commands in the real terminal UI (tmux, TUI-11, BRD-01, CMD-01): a card the board
 * fixture creates is on the Board (footer `board:1`) but, on a 100-column terminal, shown only after
 * `/board` (overlay; Esc closes it); at 150 columns `/board auto` shows it inline; `/pick` and `/find` answer
 * with pickers whose chosen item runs the command again (CMD-01).
 */
import { afterEach, expect, test } from "bun:test";
import { EXIT_MARKER, processesIn } from "../support/tmux.ts";
import { BOARD_DIR } from "../support/plugin-rig.ts";
import { startPluginTui, typeCommand as command, type PluginTui } from "../support/plugin-tui.ts";

let tui: PluginTui | undefined;

afterEach(() => {
  tui?.cleanup();
  tui = undefined;
});

test("/board shows the plugin Board (overlay when narrow, inline when wide), kept current as cards arrive", async () => {
  tui = await startPluginTui({
    prefix: "baton-tui-board-",
    width: 100,
    prepare: async (catalog) => {
      await catalog.install(BOARD_DIR);
      await catalog.enable({ pluginId: "baton-test/board" }, async () => true);
    },
  });
  const { t, cwd } = tui;

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
  await t.waitGone("Deploy the docs");

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
  // A query and Enter at once: the choice is the first row of the query's answer, not of the list before it.
  await command(t, "/find", "Find a fruit");
  await t.waitFor("a fruit's first letters", 15_000);
  t.type("ch");
  t.keys("Enter");
  screen = await t.waitFor(/● baton-test\/board[^\n]*\n\s+found (cherry|apple)/, 15_000);
  expect(screen).toMatch(/found cherry/);

  t.type("/exit");
  t.keys("Enter");
  await t.waitFor(EXIT_MARKER, 20_000);
  expect(processesIn(cwd, "bun")).toEqual([]);
}, 120_000);
