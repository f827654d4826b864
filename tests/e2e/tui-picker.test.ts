/** `baton resume` / `baton fork` without an id on a terminal: the pre-screen picker (CLI-03/04), in tmux. */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSessionStore } from "../../src/store/index.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { createUlidSource } from "../../src/shared/ids.ts";
import { EXIT_MARKER, Tmux } from "../support/tmux.ts";

const LAUNCHER = path.resolve(import.meta.dir, "../../bin/baton.cjs");
let tmux: Tmux | undefined;
let base: string | undefined;

afterEach(() => {
  tmux?.kill();
  tmux = undefined;
  if (base) rmSync(base, { recursive: true, force: true });
});

function setUp(): { env: Record<string, string>; cwd: string; ids: string[] } {
  base = mkdtempSync(path.join(os.tmpdir(), "baton-picker-"));
  const cwd = path.join(base, "project");
  mkdirSync(cwd);
  const home = path.join(base, "baton");
  const store = createSessionStore({ home, clock: systemClock, ids: createUlidSource() });
  const ids = ["fix the flaky parser test", "write the release notes"].map((preview) => store.createSession({ cwd, preview }).batonSessionId);
  return { env: { PATH: process.env["PATH"] ?? "", HOME: base, BATON_HOME: home, TERM: "screen-256color", LANG: "C.UTF-8" }, cwd, ids };
}

test("baton resume: filter, Enter opens the chosen session in the UI; /exit prints its hints", async () => {
  const { env, cwd, ids } = setUp();
  const t = (tmux = Tmux.start({ command: ["node", LAUNCHER, "resume"], env, cwd, width: 100, height: 24 }));
  await t.waitFor("Resume a session");
  const screen = await t.waitFor("write the release notes");
  expect(screen).toContain("fix the flaky parser test");
  t.type("parser");
  await t.waitFor(/parser[\s\S]*fix the flaky parser test/);
  t.keys("Enter");
  await t.waitFor(`baton · session ${ids[0]}`, 15_000);
  t.type("/exit");
  t.keys("Enter");
  const end = await t.waitFor(EXIT_MARKER, 15_000);
  expect(end).toContain(`baton resume ${ids[0]}`);
}, 60_000);

test("baton fork: Esc quits without forking", async () => {
  const { env, cwd } = setUp();
  const t = (tmux = Tmux.start({ command: ["node", LAUNCHER, "fork"], env, cwd, width: 100, height: 24 }));
  await t.waitFor("Fork a previous session");
  t.keys("Escape");
  const end = await t.waitFor(`${EXIT_MARKER}0]`, 15_000);
  expect(end).not.toContain("forked");
}, 60_000);

test("starting with an agent that is not installed says so on the first screen, with how to fix it", async () => {
  const { env, cwd } = setUp();
  const { writeFileSync } = await import("node:fs");
  writeFileSync(path.join(env["BATON_HOME"]!, "config.yaml"), 'harnesses:\n  codex:\n    command: ["/nonexistent/codex", "app-server"]\n');
  const t = (tmux = Tmux.start({ command: ["node", LAUNCHER], env, cwd, width: 120, height: 24 }));
  const screen = await t.waitFor("Codex was not found", 15_000);
  expect(screen).toContain("npm install -g @openai/codex");
  expect(screen).toContain("/claude");
}, 60_000);
