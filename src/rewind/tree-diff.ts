/** What differs between two checkpoints (commits or trees): paths, raw entries, and a unified diff per file. */
import { splitNul, type Git } from "./git.ts";

export type ChangeStatus = "A" | "M" | "D" | "T";

/** One path that differs, as `git diff-tree --raw` reports it (no rename detection). */
export interface TreeChange {
  readonly path: string;
  readonly status: ChangeStatus;
  readonly oldMode: string;
  readonly newMode: string;
  readonly oldBlob: string;
  readonly newBlob: string;
}

export interface FilePatch {
  readonly path: string;
  readonly op: "add" | "modify" | "delete";
  /** The unified diff of this file (hunks), or a one-line note for binary files. */
  readonly patch: string;
}

const BASE = ["diff-tree", "-r", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"];

export async function changedPaths(git: Git, from: string, to: string): Promise<string[]> {
  if (from === to) return [];
  return splitNul(await git.text([...BASE, "--name-only", "-z", from, to]));
}

export async function treeChanges(git: Git, from: string, to: string): Promise<TreeChange[]> {
  if (from === to) return [];
  const parts = splitNul(await git.text([...BASE, "--raw", "-z", "--abbrev=40", from, to]));
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [oldMode, newMode, oldBlob, newBlob, status] = (parts[i] ?? "").replace(/^:/, "").split(" ");
    const path = parts[i + 1];
    if (!oldMode || !newMode || !oldBlob || !newBlob || !status || path === undefined) continue;
    const known = status === "A" || status === "M" || status === "D" || status === "T";
    changes.push({ path, status: known ? status : "M", oldMode, newMode, oldBlob, newBlob });
  }
  return changes;
}

/**
 * A unified diff per changed file, `from` → `to`, in path order. Text beyond `maxBytes` is cut and says so;
 * the list of files is always complete.
 */
export async function filePatches(git: Git, from: string, to: string, maxBytes = 256 * 1024): Promise<FilePatch[]> {
  const changes = await treeChanges(git, from, to);
  if (changes.length === 0) return [];
  const text = await git.text([...BASE, "-p", "-U3", from, to], { maxOutputBytes: 64 * 1024 * 1024 });
  const byPath = new Map<string, string>();
  const sections = text.split(/^(?=diff --git )/m).filter((section) => section.startsWith("diff --git "));
  sections.forEach((section, index) => {
    const header = section.slice(0, section.indexOf("\n") >>> 0);
    // `diff --git a/X b/X` (no renames, so both sides name X); a quoted header falls back to position.
    const rest = header.slice("diff --git ".length);
    const named = rest.startsWith("a/") ? rest.slice(2, 2 + (rest.length - 1) / 2 - 2) : changes[index]?.path;
    if (named === undefined) return;
    const hunkStart = section.search(/^@@ /m);
    const body = hunkStart >= 0 ? section.slice(hunkStart) : /^Binary files/m.test(section) ? "Binary file changed\n" : "";
    byPath.set(named, (byPath.get(named) ?? "") + body);
  });
  let budget = maxBytes;
  return changes.map((change) => {
    let patch = byPath.get(change.path) ?? "";
    if (patch.length > budget) patch = budget > 0 ? `${patch.slice(0, budget)}\n… (diff cut: too long to show)` : "… (diff not shown: too long)";
    budget -= patch.length;
    return { path: change.path, op: change.status === "A" ? "add" : change.status === "D" ? "delete" : "modify", patch };
  });
}
