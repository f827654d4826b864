/**
 * A cross-process advisory lock for small shared files (`plugin.yaml`, `plugins/marketplaces.json`):
 * `<file>.lock` created with O_EXCL holding `<pid> <token>`; a holder whose pid is dead, or a lock older
 * than `staleMs`, is taken over; a lock we did not see go stale is never removed. Async: waiting never
 * blocks the event loop.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import * as path from "node:path";
import { BatonError } from "../shared/errors.ts";
import { DIR_MODE, FILE_MODE, isErrno } from "./files.ts";

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
  const token = `${process.pid} ${randomBytes(8).toString("hex")}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fs.promises.writeFile(lockFile, token, { flag: "wx", mode: FILE_MODE });
      break;
    } catch (error) {
      if (!isErrno(error, "EEXIST")) throw error;
    }
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

/** Async atomic replace of a small file: temp (0600) + fsync + rename. */
export async function writeSmallFileAtomic(target: string, data: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: DIR_MODE });
  const temp = `${target}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(temp, "wx", FILE_MODE);
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.promises.rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
}
