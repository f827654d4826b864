/**
 * Opening a session whose directory holds a restore journal: Baton stopped in the middle of a rewind. The
 * worktree is made whole again and the session is told what happened.
 * - The new session was committed (it has its `rewind` checkpoint): the restore had finished; only the
 *   journal is left to remove.
 * - Not committed: roll back. Every path the restore had already changed (it now matches the checkpoint,
 *   not the state before) is put back; a path that matches neither changed since and is left alone, named.
 *   The half-made new session, if any, is removed.
 */
import fs from "node:fs";
import type { SessionCheckpoints } from "../rewind/checkpoints.ts";
import { readJournal, removeJournal, type RestoreJournal } from "../rewind/journal.ts";
import { restoreTree } from "../rewind/restore.ts";
import { changedPaths } from "../rewind/tree-diff.ts";
import { describeError } from "../shared/errors.ts";
import { sessionDirOf, type SessionRef, type SessionStore } from "../store/index.ts";

export type RewindRecovery =
  | { readonly kind: "none" }
  | { readonly kind: "completed" | "rolled_back" | "failed"; readonly message: string; readonly journal?: RestoreJournal };

export async function recoverInterruptedRewind(store: SessionStore, ref: SessionRef, checkpoints: SessionCheckpoints): Promise<RewindRecovery> {
  let journal: RestoreJournal | undefined;
  try {
    journal = await readJournal(ref.paths.dir);
  } catch (error) {
    return { kind: "failed", message: `A rewind was interrupted, but its journal cannot be read: ${describeError(error)}` };
  }
  if (journal === undefined) return { kind: "none" };
  if (committed(store, journal.newSessionId)) {
    await removeJournal(ref.paths.dir);
    return {
      kind: "completed",
      journal,
      message: `A rewind ${journal.label} had finished when Baton stopped: the files are as at that checkpoint and the conversation continues in ${journal.newSessionId} (baton -s ${journal.newSessionId}).`,
    };
  }
  try {
    const open = await checkpoints.open();
    if ("off" in open) return { kind: "failed", journal, message: `A rewind ${journal.label} was interrupted and cannot be undone here: ${open.off}.` };
    const now = await open.snapshots.take(`baton checkpoint ${ref.batonSessionId} rewind-recovery`);
    const [fromBefore, fromTarget] = await Promise.all([changedPaths(open.git, now.tree, journal.from.tree), changedPaths(open.git, now.tree, journal.to.tree)]);
    const differsFromTarget = new Set(fromTarget);
    const restored = fromBefore.filter((p) => !differsFromTarget.has(p));
    const changedSince = fromBefore.filter((p) => differsFromTarget.has(p));
    await restoreTree(open.git, now.tree, journal.from.tree, { only: new Set(restored) });
    await fs.promises.rm(sessionDirOf(ref.projectDir, journal.newSessionId), { recursive: true, force: true });
    await removeJournal(ref.paths.dir);
    const left = changedSince.length === 0 ? "" : ` Left as they are (changed since): ${changedSince.join(", ")}.`;
    return {
      kind: "rolled_back",
      journal,
      message: `A rewind ${journal.label} was interrupted while restoring files: the ${restored.length} file${restored.length === 1 ? "" : "s"} it had changed ${restored.length === 1 ? "was" : "were"} put back, so the files are as they were before it.${left} Nothing was lost; rewind again if you still want to.`,
    };
  } catch (error) {
    return { kind: "failed", journal, message: `A rewind ${journal.label} was interrupted and could not be undone: ${describeError(error)}. The journal is kept: ${ref.paths.dir}` };
  }
}

/** The new session exists and ends with its rewind checkpoint (the last thing a rewind writes to it). */
function committed(store: SessionStore, id: string): boolean {
  let ref: SessionRef;
  try {
    ref = store.findSession(id);
  } catch {
    return false;
  }
  const ledger = store.openLedger(ref, { readOnly: true });
  try {
    const last = ledger.eventEndingAt(ledger.byteLength);
    return last?.kind === "_baton_checkpoint" && (last.payload as { boundary?: unknown }).boundary === "rewind";
  } catch {
    return false;
  } finally {
    void ledger.close();
  }
}
