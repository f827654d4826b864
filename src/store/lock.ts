/**
 * One live owner per session: the `lock` file records pid + process start time (Linux
 * /proc/<pid>/stat field 22) + a random token. A lock whose owner is dead (a zombie counts as dead),
 * or whose pid was reused by another process (start time differs), is stale and taken over.
 * Re-entrant within one process.
 *
 * Creation is atomic with complete content: the owner record is written to a temp file and
 * hard-linked to `lock` (link fails with EEXIST like O_EXCL, but a reader never sees an empty
 * lock). Filesystems without hard links fall back to O_EXCL. Takeover runs under a short-lived
 * `lock.takeover` guard so two processes cannot both replace the same stale lock.
 */
import fs from "node:fs";
import * as os from "node:os";
import { randomHex } from "../shared/digest.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import { checkDiskWrite } from "./disk-faults.ts";
import { FILE_MODE, closeQuietly, errnoCode, readFileIfExists, tempPathFor, unlinkQuietly, writeAllSync } from "./files.ts";
import { writeError } from "./write-errors.ts";

export interface LockOwner {
  readonly pid: number;
  /** Kernel start time of the process (clock ticks since boot), when the platform tells it. */
  readonly startTime?: string;
  readonly hostname: string;
  readonly token: string;
  readonly acquiredAt: string;
  readonly batonSessionId?: string;
}

export interface SessionLock {
  readonly path: string;
  readonly owner: LockOwner;
  /** The stale owner this acquisition replaced, if any. */
  readonly tookOverFrom: LockOwner | undefined;
  /** Drop this hold; the file is removed when the process's last hold is released and it is still ours. */
  release(): void;
}

export interface AcquireLockOptions {
  readonly batonSessionId?: string;
  readonly now?: () => number;
}

const GUARD_STALE_MS = 10_000;
const MAX_ATTEMPTS = 5;

/** Holds of this process, by lock path (re-entrancy). */
const held = new Map<string, { owner: LockOwner; count: number }>();

let ownStartTime: string | undefined | null = null;

/** `/proc/<pid>/stat` from field 3 on, or undefined off Linux / when the process does not exist. */
function statFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Field 2 (comm) is parenthesized and may contain spaces: split after the last ')'.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** `/proc/<pid>/stat` field 22, or undefined off Linux / when the process does not exist. */
export function processStartTime(pid: number): string | undefined {
  return statFields(pid)?.[19]; // field 3 is fields[0], so field 22 is fields[19]
}

/**
 * A process that has exited but not been reaped yet (state Z, zombie; X, dead) still answers `kill(pid, 0)`. After
 * `kill -9` it stays so until its parent waits for it: about 1.5 s here, forever under an init that does not reap.
 */
function isZombie(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state === "Z" || state === "X";
}

function currentStartTime(): string | undefined {
  if (ownStartTime === null) ownStartTime = processStartTime(process.pid);
  return ownStartTime;
}

/** Is the recorded owner still running? Same pid AND (when known on both sides) the same start time. */
export function isOwnerAlive(owner: Pick<LockOwner, "pid" | "startTime" | "hostname">): boolean {
  if (owner.hostname !== os.hostname()) return true; // cannot check another machine: assume alive
  if (!Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if (errnoCode(error) !== "EPERM") return false; // ESRCH: no such process
  }
  if (isZombie(owner.pid)) return false;
  if (owner.startTime === undefined) return true;
  const actual = processStartTime(owner.pid);
  if (actual === undefined) return !fs.existsSync("/proc/self/stat"); // no /proc: trust the pid check
  return actual === owner.startTime;
}

function isOurProcess(owner: LockOwner): boolean {
  return owner.pid === process.pid && owner.hostname === os.hostname() && owner.startTime === currentStartTime();
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner> | null;
    if (typeof value !== "object" || value === null) return undefined;
    if (typeof value.pid !== "number" || typeof value.token !== "string" || typeof value.hostname !== "string") return undefined;
    return value as LockOwner;
  } catch {
    return undefined;
  }
}

function describeOwner(owner: LockOwner): string {
  return `pid ${owner.pid}${owner.hostname === os.hostname() ? "" : ` on ${owner.hostname}`} (started ${owner.acquiredAt})`;
}

/** Create `file` with `content` only if it does not exist. Returns false on EEXIST. */
function createExclusive(file: string, content: string): boolean {
  const temp = tempPathFor(file);
  try {
    writePrivateFile(temp, content);
    fs.linkSync(temp, file);
    return true;
  } catch (error) {
    const code = errnoCode(error);
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw error;
    return createExclusiveNoLink(file, content);
  } finally {
    unlinkQuietly(temp);
  }
}

function createExclusiveNoLink(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, "wx", FILE_MODE);
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return false;
    throw error;
  }
  try {
    checkDiskWrite("lock", file);
    fs.writeSync(fd, content);
  } catch (error) {
    closeQuietly(fd);
    unlinkQuietly(file);
    throw error;
  }
  closeQuietly(fd);
  return true;
}

/** Create `file` (0600, exclusive) holding `content`; a failed write leaves no file behind. */
function writePrivateFile(file: string, content: string): void {
  const fd = fs.openSync(file, "wx", FILE_MODE);
  try {
    checkDiskWrite("lock", file);
    writeAllSync(fd, Buffer.from(content));
  } catch (error) {
    closeQuietly(fd);
    unlinkQuietly(file);
    throw error;
  }
  closeQuietly(fd);
}

