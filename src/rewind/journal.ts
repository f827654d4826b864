/**
 * The restore journal: written (and fsynced) before the first file of a rewind changes, removed after the
 * rewound session is committed. Finding one on open means Baton stopped mid-rewind: the worktree may be a
 * mix, and the journal says both ends (`from`: the worktree before, `to`: the checkpoint) so it can be
 * made whole again — forward when the new session was committed, else back.
 */
import fs from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { lazySchema } from "../shared/lazy-schema.ts";
import { BatonError } from "../shared/errors.ts";

export const JOURNAL_FILE = "rewind-journal.json";

const commitSchema = lazySchema((z) => z.string().regex(/^[0-9a-f]{40,64}$/));

export const journalSchema = lazySchema((z) => z.object({
  version: z.literal(1),
  /** The session the rewind started from (its directory holds this journal). */
  sourceSessionId: z.string().min(1),
  /** The session the rewind creates (minted before anything changed). */
  newSessionId: z.string().min(1),
  /** The worktree's top level. */
  root: z.string().min(1),
  /** What is restored: a turn's checkpoint, or an earlier rewind's undo point. */
  label: z.string(),
  from: z.object({ commit: commitSchema, tree: commitSchema }),
  to: z.object({ commit: commitSchema, tree: commitSchema }),
  startedAt: z.string(),
}));

export type RestoreJournal = z.infer<typeof journalSchema>;

export function journalPath(sessionDir: string): string {
  return path.join(sessionDir, JOURNAL_FILE);
}

/** Atomically: temp file, fsync, rename, fsync the directory. */
export async function writeJournal(sessionDir: string, journal: RestoreJournal): Promise<void> {
  const file = journalPath(sessionDir);
  const temp = `${file}.tmp-${process.pid}`;
  const handle = await fs.promises.open(temp, "w", 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(journal, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(temp, file);
  await syncDir(sessionDir);
}

export async function readJournal(sessionDir: string): Promise<RestoreJournal | undefined> {
  const file = journalPath(sessionDir);
  let text: string;
  try {
    text = await fs.promises.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BatonError("ledger_corrupt", `${file} is not valid JSON`, { hint: "Check the worktree with git status, then delete the file" });
  }
  const result = journalSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new BatonError("ledger_corrupt", `${file}: ${issue?.path.join(".") ?? "?"}: ${issue?.message ?? "invalid"}`, { hint: "Check the worktree with git status, then delete the file" });
  }
  return result.data;
}

export async function removeJournal(sessionDir: string): Promise<void> {
  await fs.promises.rm(journalPath(sessionDir), { force: true });
  await syncDir(sessionDir);
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, "r");
  try {
    await handle.sync();
  } catch {
    // some filesystems refuse fsync on a directory; the rename is still ordered after the file's fsync
  } finally {
    await handle.close();
  }
}
