/**
 * Checkpoint refs: `refs/baton/checkpoints/<bs_id>/<name>`. A ref is what keeps a checkpoint commit alive
 * through `git gc`; nothing else in the repository points at it (no branch, no stash, no reflog entry).
 */
import { splitNul, type Git } from "./git.ts";

export const REF_ROOT = "refs/baton/checkpoints";

/** What a checkpoint ref keeps: a turn's before/after state, the state a rewind restored, or its undo point. */
export type RefRole = "before" | "after" | "rewind" | "undo";

/** `refs/baton/checkpoints/<bs_id>/<turnId>` for `before`, `…/<turnId>-<role>` otherwise. */
export function checkpointRef(sessionId: string, turnId: string, role: RefRole): string {
  return `${REF_ROOT}/${sessionId}/${role === "before" ? turnId : `${turnId}-${role}`}`;
}

export interface CheckpointRefEntry {
  readonly ref: string;
  readonly sessionId: string;
  readonly name: string;
  readonly commit: string;
}

/** Create or move refs in one transaction (`update-ref --stdin -z`). */
export async function writeRefs(git: Git, updates: readonly { readonly ref: string; readonly commit: string }[]): Promise<void> {
  if (updates.length === 0) return;
  const stdin = updates.map((u) => `update ${u.ref}\0${u.commit}\0\0`).join("");
  await git.run(["update-ref", "--no-deref", "--stdin", "-z"], { stdin });
}

export async function deleteRefs(git: Git, refs: readonly string[]): Promise<void> {
  if (refs.length === 0) return;
  await git.run(["update-ref", "--no-deref", "--stdin", "-z"], { stdin: refs.map((ref) => `delete ${ref}\0\0`).join("") });
}

export async function listCheckpointRefs(git: Git): Promise<CheckpointRefEntry[]> {
  const text = await git.text(["for-each-ref", "--format=%(objectname) %(refname)%00", REF_ROOT]);
  const out: CheckpointRefEntry[] = [];
  for (const line of splitNul(text)) {
    const trimmed = line.replace(/^\n/, "");
    const space = trimmed.indexOf(" ");
    if (space < 0) continue;
    const commit = trimmed.slice(0, space);
    const ref = trimmed.slice(space + 1);
    const rest = ref.slice(REF_ROOT.length + 1);
    const slash = rest.indexOf("/");
    if (slash < 0) continue;
    out.push({ ref, commit, sessionId: rest.slice(0, slash), name: rest.slice(slash + 1) });
  }
  return out;
}
