/**
 * `meta.json` (inventory §3.4 SessionMeta): title, preview, cwd, harness sessions, fork/adoption origin.
 * Written atomically (temp + fsync + rename). A harness-session entry may only live under its own
 * target id (EV-10). Unknown fields are preserved so newer Batons' additions survive a rewrite.
 */
import * as path from "node:path";
import type { z } from "zod";
import { lazySchema } from "../shared/lazy-schema.ts";
import { launchSnapshotSchema, type LaunchSnapshot } from "../event/kinds.ts";
import { BatonError } from "../shared/errors.ts";
import type { BatonSessionId, EpochId, TargetId } from "../shared/ids.ts";
import { readFileIfExists, writeFileAtomicSync } from "./files.ts";
import { isMetaShape } from "./meta-shape.ts";
import { writeError } from "./write-errors.ts";

export const META_FILE = "meta.json";

/** Ids are branded: `parseMeta` is their door (it validates the file, then types it). */
export interface HarnessSessionMeta {
  readonly harnessTargetId: TargetId;
  readonly harness: string;
  readonly launchSnapshot?: LaunchSnapshot;
  readonly harnessSessionId?: string;
  readonly resumeState?: { readonly version: number; readonly data: unknown };
  readonly model?: string;
  readonly effort?: string;
  readonly mode?: string;
  readonly resumeCursor?: unknown;
  readonly contextEpochId?: EpochId;
  readonly syncedSeq?: number;
}

export interface ForkOrigin {
  readonly batonSessionId: BatonSessionId;
  readonly throughSeq: number;
}

export interface AdoptionOrigin {
  readonly session: { readonly harnessTargetId: string; readonly harness: string; readonly identity: { readonly id: string } };
  /** Opaque boundary digest owned by the native-session inspector. */
  readonly importedThrough: unknown;
}

export interface SessionMeta {
  readonly batonSessionId: BatonSessionId;
  readonly title?: string;
  readonly preview?: string;
  readonly description?: string;
  /** Resolved (realpath) working directory the session belongs to. */
  readonly cwd: string;
  readonly createdAt: string;
  readonly updatedAt?: string;
  readonly harnessSessions: Readonly<Record<string, HarnessSessionMeta>>;
  readonly forkedFrom?: ForkOrigin;
  readonly adoptedFrom?: AdoptionOrigin;
  /**
   * What the session waited for when it was last closed, and the ledger's length then (#20.2): the inbox trusts it
   * only while the ledger still has that length, else it reads the checkpoint + tail. Its shape belongs to the app.
   */
  readonly attention?: unknown;
}

const harnessSessionSchema = lazySchema((z) => z.looseObject({
  harnessTargetId: z.string().min(1),
  harness: z.string().min(1),
  launchSnapshot: launchSnapshotSchema.optional(),
  harnessSessionId: z.string().optional(),
  resumeState: z.looseObject({ version: z.number(), data: z.unknown() }).optional(),
  model: z.string().optional(),
  effort: z.string().optional(),
  mode: z.string().optional(),
  resumeCursor: z.unknown().optional(),
  contextEpochId: z.string().optional(),
  syncedSeq: z.number().optional(),
}));

export const sessionMetaSchema = lazySchema((z) => z.looseObject({
  batonSessionId: z.string().startsWith("bs_"),
  title: z.string().optional(),
  preview: z.string().optional(),
  description: z.string().optional(),
  cwd: z.string().min(1),
  createdAt: z.string().min(1),
  updatedAt: z.string().optional(),
  harnessSessions: z.record(z.string(), harnessSessionSchema),
  forkedFrom: z.looseObject({ batonSessionId: z.string().startsWith("bs_"), throughSeq: z.number().int().min(0) }).optional(),
  adoptedFrom: z
    .looseObject({
      session: z.looseObject({
        harnessTargetId: z.string(),
        harness: z.string(),
        identity: z.looseObject({ id: z.string() }),
      }),
      importedThrough: z.unknown(),
    })
    .optional(),
}));

