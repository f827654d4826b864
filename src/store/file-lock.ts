/**
 * A cross-process advisory lock for small shared files (`plugin.yaml`, `plugins/marketplaces.json`):
 * `<file>.lock` created with O_EXCL holding `<pid> <token>`; a holder whose pid is dead, or a lock older
 * than `staleMs`, is taken over; a lock we did not see go stale is never removed. Async: waiting never
 * blocks the event loop.
 */
import { randomHex } from "../shared/digest.ts";
import fs from "node:fs";
import * as path from "node:path";
import { BatonError } from "../shared/errors.ts";
import { checkDiskWrite } from "./disk-faults.ts";
import { DIR_MODE, FILE_MODE, isErrno, writeFileDurable } from "./files.ts";
import { writeError } from "./write-errors.ts";

export interface FileLockOptions {
  readonly timeoutMs?: number;
  readonly staleMs?: number;
}

const RETRY_MS = 20;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, "EPERM");
  }
}

async function holderState(lockFile: string, staleMs: number): Promise<"held" | "stale" | "gone"> {
  try {
    const [text, stat] = await Promise.all([fs.promises.readFile(lockFile, "utf8"), fs.promises.stat(lockFile)]);
    const age = Date.now() - stat.mtimeMs;
    if (age > staleMs) return "stale";
    const pid = Number.parseInt(text.split(" ")[0] ?? "", 10);
    // A lock being written right now may still be empty: not stale until it is a little old.
    if (!Number.isInteger(pid) || pid <= 0) return age > 1_000 ? "stale" : "held";
    return pidAlive(pid) ? "held" : "stale";
  } catch (error) {
    if (isErrno(error, "ENOENT")) return "gone";
    throw error;
  }
}

/** Run `fn` while holding `<file>.lock`. Throws BatonError("busy") after `timeoutMs`. */
export async function withFileLock<T>(file: string, fn: () => Promise<T> | T, options: FileLockOptions = {}): Promise<T> {
  const lockFile = `${file}.lock`;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const staleMs = options.staleMs ?? 30_000;
  await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: DIR_MODE });
  const token = `${process.pid} ${randomHex(8)}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await createLockFile(lockFile, token)) break;
    const state = await holderState(lockFile, staleMs);
    if (state === "gone") continue;
    if (state === "stale") {
      await fs.promises.rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new BatonError("busy", `${lockFile} is held by another process`, { hint: "Retry; remove the lock file if no Baton is running." });
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  try {
    return await fn();
  } finally {
    try {
      if ((await fs.promises.readFile(lockFile, "utf8")) === token) await fs.promises.rm(lockFile, { force: true });
    } catch {
      // already gone (taken over as stale): nothing of ours to remove
    }
  }
}

/**
 * Create `lockFile` holding `token` only if it does not exist (false on EEXIST). A write that fails (a full
 * disk creates the file but cannot fill it) removes the empty file it created and throws one sentence naming it.
 */
async function createLockFile(lockFile: string, token: string): Promise<boolean> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(lockFile, "wx", FILE_MODE);
  } catch (error) {
    if (isErrno(error, "EEXIST")) return false;
    throw writeError(lockFile, "create the lock", error);
  }
  try {
    checkDiskWrite("plugin", lockFile);
    await handle.writeFile(token);
    await handle.close();
    return true;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.promises.rm(lockFile, { force: true });
    throw writeError(lockFile, "create the lock", error, Buffer.byteLength(token));
  }
}

/** Atomic replace of a small shared file (`writeFileDurable`: temp, fsync, rename, directory fsync); a failed write is one sentence naming it. */
export async function writeSmallFileAtomic(target: string, data: string): Promise<void> {
  try {
    await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: DIR_MODE });
    await writeFileDurable(target, data, "plugin");
  } catch (error) {
    throw writeError(target, "write", error, Buffer.byteLength(data));
  }
}
