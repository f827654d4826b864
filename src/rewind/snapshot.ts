/**
 * A file checkpoint: an unreferenced commit of the whole working tree (tracked and untracked files, not
 * ignored ones), built in Baton's own index file so the user's index, branches and stash are untouched.
 * The index is seeded once from a copy of the user's, so `git add -A` re-hashes only what changed since.
 */
import fs from "node:fs";
import path from "node:path";
import type { Git } from "./git.ts";
import type { RepoInfo } from "./repo.ts";

export interface Snapshot {
  readonly commit: string;
  readonly tree: string;
}

export class WorktreeSnapshots {
  private seeded = false;

  constructor(
    readonly git: Git,
    readonly repo: RepoInfo,
    /** Baton's index for this session (in the session directory). */
    readonly indexFile: string,
  ) {}

  /**
   * Stage the working tree into Baton's index and write its tree; then, at the same time, commit it (on HEAD
   * when there is one) and run `alongside(tree)` (e.g. the comparison with the previous checkpoint).
   * `staged` is called as soon as the files have been read: from then on the snapshot no longer depends on
   * the working tree (only on Baton's index and the object store), so whoever waits for it may go on.
   */
  async take<T = undefined>(message: string, alongside?: (tree: string) => Promise<T>, staged?: () => void): Promise<Snapshot & { readonly alongside: T | undefined }> {
    await this.seed();
    const call = { indexFile: this.indexFile };
    await this.git.run(["-c", "core.untrackedCache=true", "add", "--all", "--", ":/"], call);
    staged?.();
    const tree = (await this.git.text(["write-tree"], call)).trim();
    const [commit, extra] = await Promise.all([this.commit(tree, message), alongside?.(tree)]);
    return { commit, tree, alongside: extra };
  }

  /** `commit-tree` on HEAD; without a parent in a repository with no commit yet. */
  private async commit(tree: string, message: string): Promise<string> {
    const onHead = await this.git.run(["commit-tree", tree, "-p", "HEAD", "-m", message], { identity: true, allow: [128] });
    if (onHead.code === 0) return new TextDecoder().decode(onHead.stdout).trim();
    return (await this.git.text(["commit-tree", tree, "-m", message], { identity: true })).trim();
  }

  /** The tree of a commit (verifies it exists in this repository). */
  async treeOf(commit: string): Promise<string | undefined> {
    const result = await this.git.run(["rev-parse", "-q", "--verify", `${commit}^{tree}`], { allow: [1, 128] });
    if (result.code !== 0) return undefined;
    return new TextDecoder().decode(result.stdout).trim();
  }

  private async seed(): Promise<void> {
    if (this.seeded) return;
    await fs.promises.mkdir(path.dirname(this.indexFile), { recursive: true });
    // The copy keeps the original's mtime (taken before copying: older is always safe). Git trusts an entry's
    // stat data only when the file is older than the index itself ("racy git"); a fresh mtime on the copy
    // would make it trust entries of files edited in the same second as the user's last `git add`.
    const source = await fs.promises.stat(this.repo.userIndex).catch(() => undefined);
    let copied = false;
    if (source !== undefined) {
      // COPYFILE_EXCL: an index Baton already has (an earlier process of this session) is kept as it is.
      copied = await fs.promises.copyFile(this.repo.userIndex, this.indexFile, fs.constants.COPYFILE_EXCL).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code !== "EEXIST" && error.code !== "ENOENT") throw error;
          return false;
        },
      );
    }
    if (copied && source !== undefined) await fs.promises.utimes(this.indexFile, source.atime, source.mtime);
    this.seeded = true;
  }
}