export function metaPath(sessionDir: string): string {
  return path.join(sessionDir, META_FILE);
}

/** Structural validation; returns the problem or undefined. Includes the EV-10 key check. */
export function checkMeta(value: unknown): string | undefined {
  // A shape the hand check is sure of skips the schema (and zod's load at open); the schema decides the rest.
  if (isMetaShape(value)) return checkSessionKeys((value as SessionMeta).harnessSessions);
  const result = sessionMetaSchema.safeParse(value);
  if (!result.success) return describeIssue(result.error.issues[0], []);
  return checkSessionKeys(result.data.harnessSessions);
}

/**
 * `checkMeta(next)` for a `next` made from a valid `previous` by copying (meta is immutable): the hand check of the
 * whole meta first (no zod: a new session's first prompt records its preview, and the schema loaded zod, ≈ 40 ms,
 * on the way to a one-turn exec's turn, #18); what it is unsure of, only in the fields whose value changed, and of
 * `harnessSessions` only the entries that changed — the schema has no check across fields, so this is the whole
 * check's answer at a fraction of its cost (every turn end bumps `updatedAt`). Returns the problem or undefined.
 */
export function checkMetaChange(previous: SessionMeta, next: SessionMeta): string | undefined {
  const before = previous as unknown as Record<string, unknown>;
  const after = next as unknown as Record<string, unknown>;
  if (typeof after !== "object" || after === null || Array.isArray(after)) return checkMeta(next);
  if (isMetaShape(next)) return checkSessionKeys(next.harnessSessions);
  const fields = sessionMetaSchema.shape as Record<string, z.ZodType | undefined>;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const value = after[key];
    if (value === before[key]) continue;
    if (key === "harnessSessions") {
      const problem = checkHarnessSessionsChange(before[key], value);
      if (problem !== undefined) return problem;
      continue;
    }
    const schema = fields[key];
    if (schema === undefined) continue; // an unknown field (a newer Baton's): kept as it is
    const result = schema.safeParse(value);
    if (!result.success) return describeIssue(result.error.issues[0], [key]);
  }
  return undefined;
}

function checkHarnessSessionsChange(previous: unknown, next: unknown): string | undefined {
  if (typeof next !== "object" || next === null || Array.isArray(next) || typeof previous !== "object" || previous === null) {
    const result = sessionMetaSchema.shape.harnessSessions.safeParse(next);
    if (!result.success) return describeIssue(result.error.issues[0], ["harnessSessions"]);
    return checkSessionKeys(result.data);
  }
  const before = previous as Record<string, unknown>;
  for (const [key, entry] of Object.entries(next as Record<string, unknown>)) {
    if (entry === before[key]) continue;
    const result = harnessSessionSchema.safeParse(entry);
    if (!result.success) return describeIssue(result.error.issues[0], ["harnessSessions", key]);
    if (result.data.harnessTargetId !== key) return `harness session for target ${result.data.harnessTargetId} is stored under key ${key}`;
  }
  return undefined;
}

function describeIssue(issue: z.core.$ZodIssue | undefined, at: readonly PropertyKey[]): string {
  const where = [...at, ...(issue?.path ?? [])];
  return `invalid session meta${where.length > 0 ? ` at ${where.map(String).join(".")}` : ""}: ${issue?.message ?? "unknown problem"}`;
}

function checkSessionKeys(sessions: Record<string, { readonly harnessTargetId: string }>): string | undefined {
  for (const [key, entry] of Object.entries(sessions)) {
    if (entry.harnessTargetId !== key) return `harness session for target ${entry.harnessTargetId} is stored under key ${key}`;
  }
  return undefined;
}

