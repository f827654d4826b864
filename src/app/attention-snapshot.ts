/**
 * What a closing session records in its meta.json for the inbox (#20.2): what it waits for, the target it last
 * drove, and the ledger's length then. The inbox trusts it only while the ledger still has that length (it is
 * append-only: any later append, a crash's tail or a repair, changes it) and a malformed one is ignored.
 */
import fs from "node:fs";
import { lazySchema } from "../shared/lazy-schema.ts";
import { targetRefField } from "../event/id-fields.ts";
import { selectLastDrivenTarget, selectWaiting, type ProjectionState, type Waiting } from "../projection/index.ts";
import type { SessionRef } from "../store/index.ts";

/** What a session waits for, as its meta.json keeps it from its last close. */
export interface AttentionSnapshot {
  readonly ledgerBytes: number;
  readonly waiting: Waiting | null;
  /** The target it last drove (the row's agent when a card names none). */
  readonly lastTarget: string | null;
}

const waitItemSchema = lazySchema((z) => z.object({
  kind: z.enum(["approval", "question", "suggestion"]),
  interactionId: z.string(),
  title: z.string().nullable(),
  turnId: z.string().nullable(),
  harnessTargetId: targetRefField.nullable(),
  openedAt: z.string(),
}));
const snapshotSchema = lazySchema((z) => z.object({
  ledgerBytes: z.number().int().min(0),
  waiting: z.object({ pending: z.array(waitItemSchema), exitedWhile: waitItemSchema.optional() }).nullable(),
  lastTarget: z.string().nullable(),
}));

/** The snapshot a closing session writes into its meta.json (after its last append). */
export function attentionSnapshot(state: ProjectionState, ledgerBytes: number): AttentionSnapshot {
  return { ledgerBytes, waiting: selectWaiting(state) ?? null, lastTarget: selectLastDrivenTarget(state) };
}

/** The meta.json snapshot, if it is there, well-formed and the ledger has not grown since. */
export function freshSnapshot(ref: SessionRef): AttentionSnapshot | undefined {
  if (ref.meta.attention === undefined) return undefined;
  const parsed = snapshotSchema.safeParse(ref.meta.attention);
  if (!parsed.success) return undefined;
  let size: number;
  try {
    size = fs.statSync(ref.paths.ledger).size;
  } catch {
    return undefined;
  }
  if (size !== parsed.data.ledgerBytes) return undefined;
  const { waiting, lastTarget } = parsed.data;
  return { ledgerBytes: size, lastTarget, waiting: waiting === null ? null : { pending: waiting.pending, exitedWhile: waiting.exitedWhile } };
}

