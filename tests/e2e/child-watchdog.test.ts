/**
 * The parent-death watchdog of a child Baton starts (src/rpc/child-process.ts) is watching before the child runs
 * anything when it is started `armFirst` (a plugin's `processGroup` exec). The owner here is a real process that
 * starts a command whose first act is to kill that owner with -9: what the command then starts must still go with
 * it. Without the gate the command raced its own watchdog's start, and an owner killed in between left it behind
 * (the flake of bundled-test-watch's "runner killed with -9" under load).
 *
 * The command writes its pid (= its process group, spawnChild starts it as a group leader) *before* it kills the
 * owner: anything it writes after the kill races the watchdog it proves is up, which may stop it first (the train9
 * failure: a pid file written after the kill never came, ≈1 round in 25 under load). What must hold is that nothing
 * of that group outlives the owner, whether the watchdog stopped it before or after `sleep` started.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { groupMembers } from "../support/processes.ts";

const CHILD_PROCESS = path.resolve(import.meta.dir, "../../src/rpc/child-process.ts");
const ROUNDS = 8;

let dirs: string[] = [];
let leftovers: number[] = [];
afterEach(() => {
  for (const pgid of leftovers) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // the group is gone
    }
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
  leftovers = [];
});

/** An owner process that starts `sh -c <command>` armFirst in `dir` and then idles. */
function startOwner(dir: string, command: string) {
  const script = `
    import { spawnChild } from ${JSON.stringify(CHILD_PROCESS)};
    spawnChild("sh", ["-c", ${JSON.stringify(command)}], { cwd: ${JSON.stringify(dir)}, env: process.env, stdio: ["ignore", "ignore", "ignore"], armFirst: true });
    setInterval(() => undefined, 1000);
  `;
  return Bun.spawn([process.execPath, "-e", script], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
}

test("armFirst: a command that kills its owner with -9 at once leaves nothing of its process group running (the watchdog was up before it ran)", async () => {
  const orphans: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "baton-watchdog-"));
    dirs.push(dir);
    const owner = startOwner(dir, "echo $$ > group.pid; kill -9 $PPID; sleep 300 & wait");
    expect(await owner.exited).toBe(137);
    // Written before the kill, so it is there once the owner is gone.
    const pidFile = path.join(dir, "group.pid");
    const group = Number(readFileSync(pidFile, "utf8").trim());
    leftovers.push(group);
    // The watchdog stops the group: SIGTERM at once, SIGKILL after 1 s at the latest.
    const deadline = Date.now() + 5_000;
    while (groupMembers(group).length > 0 && Date.now() < deadline) await Bun.sleep(20);
    orphans.push(...groupMembers(group));
  }
  expect(orphans).toEqual([]);
}, 90_000);
