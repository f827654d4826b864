/** Small filesystem helpers for the store: private modes, atomic replace, errno checks. */
import fs from "node:fs";
import * as path from "node:path";
import { randomHex } from "../shared/digest.ts";
import { checkDiskWrite, type WriteSite } from "./disk-faults.ts";

/** Every file the store creates is private to the user. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

export function isErrno(error: unknown, code: string): boolean {
  return errnoCode(error) === code;
}

/** `mkdir -p` with mode 0700 for every directory it creates. */
export function ensureDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
}

/** A sibling temp name that no other writer (process or call) will pick. */
export function tempPathFor(target: string): string {
  return `${target}.tmp-${process.pid}-${randomHex(6)}`;
}

/**
 * Replace `target` atomically: write a temp file in the same directory, fsync it, rename over the
 * target, then fsync the directory so the rename itself survives a crash. On failure the temp file is
 * removed and the target is untouched; the raw error is thrown (callers map it with `writeError`).
 */
export function writeFileAtomicSync(target: string, data: string | Uint8Array, site: WriteSite): void {
  const temp = tempPathFor(target);
  let fd: number | undefined;
  try {
    fd = fs.openSync(temp, "wx", FILE_MODE);
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    checkDiskWrite(site, temp);
    writeAllSync(fd, bytes);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, target);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    unlinkQuietly(temp);
    throw error;
  }
  syncDirQuietly(path.dirname(target));
}

/**
 * Async atomic replace (temp + rename, 0600) for large, rebuildable files such as checkpoints.
 * Pieces are encoded and written a batch at a time, so no single step holds the event loop long.
 */
export async function writeFileAtomic(target: string, pieces: readonly string[], site: WriteSite): Promise<void> {
  const temp = tempPathFor(target);
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(temp, "wx", FILE_MODE);
    checkDiskWrite(site, temp);
    let batch: string[] = [];
    let batchChars = 0;
    for (const piece of pieces) {
      batch.push(piece);
      batchChars += piece.length;
      if (batchChars >= WRITE_BATCH_CHARS) {
        await writeAll(handle, Buffer.from(batch.join("")));
        batch = [];
        batchChars = 0;
      }
    }
    if (batch.length > 0) await writeAll(handle, Buffer.from(batch.join("")));
    await handle.close();
    handle = undefined;
    await fs.promises.rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.promises.unlink(temp).catch(() => undefined);
    throw error;
  }
}

const WRITE_BATCH_CHARS = 1024 * 1024;

/** Write all of `bytes` at the fd's position; a write that makes no progress is an error, never a spin. */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.byteLength) {
    const n = fs.writeSync(fd, bytes, written, bytes.byteLength - written);
    if (n <= 0) throw noProgress();
    written += n;
  }
}

/**
 * `writeAllSync` for a file handle. A full disk first answers with a short write, not an error: one unchecked
 * `handle.write` renamed a torn checkpoint over the good one (64 KiB of 320 on a full tmpfs, no error).
 */
async function writeAll(handle: fs.promises.FileHandle, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.byteLength - written);
    if (bytesWritten <= 0) throw noProgress();
    written += bytesWritten;
  }
}

function noProgress(): NodeJS.ErrnoException {
  return Object.assign(new Error("ENOSPC: no space left on device, write (no progress)"), { code: "ENOSPC" });
}

/** `writeFileAtomicSync` off the event loop: temp, fsync, rename, directory fsync. Throws the raw error. */
export async function writeFileDurable(target: string, data: string, site: WriteSite): Promise<void> {
  const temp = tempPathFor(target);
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(temp, "wx", FILE_MODE);
    checkDiskWrite(site, temp);
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.promises.rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.promises.unlink(temp).catch(() => undefined);
    throw error;
  }
  let dir: fs.promises.FileHandle | undefined;
  try {
    dir = await fs.promises.open(path.dirname(target), "r");
    await dir.sync();
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  } finally {
    await dir?.close().catch(() => undefined);
  }
}

export function syncDirQuietly(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

export function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

export function unlinkQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // already gone
  }
}

/** Read a file, or undefined when it does not exist. Other errors propagate. */
export function readFileIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  }
}

/** Directory entries that are directories, or [] when the directory does not exist. */
export function listDirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return [];
    throw error;
  }
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
