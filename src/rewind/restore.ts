/**
 * Make the working tree match a checkpoint, touching only the paths that differ from the current
 * snapshot: deletions first (deepest first, then directories left empty), then writes. Each file is
 * written to a temporary name beside it and renamed over the old one, so every single file is either old
 * or new; the restore journal (journal.ts) makes the whole set old-or-new across a crash.
 * Ignored files are never touched; submodules (gitlinks) are left as they are.
 */
import fs from "node:fs";
import path from "node:path";
import { BatonError } from "../shared/errors.ts";
import type { Git } from "./git.ts";
import { treeChanges, type TreeChange } from "./tree-diff.ts";

export interface RestoreResult {
  readonly written: readonly string[];
  readonly deleted: readonly string[];
  /** Submodule entries that differ (not restored). */
  readonly skipped: readonly string[];
}

export interface RestoreOptions {
  /** Called after each file written or deleted (failpoints stop here). */
  readonly onStep?: (done: number) => void;
  /** Touch only these paths (a roll-back restores just what a crashed restore had changed). */
  readonly only?: ReadonlySet<string>;
}

const GITLINK = "160000";
const SYMLINK = "120000";

/** Restore the worktree at `git.cwd` (its top level) from tree `from` (what it is now) to tree `to`. */
export async function restoreTree(git: Git, from: string, to: string, options: RestoreOptions = {}): Promise<RestoreResult> {
  const all = await treeChanges(git, from, to);
  const changes = options.only === undefined ? all : all.filter((c) => options.only?.has(c.path));
  const root = git.cwd;
  const removals = changes.filter((c) => c.status === "D" || (c.status === "T" && c.newMode !== GITLINK && c.oldMode !== GITLINK));
  const writes = changes.filter((c) => c.status !== "D" && c.newMode !== GITLINK);
  const skipped = changes.filter((c) => c.newMode === GITLINK || (c.status === "D" && c.oldMode === GITLINK)).map((c) => c.path);
  const blobs = await readBlobs(git, [...new Set(writes.map((c) => c.newBlob))]);
  let done = 0;
  const step = (): void => options.onStep?.(++done);

  const deleted: string[] = [];
  const emptied = new Set<string>();
  for (const change of [...removals].sort((a, b) => depth(b.path) - depth(a.path))) {
    if (change.oldMode === GITLINK) continue;
    const file = inside(root, change.path);
    await fs.promises.rm(file, { force: true });
    deleted.push(change.path);
    for (let dir = path.dirname(file); dir.length > root.length && dir.startsWith(root); dir = path.dirname(dir)) emptied.add(dir);
    if (change.status === "D") step();
  }
  for (const dir of [...emptied].sort((a, b) => b.length - a.length)) {
    if ((await fs.promises.readdir(dir).catch(() => ["?"])).length === 0) await fs.promises.rmdir(dir).catch(() => undefined);
  }

  const written: string[] = [];
  for (const change of writes) {
    const content = blobs.get(change.newBlob);
    if (content === undefined) throw new BatonError("git_failed", `checkpoint blob ${change.newBlob} for ${change.path} is missing`);
    await writeEntry(root, change, content);
    written.push(change.path);
    step();
  }
  return { written, deleted: deleted.filter((p) => !written.includes(p)), skipped };
}

function depth(p: string): number {
  return p.split("/").length;
}

function inside(root: string, rel: string): string {
  const full = path.resolve(root, rel);
  if (full !== root && !full.startsWith(`${root}${path.sep}`)) throw new BatonError("git_failed", `refusing to write outside the worktree: ${rel}`);
  return full;
}

async function writeEntry(root: string, change: TreeChange, content: Uint8Array): Promise<void> {
  const file = inside(root, change.path);
  const dir = path.dirname(file);
  await ensureDirectory(root, dir);
  const temp = path.join(dir, `.${path.basename(file)}.baton-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  try {
    if (change.newMode === SYMLINK) {
      await fs.promises.symlink(new TextDecoder().decode(content), temp);
    } else {
      const handle = await fs.promises.open(temp, "wx", change.newMode === "100755" ? 0o777 : 0o666);
      try {
        await handle.writeFile(content);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    // A directory where the file goes (its files were all deleted above, ignored ones may remain).
    const existing = await fs.promises.lstat(file).catch(() => undefined);
    if (existing?.isDirectory()) await fs.promises.rmdir(file);
    await fs.promises.rename(temp, file);
  } catch (error) {
    await fs.promises.unlink(temp).catch(() => undefined);
    throw new BatonError("git_failed", `could not restore ${change.path}: ${(error as Error).message}`, { cause: error });
  }
}

/** mkdir -p, replacing a file that stands where a directory must be (that file was deleted above or is in the way). */
async function ensureDirectory(root: string, dir: string): Promise<void> {
  const existing = await fs.promises.lstat(dir).catch(() => undefined);
  if (existing?.isDirectory()) return;
  if (existing !== undefined) throw new BatonError("git_failed", `${path.relative(root, dir)} is a file where the checkpoint has a directory`);
  await fs.promises.mkdir(dir, { recursive: true });
}

/** Blob contents by id, through one `git cat-file --batch`. */
async function readBlobs(git: Git, ids: readonly string[]): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  if (ids.length === 0) return out;
  const { stdout } = await git.run(["cat-file", "--batch"], { stdin: `${ids.join("\n")}\n`, maxOutputBytes: 1024 * 1024 * 1024 });
  let offset = 0;
  while (offset < stdout.byteLength) {
    const newline = stdout.indexOf(10, offset);
    if (newline < 0) break;
    const header = new TextDecoder().decode(stdout.subarray(offset, newline));
    const [id, type, size] = header.split(" ");
    if (type === "missing" || id === undefined || size === undefined) throw new BatonError("git_failed", `checkpoint object ${id ?? "?"} is missing from the repository`);
    const length = Number(size);
    out.set(id, stdout.slice(newline + 1, newline + 1 + length));
    offset = newline + 1 + length + 1;
  }
  return out;
}
