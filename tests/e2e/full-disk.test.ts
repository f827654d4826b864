/**
 * A full disk never hangs, tears or reorders the ledger (issue 12.2), through the real `baton` binary with
 * the real Claude Code and Codex against their mock model servers:
 *
 * - `BATON_HOME` on a real 2 MB tmpfs filled to a few KiB free, a 12 KB prompt (the measured hang);
 * - a simulated ENOSPC (`BATON_FAILPOINT=enospc:<site>…`) at every write site of the store.
 *
 * Every run must exit (no hang; the cancel grace is 3 s), say "the disk is full" exactly once naming the
 * file, print no stack trace, and leave no lock, temp file, 0-byte sidecar, half-created session or torn
 * line. Then, with space again, the session opens with a contiguous seq, closes the lost turn with a
 * recovery notice (never re-sending its prompt), and answers the next prompt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { RECOVERY_NOTICE, TORN_TAIL_NOTICE } from "../../src/controller/recovery.ts";
import { runBaton, spawnBaton, waitUntil, type BatonRun } from "../support/baton-process.ts";
import { crashHarnesses, type CrashEnv, type CrashHarness } from "../support/crash-harnesses.ts";
import { descendants, tryKill } from "../support/processes.ts";
import { canMount, fillDisk, mountTmpfs, unmount } from "../support/tmpfs.ts";

type Event = { seq: number; kind: string; payload: Record<string, unknown>; turnId?: string };

const PROMPT = `${"Please read this carefully. ".repeat(450)}the prompt on a full disk`;
const EXIT_BOUND_MS = 60_000;

/** Where the disk fills, as a failpoint; `expectCode` is what exec exits with. */
interface Site {
  readonly name: string;
  readonly failpoint: string;
  readonly expectCode: number;
  /** The write fails before any session exists (nothing to reopen). */
  readonly beforeSession?: boolean;
  /** Harness-independent: run with the first harness only. */
  readonly once?: boolean;
}

const SITES: readonly Site[] = [
  { name: "project.json of a new project", failpoint: "enospc:project", expectCode: 1, beforeSession: true, once: true },
  { name: "a new session directory", failpoint: "enospc:session", expectCode: 1, beforeSession: true, once: true },
  { name: "meta.json of a new session", failpoint: "enospc:meta", expectCode: 1, beforeSession: true, once: true },
  { name: "the lock", failpoint: "enospc:lock", expectCode: 1, beforeSession: true, once: true },
  { name: "session.log", failpoint: "enospc:log", expectCode: 1 },
  { name: "the admission (user_message)", failpoint: "enospc:ledger:user_message", expectCode: 1 },
  { name: "the attempt before dispatch", failpoint: "enospc:ledger:_baton_delivery_attempt_update:prepared", expectCode: 1 },
  { name: "meta.json after dispatch", failpoint: "enospc:meta:_baton_delivery_attempt_update:dispatching", expectCode: 1 },
  { name: "a streamed chunk flush", failpoint: "enospc:ledger:agent_message_chunk", expectCode: 1 },
  { name: "the agent's complete message", failpoint: "enospc:ledger:agent_message", expectCode: 1 },
  { name: "the turn's terminal", failpoint: "enospc:ledger:state_update:idle", expectCode: 1 },
  { name: "the turn summary (written by the finalizer)", failpoint: "enospc:ledger:_baton_turn_summary", expectCode: 1 },
  { name: "the checkpoint (a cache: the turn is complete)", failpoint: "enospc:checkpoint", expectCode: 0 },
];

const matrix: string[] = [];

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? [full, ...walk(full)] : [full];
  });
}

function sessionDirs(home: string): string[] {
  const projects = path.join(home, "projects");
  if (!fs.existsSync(projects)) return [];
  return fs.readdirSync(projects).flatMap((project) => {
    const dir = path.join(projects, project, "sessions");
    return fs.existsSync(dir) ? fs.readdirSync(dir).map((id) => path.join(dir, id)) : [];
  });
}

/** The complete lines of a session's ledger (a torn last line, if any, is not an event). */
function events(dir: string): Event[] {
  const text = fs.readFileSync(path.join(dir, "session.jsonl"), "utf8");
  const complete = text.slice(0, text.lastIndexOf("\n") + 1);
  return complete.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as Event);
}

