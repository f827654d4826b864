/** Is a directory inside a git worktree, and where are its top level and index? One `git rev-parse`. */
import path from "node:path";
import { describeError, isBatonError } from "../shared/errors.ts";
import type { Git } from "./git.ts";

export interface RepoInfo {
  /** The worktree's top level: checkpoints cover all of it. */
  readonly root: string;
  /** The repository's git directory (for a linked worktree: its own). */
  readonly gitDir: string;
  /** The user's index file: only ever copied (to seed Baton's own index), never written. */
  readonly userIndex: string;
}

export type RepoProbe = { readonly kind: "repo"; readonly repo: RepoInfo } | { readonly kind: "off"; readonly reason: string };

export async function probeRepo(git: Git): Promise<RepoProbe> {
  let out: string;
  try {
    const result = await git.run(["rev-parse", "--is-inside-work-tree", "--show-toplevel", "--absolute-git-dir", "--git-path", "index"], { allow: [128] });
    if (result.code !== 0) return { kind: "off", reason: `${git.cwd} is not in a git worktree` };
    out = new TextDecoder().decode(result.stdout);
  } catch (error) {
    if (isBatonError(error, "git_failed") && /could not run git/.test(error.message)) return { kind: "off", reason: "git is not installed" };
    return { kind: "off", reason: `git could not inspect ${git.cwd}: ${describeError(error)}` };
  }
  const [inside, root, gitDir, index] = out.split("\n");
  if (inside !== "true" || !root || !gitDir || !index) return { kind: "off", reason: `${git.cwd} is not in a git worktree` };
  return { kind: "repo", repo: { root, gitDir, userIndex: path.resolve(git.cwd, index) } };
}
