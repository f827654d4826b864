/**
 * How a failed store write reads: which file, what Baton was doing, and — for a full disk — how much it
 * tried to write and how much space is left there. Every write site of the store maps its errors here so
 * the user gets one sentence, never a stack trace.
 */
import fs from "node:fs";
import * as path from "node:path";
import { BatonError, describeError } from "../shared/errors.ts";
import { errnoCode } from "./files.ts";

export const DISK_FULL_HINT = "free some disk space, then reopen the session: it continues from its last complete event";

/** `12.3 KB`, `512 B`, `1.5 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

/** Bytes an unprivileged writer can still use on the filesystem holding `dir` (undefined when unknown). */
export function freeBytes(dir: string): number | undefined {
  try {
    const stats = fs.statfsSync(dir);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return undefined;
  }
}

export function isDiskFullError(error: unknown): boolean {
  const code = errnoCode(error);
  return code === "ENOSPC" || code === "EDQUOT";
}

/**
 * The BatonError for a failed write: `disk_full` (ENOSPC, EDQUOT) saying how much space there was, else
 * `ledger_io` with the system's message. `action` reads like "append to", "write", "create".
 */
export function writeError(file: string, action: string, error: unknown, bytes?: number): BatonError {
  if (error instanceof BatonError) return error;
  const code = errnoCode(error);
  if (code === "ENOSPC" || code === "EDQUOT") {
    const free = freeBytes(path.dirname(file));
    const figures = [
      ...(bytes === undefined || bytes <= 0 ? [] : [`${formatBytes(bytes)} to write`]),
      ...(free === undefined ? [] : [`${formatBytes(free)} free there`]),
    ];
    const what = code === "EDQUOT" ? "the disk quota is exceeded" : "the disk is full";
    const detail = figures.length > 0 ? ` (${figures.join(", ")})` : "";
    return new BatonError("disk_full", `${what}: could not ${action} ${file}${detail}`, { cause: error, hint: DISK_FULL_HINT });
  }
  return new BatonError("ledger_io", `cannot ${action} ${file}: ${describeError(error)}`, { cause: error });
}
