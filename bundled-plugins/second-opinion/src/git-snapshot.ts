/**
 * The working tree as a git tree id, without touching the user's index or branch: a private copy of the
 * index (so unchanged files are not hashed again), `git add -A` into it (ignored files stay out, new files
 * count), `git write-tree`. The diff between two snapshots is what changed in between — one turn's diff,
 * new files included. It adds blob objects to the repository's object store (unreferenced; `git gc` drops
 * them), nothing else.
 */
import { copyFile, rm } from "node:fs/promises";
import path from "node:path";
import type { ExecFn } from "baton-plugin";

const GIT_TIMEOUT_MS = 30_000;
/** A diff beyond this is cut (the proposal carries it, and a proposal is at most 32 KiB). */
export const MAX_DIFF_BYTES = 20 * 1024;

export interface GitSnapshotter {
  /** The tree id of the working tree now; undefined outside a git repository. */
  snapshot(signal?: AbortSignal): Promise<string | undefined>;
  /** `git diff` between two snapshots (stat, then the patch), capped. */
  diff(before: string, after: string, signal?: AbortSignal): Promise<{ readonly stat: string; readonly patch: string; readonly truncated: boolean; readonly files: readonly string[] }>;
}

export function createGitSnapshotter(exec: ExecFn, cwd: string, indexFile: string): GitSnapshotter {
  const git = async (args: readonly string[], options: { env?: Record<string, string>; signal?: AbortSignal | undefined; maxOutputBytes?: number } = {}) => {
    const result = await exec("git", args, {
      cwd,
      timeoutMs: GIT_TIMEOUT_MS,
      ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
      env: { GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", ...options.env },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return result;
  };
  return {
    async snapshot(signal) {
      const dir = await git(["rev-parse", "--absolute-git-dir"], { signal });
      if (dir.code !== 0) return undefined;
      const realIndex = path.join(dir.stdout.trim(), "index");
      await rm(indexFile, { force: true });
      await copyFile(realIndex, indexFile).catch(() => undefined);
      const env = { GIT_INDEX_FILE: indexFile };
      const add = await git(["add", "-A", "--", "."], { env, signal });
      if (add.code !== 0) throw new Error(`git add -A (private index) failed: ${add.stderr.trim().split("\n")[0] ?? add.code}`);
      const tree = await git(["write-tree"], { env, signal });
      if (tree.code !== 0) throw new Error(`git write-tree failed: ${tree.stderr.trim().split("\n")[0] ?? tree.code}`);
      return tree.stdout.trim();
    },
    async diff(before, after, signal) {
      const common = ["-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff", "--find-renames"];
      const names = await git([...common, "--name-only", before, after], { signal });
      const stat = await git([...common, "--stat=100", before, after], { signal });
      const patch = await git([...common, "--patch", before, after], { signal, maxOutputBytes: MAX_DIFF_BYTES });
      if (patch.code !== 0 && !patch.truncated) throw new Error(`git diff failed: ${patch.stderr.trim().split("\n")[0] ?? patch.code}`);
      return {
        stat: stat.stdout.trimEnd(),
        patch: patch.stdout,
        truncated: patch.truncated,
        files: names.stdout.split("\n").filter((f) => f !== ""),
      };
    },
  };
}
