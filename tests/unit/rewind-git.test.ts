/**
 * The git checkpoint/restore room against real git in temp repositories: a snapshot leaves the user's index,
 * HEAD, branch and stash alone and runs no hooks; restore makes the tree exactly the checkpoint's (deletes,
 * directory/file swaps, exec bits, symlinks, ignored files untouched); refs keep checkpoints through
 * `git gc --prune=now`; non-git directories are "off"; the journal round-trips and rejects a bad file.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdtempSync, readlinkSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Git } from "../../src/rewind/git.ts";
import { readJournal, removeJournal, writeJournal, type RestoreJournal } from "../../src/rewind/journal.ts";
import { checkpointRef, listCheckpointRefs, writeRefs } from "../../src/rewind/refs.ts";
import { probeRepo } from "../../src/rewind/repo.ts";
import { restoreTree } from "../../src/rewind/restore.ts";
import { WorktreeSnapshots } from "../../src/rewind/snapshot.ts";
import { changedPaths, filePatches } from "../../src/rewind/tree-diff.ts";
import { isBatonError } from "../../src/shared/errors.ts";
import { filesOf, git, gitEnv, initRepo, userView, writeFiles } from "../support/git-repo.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-rewind-"));
  dirs.push(dir);
  return dir;
}

async function repoAt(files: Record<string, string>, options: { ignore?: string } = {}) {
  const base = tempDir();
  const root = path.join(base, "repo");
  initRepo(root, files, options);
  const probe = await probeRepo(new Git({ cwd: root, env: gitEnv() }));
  if (probe.kind !== "repo") throw new Error(probe.reason);
  const g = new Git({ cwd: probe.repo.root, env: gitEnv() });
  return { root, git: g, snapshots: new WorktreeSnapshots(g, probe.repo, path.join(base, "baton-index")) };
}

describe("snapshots", () => {
  test("a snapshot commits tracked, untracked and staged changes; the user's index, HEAD, branch and stash stay as they were", async () => {
    const { root, snapshots } = await repoAt({ "a.txt": "one\n", "src/b.txt": "b\n" }, { ignore: "*.log\n" });
    writeFiles(root, { "staged.txt": "staged\n", "a.txt": "two\n", "new/untracked.txt": "u\n", "debug.log": "ignored\n" });
    git(root, "add", "staged.txt");
    git(root, "stash", "list");
    const before = userView(root);
    const shot = await snapshots.take("test snapshot");
    expect(userView(root)).toEqual(before);
    expect(git(root, "ls-tree", "-r", "--name-only", shot.commit).trim().split("\n")).toEqual([".gitignore", "a.txt", "new/untracked.txt", "src/b.txt", "staged.txt"]);
    expect(git(root, "show", `${shot.commit}:a.txt`)).toBe("two\n");
    expect(git(root, "rev-parse", `${shot.commit}^`).trim()).toBe(before.head);
    expect(git(root, "log", "-1", "--format=%an <%ae>", shot.commit).trim()).toBe("Baton <baton@localhost>");
  });

  test("an edit git can only see through the racy-git check (same size, same mtime as the index) is in the snapshot", async () => {
    const { root, snapshots } = await repoAt({ "a.txt": "0\n" });
    git(root, "config", "core.trustctime", "false");
    // The user's last `git add` happened in the same instant as the file's write: the entry is racily clean.
    const index = path.join(root, ".git", "index");
    const when = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000);
    utimesSync(path.join(root, "a.txt"), when, when);
    git(root, "add", "a.txt");
    utimesSync(index, when, when);
    writeFileSync(path.join(root, "a.txt"), "1\n");
    utimesSync(path.join(root, "a.txt"), when, when);
    // git itself sees the edit (read-only: GIT_OPTIONAL_LOCKS=0 keeps status from rewriting the index)
    expect(Bun.spawnSync(["git", "status", "--porcelain"], { cwd: root, env: { ...gitEnv(), GIT_OPTIONAL_LOCKS: "0" } }).stdout.toString()).toBe(" M a.txt\n");
    const shot = await snapshots.take("racy");
    expect(git(root, "show", `${shot.commit}:a.txt`)).toBe("1\n");
  });

  test("no hook runs (a reference-transaction hook that would leave a trace stays silent)", async () => {
    const { root, snapshots, git: g } = await repoAt({ "a.txt": "one\n" });
    const hook = path.join(root, ".git", "hooks", "reference-transaction");
    writeFileSync(hook, `#!/bin/sh\necho ran >> "${path.join(root, "..", "hook-ran")}"\n`);
    chmodSync(hook, 0o755);
    const shot = await snapshots.take("hooks");
    await writeRefs(g, [{ ref: checkpointRef("bs_test", "t_1", "before"), commit: shot.commit }]);
    expect(existsSync(path.join(root, "..", "hook-ran"))).toBe(false);
    // the hook does run for a plain git command, so the check above can fail
    git(root, "update-ref", "refs/heads/other", "HEAD");
    expect(existsSync(path.join(root, "..", "hook-ran"))).toBe(true);
  });

  test("an unborn repository (no commit yet) can be checkpointed: no parent", async () => {
    const base = tempDir();
    initRepo(base, { "a.txt": "x\n" }, { commit: false });
    const probe = await probeRepo(new Git({ cwd: base, env: gitEnv() }));
    if (probe.kind !== "repo") throw new Error("expected a repo");
    const g = new Git({ cwd: probe.repo.root, env: gitEnv() });
    const shot = await new WorktreeSnapshots(g, probe.repo, path.join(tempDir(), "i")).take("unborn");
    expect(git(base, "cat-file", "-p", shot.commit)).not.toContain("parent ");
  });

  test("a directory outside any git worktree is off, with a reason", async () => {
    const probe = await probeRepo(new Git({ cwd: tempDir(), env: gitEnv() }));
    expect(probe).toMatchObject({ kind: "off" });
    expect(probe.kind === "off" && probe.reason).toContain("is not in a git worktree");
  });

  test("git that does not answer in time is killed: a timeout error, not a hang", async () => {
    const { root } = await repoAt({ "a.txt": "one\n" });
    // Reading a FIFO nobody writes blocks git itself in open(2): it can never answer, on any machine.
    execFileSync("mkfifo", [path.join(root, "never.fifo")]);
    const slow = new Git({ cwd: root, env: gitEnv(), timeoutMs: 200 });
    const error = await slow.run(["hash-object", "never.fifo"]).catch((e: unknown) => e);
    expect(isBatonError(error, "timeout")).toBe(true);
    expect((error as Error).message).toBe("git hash-object did not finish within 200 ms");
  });
});

describe("restore", () => {
  test("restores exactly the checkpoint's tree: modified, added, deleted, a file that became a directory, exec bit, symlink; ignored files stay", async () => {
    const { root, git: g, snapshots } = await repoAt({ "a.txt": "one\n", "run.sh": "#!/bin/sh\n", "d/x.txt": "x\n", "keep.txt": "same\n" }, { ignore: "*.log\n" });
    chmodSync(path.join(root, "run.sh"), 0o755);
    symlinkSync("a.txt", path.join(root, "link"));
    const target = await snapshots.take("target");
    const expected = filesOf(root);
    // an agent's edits
    writeFiles(root, { "a.txt": "changed\n", "b/new.txt": "new\n", "debug.log": "ignored\n" });
    rmSync(path.join(root, "d"), { recursive: true });
    writeFileSync(path.join(root, "d"), "d is a file now\n");
    chmodSync(path.join(root, "run.sh"), 0o644);
    rmSync(path.join(root, "link"));
    const now = await snapshots.take("now");
    const steps: number[] = [];
    const result = await restoreTree(g, now.tree, target.tree, { onStep: (n) => steps.push(n) });
    expect({ ...filesOf(root), "debug.log": undefined }).toEqual({ ...expected, "debug.log": undefined });
    expect(filesOf(root)["debug.log"]).toBe("ignored\n");
    expect(existsSync(path.join(root, "b"))).toBe(false);
    expect(statSync(path.join(root, "run.sh")).mode & 0o100).toBe(0o100);
    expect(lstatSync(path.join(root, "link")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(root, "link"))).toBe("a.txt");
    expect([...result.written].sort()).toEqual(["a.txt", "d/x.txt", "link", "run.sh"]);
    expect([...result.deleted].sort()).toEqual(["b/new.txt", "d"]);
    expect(steps.at(-1)).toBe(steps.length);
    expect(await changedPaths(g, (await snapshots.take("after")).tree, target.tree)).toEqual([]);
  });

  test("`only` limits a restore to the given paths", async () => {
    const { root, git: g, snapshots } = await repoAt({ "a.txt": "1\n", "b.txt": "1\n" });
    const target = await snapshots.take("t");
    writeFiles(root, { "a.txt": "2\n", "b.txt": "2\n" });
    const now = await snapshots.take("n");
    await restoreTree(g, now.tree, target.tree, { only: new Set(["a.txt"]) });
    expect(filesOf(root)).toMatchObject({ "a.txt": "1\n", "b.txt": "2\n" });
  });

  test("file patches give a unified diff per file, now → checkpoint", async () => {
    const { root, git: g, snapshots } = await repoAt({ "a.txt": "one\ntwo\n" });
    const target = await snapshots.take("t");
    writeFiles(root, { "a.txt": "one\nTWO\n", "added.txt": "new\n" });
    const now = await snapshots.take("n");
    expect(await filePatches(g, now.tree, target.tree)).toEqual([
      { path: "a.txt", op: "modify", patch: "@@ -1,2 +1,2 @@\n one\n-TWO\n+two\n" },
      { path: "added.txt", op: "delete", patch: "@@ -1 +0,0 @@\n-new\n" },
    ]);
  });
});

describe("refs and gc", () => {
  test("git gc --prune=now keeps a checkpoint its ref names and prunes one without", async () => {
    const { root, git: g, snapshots } = await repoAt({ "a.txt": "one\n" });
    writeFiles(root, { "kept.txt": "kept\n" });
    const kept = await snapshots.take("kept");
    writeFiles(root, { "lost.txt": "lost\n" });
    const lost = await snapshots.take("lost");
    await writeRefs(g, [{ ref: checkpointRef("bs_1", "t_1", "before"), commit: kept.commit }]);
    git(root, "reflog", "expire", "--expire=now", "--all");
    git(root, "gc", "--prune=now", "--quiet");
    expect(git(root, "cat-file", "-t", kept.commit).trim()).toBe("commit");
    expect(() => git(root, "cat-file", "-t", lost.commit)).toThrow();
    expect(await listCheckpointRefs(g)).toEqual([{ ref: "refs/baton/checkpoints/bs_1/t_1", sessionId: "bs_1", name: "t_1", commit: kept.commit }]);
    expect(git(root, "branch", "--list").trim()).toBe("* main");
  });
});

describe("restore journal", () => {
  const journal: RestoreJournal = {
    version: 1,
    sourceSessionId: "bs_a",
    newSessionId: "bs_b",
    root: "/work/x",
    label: "before “x”",
    from: { commit: "a".repeat(40), tree: "b".repeat(40) },
    to: { commit: "c".repeat(40), tree: "d".repeat(40) },
    startedAt: "2026-01-01T00:00:00.000Z",
  };

  test("written atomically, read back, removed", async () => {
    const dir = tempDir();
    expect(await readJournal(dir)).toBeUndefined();
    await writeJournal(dir, journal);
    expect(await readJournal(dir)).toEqual(journal);
    await removeJournal(dir);
    expect(await readJournal(dir)).toBeUndefined();
  });

  test("a damaged journal is a clear error naming the file and the field", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "rewind-journal.json"), JSON.stringify({ ...journal, to: { commit: "nope", tree: "d".repeat(40) } }));
    const error = await readJournal(dir).catch((e: unknown) => e);
    expect((error as Error).message).toContain("rewind-journal.json: to.commit");
  });
});
