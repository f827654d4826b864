/**
 * A crash during a rewind (issue 19): the real `baton` stopped by a failpoint inside the restore, or right
 * after it committed the new session, then SIGKILLed. Reopening the session must leave the worktree either
 * as it was before the rewind or as the checkpoint — never a mix — and say what happened. The sessions are
 * made in-process with the fake harness (same BATON_HOME); `baton rewind` needs no harness.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runBaton, spawnBaton, waitUntil } from "../support/baton-process.ts";
import { runCliOnce } from "../support/cli-runner.ts";
import { fakeDefinition, type FakeAction } from "../support/fake-adapter.ts";
import { filesOf, gitEnv, initRepo, userView, writeFiles } from "../support/git-repo.ts";
import { isStopped } from "../support/processes.ts";

let base: string;
let env: Record<string, string>;
let cwd: string;
let nextTurn: FakeAction[] = [];

beforeEach(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "baton-rewind-crash-"));
  cwd = path.join(base, "project");
  mkdirSync(cwd, { recursive: true });
  env = { ...gitEnv(), HOME: base, BATON_HOME: path.join(base, "home"), BATON_DEFAULT_AGENT: "fake" };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function turn(prompt: string, steps: FakeAction[], session?: string): Promise<{ session: string; turnId: string }> {
  nextTurn = steps;
  const result = await runCliOnce(["exec", ...(session ? ["--session", session] : []), prompt], { env, cwd, definitions: [fakeDefinition(() => ({ turns: [nextTurn] }))] });
  const match = /baton: session (bs_\w+) turn (t_\w+) end_turn/.exec(result.stderr);
  if (!match) throw new Error(result.stderr);
  return { session: match[1]!, turnId: match[2]! };
}

function sessionIds(): string[] {
  const projects = path.join(env["BATON_HOME"]!, "projects");
  return readdirSync(projects).flatMap((project) => readdirSync(path.join(projects, project, "sessions")));
}

function sessionDir(id: string): string {
  const projects = path.join(env["BATON_HOME"]!, "projects");
  for (const project of readdirSync(projects)) {
    const dir = path.join(projects, project, "sessions", id);
    if (existsSync(dir)) return dir;
  }
  throw new Error(`no session ${id}`);
}

/** Runs `baton rewind … --yes` until the failpoint stops it, then kills it with SIGKILL. */
async function killAt(failpoint: string, args: string[]): Promise<void> {
  const child = spawnBaton(["rewind", ...args, "--yes"], { env: { ...env, BATON_FAILPOINT: failpoint }, cwd });
  await waitUntil(() => isStopped(child.pid) || child.exited(), 30_000, `baton to reach ${failpoint}`);
  if (!isStopped(child.pid)) throw new Error(`baton exited before ${failpoint}:\n${child.stderr()}`);
  process.kill(child.pid, "SIGKILL");
  await child.done;
}

describe("a crash during a rewind", () => {
  test("killed mid-restore: the worktree is a mix until reopened; reopening puts it back as before the rewind and says so", async () => {
    initRepo(cwd, { "a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n" });
    const one = await turn("change everything", [
      { type: "write", path: "a.txt", content: "a1\n" },
      { type: "write", path: "b.txt", content: "b1\n" },
      { type: "write", path: "c.txt", content: "c1\n" },
      { type: "write", path: "d.txt", content: "d1\n" },
    ]);
    const before = { files: filesOf(cwd), view: userView(cwd) };
    const sessionsBefore = sessionIds().sort();

    await killAt("at:rewind-restore:2", [one.session, "--to", one.turnId]);
    const mixed = filesOf(cwd);
    expect(mixed).not.toEqual(before.files);
    expect(mixed).not.toEqual({ "a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n" });
    expect(existsSync(path.join(sessionDir(one.session), "rewind-journal.json"))).toBe(true);

    const reopened = await runBaton(["rewind", one.session], { env, cwd });
    expect(reopened.code).toBe(0);
    expect(reopened.stderr).toContain("A rewind before “change everything” was interrupted while restoring files: the 2 files it had changed were put back");
    expect(filesOf(cwd)).toEqual(before.files);
    expect(userView(cwd)).toEqual(before.view);
    expect(sessionIds().sort()).toEqual(sessionsBefore);
    expect(existsSync(path.join(sessionDir(one.session), "rewind-journal.json"))).toBe(false);
    const ledger = readFileSync(path.join(sessionDir(one.session), "session.jsonl"), "utf8");
    expect(ledger).toContain('"title":"Interrupted rewind"');

    // and the rewind can simply be run again
    const again = await runBaton(["rewind", one.session, "--to", one.turnId, "--yes"], { env, cwd });
    expect(again.code).toBe(0);
    expect(filesOf(cwd)).toEqual({ "a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n" });
  }, 60_000);

  test("a file edited after the crash is not rolled back over: it is left as it is and named", async () => {
    initRepo(cwd, { "a.txt": "a0\n", "b.txt": "b0\n" });
    const one = await turn("edit both", [
      { type: "write", path: "a.txt", content: "a1\n" },
      { type: "write", path: "b.txt", content: "b1\n" },
    ]);
    await killAt("at:rewind-restore:2", [one.session, "--to", one.turnId]);
    expect(filesOf(cwd)).toEqual({ "a.txt": "a0\n", "b.txt": "b0\n" });
    writeFiles(cwd, { "b.txt": "b, the user's edit after the crash\n" });
    const reopened = await runBaton(["rewind", one.session], { env, cwd });
    expect(reopened.stderr).toContain("the 1 file it had changed was put back");
    expect(reopened.stderr).toContain("Left as they are (changed since): b.txt.");
    expect(filesOf(cwd)).toEqual({ "a.txt": "a1\n", "b.txt": "b, the user's edit after the crash\n" });
  }, 60_000);

  test("killed after the new session was committed: reopening only finishes the bookkeeping and never touches the files", async () => {
    initRepo(cwd, { "a.txt": "a0\n" });
    const one = await turn("edit a", [{ type: "write", path: "a.txt", content: "a1\n" }]);
    await killAt("at:rewind-committed", [one.session, "--to", one.turnId]);
    expect(filesOf(cwd)).toEqual({ "a.txt": "a0\n" });
    const child = sessionIds().find((id) => id !== one.session)!;
    // work goes on in the new session before anyone opens the old one again
    writeFiles(cwd, { "a.txt": "a0, then the user's own edit\n" });
    const reopened = await runBaton(["rewind", one.session], { env, cwd });
    expect(reopened.stderr).toContain(`had finished when Baton stopped: the files are as at that checkpoint and the conversation continues in ${child}`);
    expect(filesOf(cwd)).toEqual({ "a.txt": "a0, then the user's own edit\n" });
    expect(existsSync(path.join(sessionDir(one.session), "rewind-journal.json"))).toBe(false);
  }, 60_000);
});
