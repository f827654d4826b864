import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Subprocess } from "bun";
import { BatonError } from "../../src/shared/errors.ts";
import { acquireLock, inspectLock, isOwnerAlive, processStartTime, type LockOwner } from "../../src/store/lock.ts";

const BUN = path.resolve("node_modules/.bin/bun");
const LOCK_MODULE = path.resolve(import.meta.dir, "../../src/store/lock.ts");
const dirs: string[] = [];
const children: Subprocess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGKILL");
    await child.exited;
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempLockPath(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-lock-"));
  dirs.push(dir);
  return path.join(dir, "lock");
}

function readLock(file: string): LockOwner {
  return JSON.parse(fs.readFileSync(file, "utf8")) as LockOwner;
}

function lockedError(run: () => unknown): BatonError {
  try {
    run();
  } catch (error) {
    if (error instanceof BatonError && error.code === "session_locked") return error;
    throw error;
  }
  throw new Error("expected session_locked");
}

/** A child process that takes the lock, prints a line, and holds it until killed. */
function spawnHolder(lockPath: string, script?: string): { child: Subprocess<"ignore", "pipe", "pipe">; line: Promise<string> } {
  const code =
    script ??
    `const { acquireLock } = await import(${JSON.stringify(LOCK_MODULE)});
     try { acquireLock(${JSON.stringify(lockPath)}, { batonSessionId: "bs_test" }); console.log("held"); }
     catch (error) { console.log("refused " + error.code); }
     setInterval(() => {}, 1000);`;
  const child = Bun.spawn([BUN, "-e", code], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  children.push(child);
  const line = (async () => {
    const reader = child.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    return text.trim();
  })();
  return { child, line };
}

async function deadPid(): Promise<number> {
  const child = Bun.spawn([BUN, "-e", "0"], { stdout: "ignore", stderr: "ignore" });
  await child.exited;
  return child.pid;
}

function staleOwner(pid: number, startTime?: string): LockOwner {
  return {
    pid,
    ...(startTime === undefined ? {} : { startTime }),
    hostname: os.hostname(),
    token: "stale-token",
    acquiredAt: "2025-01-01T00:00:00.000Z",
  };
}

describe("session lock", () => {
  test("acquire writes pid, start time and token (0600); release removes it", () => {
    const file = tempLockPath();
    const lock = acquireLock(file, { batonSessionId: "bs_1" });
    const stored = readLock(file);
    expect(stored.pid).toBe(process.pid);
    expect(stored.startTime).toBe(processStartTime(process.pid));
    expect(stored.batonSessionId).toBe("bs_1");
    expect(stored.token).toBe(lock.owner.token);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(lock.tookOverFrom).toBeUndefined();
    lock.release();
    expect(fs.existsSync(file)).toBe(false);
    lock.release(); // idempotent
  });

  test("re-entrant within one process: the file stays until the last hold is released", () => {
    const file = tempLockPath();
    const first = acquireLock(file);
    const second = acquireLock(file);
    expect(second.owner.token).toBe(first.owner.token);
    first.release();
    expect(fs.existsSync(file)).toBe(true);
    second.release();
    expect(fs.existsSync(file)).toBe(false);
  });

  test("given another live process holds it, acquire is refused naming that pid; after it dies the lock is taken over", async () => {
    const file = tempLockPath();
    const holder = spawnHolder(file);
    expect(await holder.line).toBe("held");
    const error = lockedError(() => acquireLock(file, { batonSessionId: "bs_test" }));
    expect(error.message).toContain(`session bs_test is in use by pid ${holder.child.pid}`);
    expect(inspectLock(file)?.alive).toBe(true);

    holder.child.kill("SIGKILL");
    await holder.child.exited;
    const lock = acquireLock(file, { batonSessionId: "bs_test" });
    expect(lock.tookOverFrom?.pid).toBe(holder.child.pid);
    expect(readLock(file).pid).toBe(process.pid);
    lock.release();
  });

  test("an owner killed with -9 whose parent has not reaped it (a zombie) is dead: the lock is taken over", async () => {
    const file = tempLockPath();
    const holderCode = `const { acquireLock } = await import(${JSON.stringify(LOCK_MODULE)}); acquireLock(${JSON.stringify(file)}); console.log("held"); setInterval(() => {}, 1000);`;
    // The holder's parent execs into sleep, which never waits for it: once killed it stays a zombie.
    const parent = Bun.spawn(["sh", "-c", `${JSON.stringify(BUN)} -e '${holderCode.replace(/'/g, `'\\''`)}' & echo "$!"; exec sleep 600`], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "inherit",
    });
    children.push(parent);
    const reader = parent.stdout.getReader();
    let text = "";
    while (!text.includes("held")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the holder did not start: ${text}`);
      text += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const pid = Number(text.split("\n")[0]);
    expect(readLock(file).pid).toBe(pid);
    process.kill(pid, "SIGKILL");
    const state = () => fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    while (state() !== "Z") await Bun.sleep(10);
    expect(inspectLock(file)?.alive).toBe(false);
    const lock = acquireLock(file, { batonSessionId: "bs_test" });
    expect(lock.tookOverFrom?.pid).toBe(pid);
    lock.release();
  });

  test("a second process is refused while this one holds the lock", async () => {
    const file = tempLockPath();
    const lock = acquireLock(file);
    const other = spawnHolder(file);
    expect(await other.line).toBe("refused session_locked");
    lock.release();
  });

  test("given a lock left by a dead pid, acquire takes it over", async () => {
    const file = tempLockPath();
    const pid = await deadPid();
    fs.writeFileSync(file, JSON.stringify(staleOwner(pid, "123")));
    expect(isOwnerAlive(staleOwner(pid, "123"))).toBe(false);
    const lock = acquireLock(file);
    expect(lock.tookOverFrom?.pid).toBe(pid);
    expect(readLock(file).token).toBe(lock.owner.token);
    lock.release();
  });

  test("given a live pid with another start time (pid reused), the lock is stale", async () => {
    const file = tempLockPath();
    const sleeper = spawnHolder(file, "console.log('up'); setInterval(() => {}, 1000);");
    await sleeper.line;
    const real = processStartTime(sleeper.child.pid);
    expect(real).toBeDefined();
    fs.writeFileSync(file, JSON.stringify(staleOwner(sleeper.child.pid, `${real}9`)));
    const lock = acquireLock(file);
    expect(lock.tookOverFrom?.pid).toBe(sleeper.child.pid);
    lock.release();
  });

  test("an unreadable lock file (crash debris) is taken over", () => {
    const file = tempLockPath();
    fs.writeFileSync(file, "");
    const lock = acquireLock(file);
    expect(readLock(file).token).toBe(lock.owner.token);
    lock.release();
  });

  test("a lock held from another host is treated as live", () => {
    const file = tempLockPath();
    fs.writeFileSync(file, JSON.stringify({ ...staleOwner(1), hostname: `${os.hostname()}-elsewhere` }));
    expect(lockedError(() => acquireLock(file)).message).toContain("on ");
  });

  test("release leaves a lock that is no longer ours", () => {
    const file = tempLockPath();
    const lock = acquireLock(file);
    const thief = { ...staleOwner(1), token: "someone-else" };
    fs.writeFileSync(file, JSON.stringify(thief));
    lock.release();
    expect(readLock(file).token).toBe("someone-else");
  });

  test("racing processes over one stale lock: exactly one wins", async () => {
    const file = tempLockPath();
    fs.writeFileSync(file, JSON.stringify(staleOwner(await deadPid(), "1")));
    const racers = Array.from({ length: 4 }, () => spawnHolder(file));
    const lines = await Promise.all(racers.map((racer) => racer.line));
    expect(lines.filter((line) => line === "held")).toHaveLength(1);
    expect(lines.filter((line) => line === "refused session_locked")).toHaveLength(3);
    const winner = racers[lines.indexOf("held")];
    expect(readLock(file).pid).toBe(winner?.child.pid ?? -1);
  });
});
