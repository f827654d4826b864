/**
 * The bundled test-watch in the real terminal UI (tmux, #17) with the real Codex against the mock model:
 * Codex's apply_patch breaks a.txt, the turn ends, test-watch runs the tests and its suggestion card is on
 * screen ("Suggested by baton/test-watch", the failing line) with the Board beside the transcript saying the
 * tests fail; Enter sends it to Codex (the model's request carries the failing line), Codex's fix turn passes
 * and the Board says so. The README screenshot (scripts/screenshots.ts) is this same scene.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { waitUntil } from "../support/baton-process.ts";
import { BUNDLED_DIR } from "../support/bundled-loops.ts";
import { codexTuiFile } from "../support/codex-tui.ts";
import { codexLastUserText } from "../support/crash-harnesses.ts";
import { cardAround, EXIT_MARKER, processesIn } from "../support/tmux.ts";

const tui = codexTuiFile();

test("test-watch: a Codex edit breaks the tests → the suggestion card and a failing Board on screen; Enter sends it, Codex's fix turns the Board green", async () => {
  const { t, cwd, mock } = await tui.start({
    codex: { approvalPolicy: "never", sandboxMode: "danger-full-access" },
    files: { "a.txt": "ok\n", "check.sh": 'if grep -qx ok a.txt; then echo " 1 pass"; else echo "FAIL a.txt: expected ok, got $(cat a.txt)"; exit 1; fi\n' },
    plugins: [{ dir: path.join(BUNDLED_DIR, "test-watch"), config: { command: "sh ./check.sh" } }],
    // The breaking turn (patch, then text), the session title (its own request after the first turn), the fix turn.
    replies: [
      { kind: "apply_patch", patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-ok\n+broken\n*** End Patch" },
      { kind: "text", text: "I changed a.txt." },
      { kind: "text", text: '{"title":"Change a.txt"}' },
      { kind: "apply_patch", patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-broken\n+ok\n*** End Patch" },
      { kind: "text", text: "Fixed: a.txt says ok again." },
    ],
    width: 130,
    height: 40,
  });
  await t.waitFor(/Message Codex .*Ctrl\+J newline/, 30_000);
  // The Board is beside the transcript (130 columns) once test-watch presents its first line.
  await t.waitFor("waiting for an edit", 30_000);
  await t.send("change a.txt", "I changed a.txt.");
  let screen = await t.waitFor("Suggested by baton/test-watch", 30_000);
  const card = cardAround(screen, "Suggested by baton/test-watch");
  expect(card).toContain("Fix the failing tests");
  expect(card).toContain("FAIL a.txt: expected ok, got broken");
  expect(card).toContain("Enter send");
  screen = await t.waitFor("failing (exit 1)", 10_000);
  expect(screen).toContain("TestWatch · baton/test-watch");
  // The footer fits the column beside the Board: its texts whole, not cut into each other.
  const footer = screen.split("\n").find((line) => line.includes("queue:")) ?? "";
  expect(footer).toMatch(/^ (session: bs_\w+…?  )?in:\d+ out:\d+  turns:1  queue:0  1 suggestion  board:1 +cwd:\S+ ╰─+╯$/);
  expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("broken\n");
  await waitUntil(async () => (await mock.requests()).length === 3, 30_000, "the title's request");

  // Enter: sent as suggested, to Codex.
  t.keys("Enter");
  await t.waitFor("Fixed: a.txt says ok again.", 30_000);
  screen = await t.waitFor(/passing ✓ \d+\.\d s/, 30_000);
  expect(screen).not.toContain("Suggested by baton/test-watch");
  expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("ok\n");
  const requests = await mock.requests();
  expect(codexLastUserText(requests[3]?.body)).toContain("FAIL a.txt: expected ok, got broken");

  await t.waitFor(/codex · (\S+ · )?idle/, 20_000);
  t.keys("C-d");
  await t.waitFor(`${EXIT_MARKER}0]`, 20_000);
  expect(processesIn(cwd, "bun")).toEqual([]);
}, 150_000);