/** Runs exec, failing the test (instead of the suite timing out) when it does not exit. */
async function execBounded(env: CrashEnv, args: readonly string[], extraEnv: Record<string, string> = {}): Promise<BatonRun> {
  const child = spawnBaton(["exec", ...args], { env: { ...env.env, BATON_CANCEL_GRACE_SECONDS: "3", ...extraEnv }, cwd: env.cwd, stdin: "" });
  try {
    await waitUntil(() => child.exited(), EXIT_BOUND_MS, "baton exec to exit after the disk filled up (it hung)");
  } catch (error) {
    const stragglers = descendants(child.pid);
    child.signal("SIGKILL");
    for (const pid of stragglers) tryKill(pid);
    throw new Error(`${(error as Error).message}\nstderr:\n${child.stderr()}`);
  }
  return child.done;
}

/** What a full disk must never leave behind, and how it must be said. */
function expectStoppedCleanly(home: string, run: BatonRun, code: number): void {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code, stderr: expect.any(String) });
  if (code !== 0) {
    const said = run.stderr.match(/the disk is full: could not [^\n]*?(\/\S+)/g) ?? [];
    expect({ said: said.length, stderr: run.stderr }).toEqual({ said: 1, stderr: run.stderr });
    expect(run.stderr).toContain(home);
  }
  expect(run.stderr).not.toMatch(/^\s+at \S+.*:\d+:\d+\)?$/m);
  expect(run.stderr).not.toContain("unexpected error");
  const files = walk(home);
  expect(files.filter((file) => /(^|\/)lock$|\.tmp-|lock\.takeover/.test(file))).toEqual([]);
  expect(files.filter((file) => /\.partial-/.test(file) && fs.statSync(file).size === 0)).toEqual([]);
  for (const dir of sessionDirs(home)) {
    expect(fs.existsSync(path.join(dir, "meta.json"))).toBe(true);
    const ledger = fs.readFileSync(path.join(dir, "session.jsonl"));
    if (ledger.byteLength > 0) expect(ledger.at(-1)).toBe(0x0a);
  }
}

/**
 * With space again: contiguous seq, the lost turn closed once (with a recovery notice when its terminal never
 * reached the disk), the next prompt answered, the lost prompt never sent again as a prompt.
 */
async function expectReopens(harness: CrashHarness, env: CrashEnv, dir: string): Promise<string> {
  const id = path.basename(dir);
  const before = events(dir);
  const lost = before.find((event) => event.kind === "user_message" && JSON.stringify(event.payload).includes("the prompt on a full disk"));
  const closedOnDisk = lost !== undefined && before.some((event) => event.turnId === lost.turnId && event.kind === "state_update" && event.payload["state"] === "idle");
  await harness.resetScript();
  await harness.scriptText("after the disk was freed", "the next prompt");
  const seen = (await harness.promptsSeen()).length;
  const next = await execBounded(env, ["--agent", harness.target, "--session", id, "the next prompt"]);
  expect({ code: next.code, stderr: next.stderr }).toEqual({ code: 0, stderr: next.stderr });
  expect(next.stdout).toContain("after the disk was freed");
  const after = events(dir);
  expect(after.map((event) => event.seq)).toEqual(after.map((_, index) => index + 1));
  expect(after.slice(0, before.length)).toEqual(before);
  if (lost?.turnId !== undefined) {
    const ofTurn = after.filter((event) => event.turnId === lost.turnId);
    expect(ofTurn.filter((event) => event.kind === "state_update" && event.payload["state"] === "idle").length).toBe(1);
    expect(ofTurn.filter((event) => event.kind === "_baton_turn_summary").length).toBe(1);
    if (!closedOnDisk) expect(ofTurn.some((event) => event.kind === "_baton_notice" && event.payload["title"] === RECOVERY_NOTICE)).toBe(true);
  }
  const prompts = (await harness.promptsSeen()).slice(seen);
  expect(prompts.some((text) => text.includes("the next prompt"))).toBe(true);
  // never re-sent by itself (it may travel as history of the session, inside a sync block)
  expect(prompts.some((text) => text.endsWith("the prompt on a full disk"))).toBe(false);
  return lost === undefined ? "not admitted" : closedOnDisk ? "closed on disk" : "closed on reopen";
}


