/**
 * Temp files a killed writer left in a session directory. The atomic writers name them
 * `<file>.tmp-<pid>-<hex>` and remove them on every failure they see, but `kill -9` mid-write leaves one.
 * The opener, holding the session lock, removes those whose writer is gone; a live pid (even one the
 * system reused for another process) keeps its file. Nothing else is touched: a torn tail's
 * `session.jsonl.partial-*` sidecar is kept on purpose.
 */
import fs from "node:fs";
import * as path from "node:path";
import { errnoCode } from "./files.ts";

const TEMP_NAME = /\.tmp-(\d+)-[0-9a-f]+$/;

/** Is a process with this pid running here (EPERM: it runs under another user)? */
export function pidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === "EPERM";
  }
}

/** Remove the temps of writers that are gone; returns the names removed. A directory that cannot be read is left alone. */
export function removeStaleTemps(dir: string, running: (pid: number) => boolean = pidRunning): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || running(pid)) continue;
    try {
      fs.unlinkSync(path.join(dir, name));
      removed.push(name);
    } catch {
      // already gone, or not ours to remove: the next open tries again
    }
  }
  return removed;
}