/** Parse meta.json text; throws meta_invalid naming the file. */
export function parseMeta(text: string, file: string): SessionMeta {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BatonError("meta_invalid", `${file} is not valid JSON`, { cause: error });
  }
  const problem = checkMeta(parsed);
  if (problem !== undefined) throw new BatonError("meta_invalid", `${file}: ${problem}`);
  return parsed as SessionMeta;
}

/** Read a session's meta.json; missing → session_not_found, corrupt → meta_invalid. */
export function readMeta(sessionDir: string): SessionMeta {
  const file = metaPath(sessionDir);
  const text = readFileIfExists(file);
  if (text === undefined) throw new BatonError("session_not_found", `no ${META_FILE} in ${sessionDir}`);
  return parseMeta(text, file);
}

/**
 * Validate and write meta.json atomically. A mismatched harness-session key throws (EV-10); a failed write
 * throws `disk_full` / `ledger_io` naming the file (the old meta.json stays as it was).
 */
export function writeMeta(sessionDir: string, meta: SessionMeta): void {
  const problem = checkMeta(meta);
  if (problem !== undefined) throw new BatonError("meta_invalid", `refusing to write ${metaPath(sessionDir)}: ${problem}`);
  const file = metaPath(sessionDir);
  const text = `${JSON.stringify(meta, null, 2)}\n`;
  try {
    writeFileAtomicSync(file, text, "meta");
  } catch (error) {
    throw writeError(file, "write", error, Buffer.byteLength(text));
  }
}

/**
 * Read, transform, write. The transform returns a new object (meta is treated as immutable);
 * returning the same object skips the write.
 */
export function updateMeta(sessionDir: string, transform: (meta: SessionMeta) => SessionMeta): SessionMeta {
  const current = readMeta(sessionDir);
  const next = transform(current);
  if (next !== current) writeMeta(sessionDir, next);
  return next;
}

/** Pure helper: the meta with `entry` stored under its own target id. */
export function withHarnessSession(meta: SessionMeta, entry: HarnessSessionMeta): SessionMeta {
  return { ...meta, harnessSessions: { ...meta.harnessSessions, [entry.harnessTargetId]: entry } };
}

/** Bump `updatedAt` (e.g. after a turn summary was appended). Never moves it backwards. */
export function touchMeta(sessionDir: string, updatedAt: string): SessionMeta {
  return updateMeta(sessionDir, (meta) => touched(meta, updatedAt));
}

/** The meta with `updatedAt` bumped to `updatedAt` (the same object when it is not newer). */
export function touched(meta: SessionMeta, updatedAt: string): SessionMeta {
  return meta.updatedAt !== undefined && meta.updatedAt >= updatedAt ? meta : { ...meta, updatedAt };
}

/** The sort key used by listings: updatedAt, else createdAt. */
export function activityTime(meta: SessionMeta): string {
  return meta.updatedAt ?? meta.createdAt;
}

/**
 * What in meta.json says the session has history (so an empty or missing ledger means it was lost),
 * or undefined when nothing does: a bound native session, an import, a fork of a non-empty prefix,
 * or activity recorded after a turn.
 */
export function recordedHistory(meta: SessionMeta): string | undefined {
  const bound = Object.values(meta.harnessSessions).filter((entry) => entry.harnessSessionId !== undefined);
  if (bound.length > 0) return `meta.json names native sessions (${bound.map((entry) => `${entry.harnessTargetId}: ${entry.harnessSessionId}`).join(", ")})`;
  if (meta.adoptedFrom) return `meta.json records an import of ${meta.adoptedFrom.session.harness} session ${meta.adoptedFrom.session.identity.id}`;
  if (meta.forkedFrom && meta.forkedFrom.throughSeq > 0) return `meta.json records a fork of ${meta.forkedFrom.batonSessionId} through seq ${meta.forkedFrom.throughSeq}`;
  if (meta.updatedAt !== undefined) return `meta.json records activity at ${meta.updatedAt}`;
  return undefined;
}