for (const [index, harness] of crashHarnesses().entries()) {
  describe(`full disk: ${harness.name}`, () => {
    beforeAll(async () => {
      await harness.start();
    });
    afterAll(async () => {
      await harness.stop();
      if (matrix.length > 0 && index === 1) console.log(`\nfull-disk matrix (where the disk fills × harness → outcome)\n${matrix.join("\n")}\n`);
    });

    test.if(canMount)("BATON_HOME on a real 2 MB tmpfs with a few KiB free, a 12 KB prompt: no hang, no tear, one sentence; with space the session continues", async () => {
      for (const freeKiB of [8, 24, 48, 96]) {
        const env = await harness.freshEnv();
        mountTmpfs(env.batonHome);
        try {
          const filler = fillDisk(env.batonHome, freeKiB * 1024);
          await harness.scriptText("the model's answer ".repeat(300), "the prompt on a full disk");
          const run = await execBounded(env, ["--agent", harness.target, PROMPT]);
          expectStoppedCleanly(env.batonHome, run, run.code === 0 ? 0 : 1);
          fs.rmSync(filler);
          const dirs = sessionDirs(env.batonHome);
          const outcome = dirs.length === 0 ? "no session created" : await expectReopens(harness, env, dirs[0]!);
          matrix.push(`  ${`a real tmpfs with ${freeKiB} KiB free`.padEnd(46)} × ${harness.name.padEnd(6)} → exit ${run.code}, ${outcome}`);
        } finally {
          unmount(env.batonHome);
        }
      }
    }, 300_000);

    for (const site of SITES) {
      if (site.once && index > 0) continue;
      test(`ENOSPC at ${site.name}`, async () => {
        const env = await harness.freshEnv();
        await harness.scriptText("the model's answer ".repeat(300), "the prompt on a full disk");
        const run = await execBounded(env, ["--agent", harness.target, PROMPT], { BATON_FAILPOINT: site.failpoint });
        expectStoppedCleanly(env.batonHome, run, site.expectCode);
        const dirs = sessionDirs(env.batonHome);
        if (site.beforeSession) expect(dirs).toEqual([]);
        const outcome = dirs.length === 0 ? "nothing created" : await expectReopens(harness, env, dirs[0]!);
        matrix.push(`  ${site.name.padEnd(46)} × ${harness.name.padEnd(6)} → exit ${run.code}, ${outcome}`);
      }, 120_000);
    }

    if (index === 0) {
      test("ENOSPC while moving a torn tail aside: opening fails in one sentence and changes nothing; with space it is repaired with a notice", async () => {
        const env = await harness.freshEnv();
        await harness.scriptText("first answer", "first question");
        expect((await runBaton(["exec", "--agent", harness.target, "first question"], { env: env.env, cwd: env.cwd })).code).toBe(0);
        const [dir] = sessionDirs(env.batonHome);
        const ledger = path.join(dir!, "session.jsonl");
        const fragment = '{"v":3,"eventId":"ev_torn","seq":99,"kind":"agent_mess';
        fs.appendFileSync(ledger, fragment);
        const id = path.basename(dir!);
        const run = await execBounded(env, ["--agent", harness.target, "--session", id, "the prompt on a full disk"], { BATON_FAILPOINT: "enospc:sidecar" });
        expect(run.stderr).toMatch(/the disk is full: could not save the torn tail to \S+\.partial-\d+/);
        expect(fs.readFileSync(ledger, "utf8").endsWith(fragment)).toBe(true);
        const files = walk(env.batonHome);
        expect(files.filter((file) => /\.partial-|\.tmp-|(^|\/)lock$/.test(file))).toEqual([]);
        await expectReopens(harness, env, dir!);
        const repaired = events(dir!).find((event) => event.kind === "_baton_notice" && event.payload["title"] === TORN_TAIL_NOTICE);
        expect(String(repaired?.payload["detail"])).toContain(`${Buffer.byteLength(fragment)} bytes were moved to`);
        const sidecars = walk(dir!).filter((file) => file.includes(".partial-"));
        expect(sidecars.map((file) => fs.readFileSync(file, "utf8"))).toEqual([fragment]);
        matrix.push(`  ${"a torn tail's sidecar".padEnd(46)} × ${harness.name.padEnd(6)} → exit ${run.code}, repaired with a notice on reopen`);
      }, 120_000);
    }
  });
}
