/** A real, small tmpfs for full-disk tests (root only: `canMount`). */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const canMount = process.getuid?.() === 0;

/** Mount a tmpfs of `size` (e.g. "2m") on `dir` (created when missing). */
export function mountTmpfs(dir: string, size = "2m"): void {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir]);
}

export function unmount(dir: string): void {
  try {
    execFileSync("umount", [dir]);
  } catch {
    execFileSync("umount", ["-l", dir]);
  }
}

/** Fill the filesystem holding `dir` up to `freeBytes` free with one file; returns the file (remove it to free the space). */
export function fillDisk(dir: string, freeBytes: number): string {
  const filler = path.join(dir, "filler");
  const stats = fs.statfsSync(dir);
  fs.writeFileSync(filler, Buffer.alloc(Math.max(0, stats.bavail * stats.bsize - freeBytes)));
  return filler;
}