/**
 * Take the session lock or throw `session_locked` naming the live owner; a lock that cannot be written
 * (full disk, I/O) is `disk_full` / `ledger_io` naming the file, and leaves no temp file behind.
 */
export function acquireLock(lockPath: string, options: AcquireLockOptions = {}): SessionLock {
  try {
    return acquire(lockPath, options);
  } catch (error) {
    throw writeError(lockPath, "create the lock", error);
  }
}

function acquire(lockPath: string, options: AcquireLockOptions): SessionLock {
  const mine = held.get(lockPath);
  if (mine !== undefined && readOwner(lockPath)?.token === mine.owner.token) {
    mine.count++;
    return makeHandle(lockPath, mine.owner, undefined);
  }
  const now = options.now ?? Date.now;
  const owner: LockOwner = {
    pid: process.pid,
    ...(currentStartTime() === undefined ? {} : { startTime: currentStartTime() as string }),
    hostname: os.hostname(),
    token: randomHex(12),
    acquiredAt: new Date(now()).toISOString(),
    ...(options.batonSessionId === undefined ? {} : { batonSessionId: options.batonSessionId }),
  };
  const content = `${JSON.stringify(owner)}\n`;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (createExclusive(lockPath, content)) return register(lockPath, owner, undefined);
    const existingText = readFileIfExists(lockPath);
    if (existingText === undefined) continue; // released meanwhile: retry the create
    const existing = parseOwner(existingText);
    if (existing !== undefined && isOurProcess(existing)) {
      // Same process, another holder (e.g. a second module instance): share it.
      return register(lockPath, existing, undefined);
    }
    if (existing !== undefined && isOwnerAlive(existing)) {
      throw lockedError(lockPath, options.batonSessionId, existing);
    }
    // Dead owner, reused pid, or an unreadable lock left by a crash: take over.
    if (takeOver(lockPath, existingText, content)) return register(lockPath, owner, existing);
  }
  throw new BatonError("session_locked", `could not acquire ${lockPath}: it keeps changing hands`);
}

function lockedError(lockPath: string, sessionId: string | undefined, owner: LockOwner): BatonError {
  const what = sessionId ?? owner.batonSessionId ?? lockPath;
  return new BatonError("session_locked", `session ${what} is in use by ${describeOwner(owner)}`, {
    hint: "close the other Baton using it, or fork the session to continue separately",
  });
}

/** Replace a stale lock while holding the takeover guard. False when the lock changed meanwhile. */
function takeOver(lockPath: string, staleText: string, content: string): boolean {
  const guard = `${lockPath}.takeover`;
  if (!createExclusive(guard, content)) {
    if (!clearStaleGuard(guard)) {
      const other = parseOwner(readFileIfExists(guard) ?? "");
      throw new BatonError("session_locked", `${lockPath} is being taken over by ${other ? describeOwner(other) : "another process"}`);
    }
    return false;
  }
  try {
    if (readFileIfExists(lockPath) !== staleText) return false;
    const temp = tempPathFor(lockPath);
    writePrivateFile(temp, content);
    try {
      fs.renameSync(temp, lockPath);
    } catch (error) {
      unlinkQuietly(temp);
      throw error;
    }
    return true;
  } finally {
    unlinkQuietly(guard);
  }
}

/** Remove a takeover guard left by a crashed process. True when it was removed. */
function clearStaleGuard(guard: string): boolean {
  try {
    const text = readFileIfExists(guard);
    if (text === undefined) return true;
    const owner = parseOwner(text);
    const age = Date.now() - fs.statSync(guard).mtimeMs;
    if ((owner !== undefined && isOwnerAlive(owner)) && age < GUARD_STALE_MS) return false;
    unlinkQuietly(guard);
    return true;
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return true;
    throw new BatonError("ledger_io", `cannot inspect ${guard}: ${describeError(error)}`, { cause: error });
  }
}

function readOwner(lockPath: string): LockOwner | undefined {
  const text = readFileIfExists(lockPath);
  return text === undefined ? undefined : parseOwner(text);
}

function register(lockPath: string, owner: LockOwner, tookOverFrom: LockOwner | undefined): SessionLock {
  const entry = held.get(lockPath);
  if (entry !== undefined && entry.owner.token === owner.token) entry.count++;
  else held.set(lockPath, { owner, count: 1 });
  return makeHandle(lockPath, owner, tookOverFrom);
}

function makeHandle(lockPath: string, owner: LockOwner, tookOverFrom: LockOwner | undefined): SessionLock {
  let released = false;
  return {
    path: lockPath,
    owner,
    tookOverFrom,
    release() {
      if (released) return;
      released = true;
      const entry = held.get(lockPath);
      if (entry === undefined || entry.owner.token !== owner.token) return;
      entry.count--;
      if (entry.count > 0) return;
      held.delete(lockPath);
      if (readOwner(lockPath)?.token === owner.token) unlinkQuietly(lockPath);
    },
  };
}

/** Who holds the lock now (undefined when free or unreadable). For `baton doctor` / error messages. */
export function inspectLock(lockPath: string): { readonly owner: LockOwner; readonly alive: boolean } | undefined {
  const owner = readOwner(lockPath);
  return owner === undefined ? undefined : { owner, alive: isOwnerAlive(owner) };
}
