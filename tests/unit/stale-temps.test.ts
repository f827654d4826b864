import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource } from "../../src/shared/ids.ts";
import { createSessionStore } from "../../src/store/session-store.ts";
import { pidRunning, removeStaleTemps } from "../../src/store/stale-temps.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const tempDir = tempDirs();

/** The pid of a process that has run and been reaped: nothing runs under it now. */
function deadPid(): number {
  const child = Bun.spawnSync(["sh", "-c", "echo $$"]);
  const pid = Number(child.stdout.toString().trim());
  expect(pidRunning(pid)).toBe(false);
  return pid;
}

describe("temp files a killed writer left behind", () => {
  test("given a kill -9 mid-checkpoint (a dead writer's temp), when the session is opened, then the temp is gone and everything else stays", () => {
    const home = tempDir("baton-home-");
    const work = tempDir("baton-work-");
    const store = createSessionStore({ home, clock: new ManualClock(), ids: createSequentialIdSource() });
    const ref = store.createSession({ cwd: work });
    const dead = deadPid();
    const stale = [`checkpoint.jsonl.tmp-${dead}-a1b2c3d4e5f6`, `meta.json.tmp-${dead}-00ff00ff00ff`];
    const kept = [`checkpoint.jsonl.tmp-${process.ppid}-0123456789ab`, "session.jsonl.partial-1700000000000", "notes.tmp-backup"];
    for (const name of [...stale, ...kept]) fs.writeFileSync(path.join(ref.paths.dir, name), "x");

    const lock = store.acquireLock(ref);
    try {
      const names = fs.readdirSync(ref.paths.dir);
      for (const name of stale) expect(names).not.toContain(name);
      for (const name of kept) expect(names).toContain(name);
    } finally {
      lock.release();
    }
  });

  test("a live pid keeps its temp, even when the system reused it for another process", () => {
    const dir = tempDir("baton-temps-");
    fs.writeFileSync(path.join(dir, "meta.json.tmp-4242-abcdef012345"), "x");
    expect(removeStaleTemps(dir, () => true)).toEqual([]);
    expect(removeStaleTemps(dir, (pid) => pid !== 4242)).toEqual(["meta.json.tmp-4242-abcdef012345"]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  test("an unreadable directory is left alone", () => {
    expect(removeStaleTemps(path.join(os.tmpdir(), "baton-no-such-dir-" + process.pid))).toEqual([]);
  });
});
