/**
 * The TUI told to stop from outside (issue 11.4), in a real terminal (tmux) with the real Codex against the mock
 * Responses API, mid-turn: SIGTERM runs the normal exit and reports 143; closing the terminal (the pane is killed, so
 * its foreground job gets SIGHUP) cancels the turn and releases the session just the same, and nothing is left running.
 */
import { afterEach, beforeAll, afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import path from "node:path";
import { waitUntil } from "../support/baton-process.ts";
import { makeCodexHome, type CodexHome } from "../support/codex-home.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { commandOf, descendants, isRunning, tryKill } from "../support/processes.ts";
import { ledgerOf, lockFile } from "../support/session-files.ts";
import { EXIT_MARKER, processesIn, Tmux } from "../support/tmux.ts";

const LAUNCHER = path.resolve(import.meta.dir, "../../bin/baton.cjs");

let mock: MockResponses;
let codex: CodexHome | undefined;
let tmux: Tmux | undefined;
const seen = new Set<number>();

beforeAll(async () => {
  mock = await startMockResponses();
});
afterEach(() => {
  tmux?.kill();
  for (const pid of seen) tryKill(pid);
  codex?.cleanup();
});
afterAll(async () => {
  await mock.stop();
});

/** Start the TUI on Codex, send a prompt with a slow answer and wait until it streams. */
async function slowTurnOnScreen(prompt: string) {
  await mock.reset();
  await mock.script([{ kind: "text", text: "slow ".repeat(300), chunkSize: 5, delayMs: 100 }]);
  codex = makeCodexHome({ baseUrl: mock.baseUrl });
  const batonHome = path.join(codex.root, "baton");
  const t = (tmux = Tmux.start({
    command: ["node", LAUNCHER, "--agent", "codex"],
    env: { ...codex.env, BATON_HOME: batonHome, TERM: "screen-256color", LANG: "C.UTF-8" },
    cwd: codex.workdir,
  }));
  const sessionId = /baton · session (bs_\w+)/.exec(await t.waitFor(/baton · session bs_\w+/, 20_000))?.[1] ?? "";
  t.type(prompt);
  t.keys("Enter");
  await t.waitFor("slow slow", 30_000);
  const [baton] = processesIn(codex.workdir, "bun");
  expect(baton).toBeDefined();
  const processes = [baton!, ...descendants(baton!)];
  for (const pid of processes) seen.add(pid);
  expect(processes.some((pid) => commandOf(pid).includes("app-server"))).toBe(true);
  return { t, batonHome, sessionId, baton: baton!, processes };
}

function expectCancelled(batonHome: string, sessionId: string): void {
  const ledger = ledgerOf(batonHome, sessionId);
  expect(ledger.filter((e) => e.kind === "_baton_turn_summary").map((e) => e.payload["stopReason"])).toEqual(["cancelled"]);
  expect(ledger.filter((e) => e.kind === "state_update" && e.payload["state"] === "idle").map((e) => e.payload["stopReason"])).toEqual(["cancelled"]);
}

describe("the TUI stopped from outside, mid-turn (tmux, real Codex)", () => {
  test("SIGTERM: the normal exit (turn cancelled, lock released, resume hint), status 143", async () => {
    const { t, batonHome, sessionId, baton, processes } = await slowTurnOnScreen("answer slowly please");
    process.kill(baton, "SIGTERM");
    const end = await t.waitFor(EXIT_MARKER, 30_000);
    expect(end).toContain(`${EXIT_MARKER}143]`);
    expect(end).toContain(`baton resume ${sessionId}`);
    expectCancelled(batonHome, sessionId);
    expect(existsSync(lockFile(batonHome, sessionId))).toBe(false);
    await waitUntil(() => processes.every((pid) => !isRunning(pid)), 10_000, "every process of the run to end");
  }, 90_000);

  test("the terminal closes (SIGHUP to its foreground job): turn cancelled, lock released, nothing left running", async () => {
    const { t, batonHome, sessionId, processes } = await slowTurnOnScreen("answer slowly until the window closes");
    t.run(["kill-pane", "-t", "main"]);
    await waitUntil(() => !existsSync(lockFile(batonHome, sessionId)), 30_000, "the lock to be released");
    expectCancelled(batonHome, sessionId);
    await waitUntil(() => processes.every((pid) => !isRunning(pid)), 10_000, "every process of the run to end");
  }, 90_000);
});
