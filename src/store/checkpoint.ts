/**
 * Checkpoints: a cached fold of the ledger up to a byte offset, so opening a long session replays
 * only the tail. The ledger stays the single truth: a checkpoint is used only when it provably
 * matches the ledger (same fold version, same session, and the line ending at its byte offset has
 * its seq and eventId); anything else — missing, stale, corrupt, other version — falls back to a
 * full replay, never an error.
 *
 * File `checkpoint.jsonl` beside the ledger, two lines: a small header (validated before the large
 * state line is parsed), then the state JSON. Written in the background (sliced serialization,
 * temp + rename, 0600).
 */
import fs from "node:fs";
import * as path from "node:path";
import type { AnyEvent } from "../event/envelope.ts";
import { describeError } from "../shared/errors.ts";
import { isErrno, writeFileAtomic } from "./files.ts";
import type { Ledger, LedgerPosition } from "./ledger.ts";
import { stringifyPieces } from "./sliced-json.ts";

export const CHECKPOINT_FILE = "checkpoint.jsonl";
const FORMAT = "baton-checkpoint/1";

/** How a consumer folds events into its state. Bump `version` whenever the state shape or fold changes. */
export interface StateFold<S> {
  readonly version: string;
  initial(): S;
  fold(state: S, event: AnyEvent): S;
  /** State → JSON-able value (default: the state itself). */
  encode?(state: S): unknown;
  /** Parsed JSON → state (default: the value itself). May throw: the checkpoint is then ignored. */
  decode?(value: unknown): S;
}

export interface LoadedState<S> {
  readonly state: S;
  readonly fromCheckpoint: boolean;
  /** Events folded during this load (the tail after the checkpoint, or all of them). */
  readonly replayed: number;
  /** Ledger position the state corresponds to. */
  readonly position: LedgerPosition;
  /** Why an existing checkpoint was not used. */
  readonly checkpointProblem?: string;
}

interface CheckpointHeader {
  readonly format: string;
  readonly version: string;
  readonly batonSessionId: string;
  readonly seq: number;
  readonly byteOffset: number;
  readonly eventId: string;
}

export function checkpointPathFor(ledgerPath: string): string {
  return path.join(path.dirname(ledgerPath), CHECKPOINT_FILE);
}

type Restored<S> = { readonly state: S; readonly byteOffset: number } | { readonly problem: string | undefined };

/** Fold the ledger into a state, starting from a valid checkpoint when there is one. */
export function loadState<S>(ledger: Ledger, fold: StateFold<S>): LoadedState<S> {
  const restored = restoreCheckpoint(ledger, fold);
  let state: S;
  let from: number;
  let problem: string | undefined;
  if ("state" in restored) {
    state = restored.state;
    from = restored.byteOffset;
  } else {
    state = fold.initial();
    from = 0;
    problem = restored.problem;
  }
  const position = ledger.position;
  let replayed = 0;
  for (const located of ledger.readEvents({ fromOffset: from, toOffset: position.byteOffset })) {
    state = fold.fold(state, located.event);
    replayed++;
  }
  const result = { state, fromCheckpoint: "state" in restored, replayed, position };
  return problem === undefined ? result : { ...result, checkpointProblem: problem };
}

function restoreCheckpoint<S>(ledger: Ledger, fold: StateFold<S>): Restored<S> {
  const file = checkpointPathFor(ledger.path);
  let buffer: Buffer;
  try {
    buffer = fs.readFileSync(file);
  } catch (error) {
    return { problem: isErrno(error, "ENOENT") ? undefined : `cannot read ${file}: ${describeError(error)}` };
  }
  try {
    const headerEnd = buffer.indexOf(0x0a);
    if (headerEnd === -1 || buffer[buffer.byteLength - 1] !== 0x0a) return { problem: `${file} is truncated` };
    const header = parseHeader(buffer.toString("utf8", 0, headerEnd));
    if (typeof header === "string") return { problem: `${file}: ${header}` };
    const mismatch = checkAgainstLedger(header, ledger, fold.version);
    if (mismatch !== undefined) return { problem: `${file} is stale: ${mismatch}` };
    const parsed: unknown = JSON.parse(buffer.toString("utf8", headerEnd + 1, buffer.byteLength - 1));
    const state = fold.decode ? fold.decode(parsed) : (parsed as S);
    return { state, byteOffset: header.byteOffset };
  } catch (error) {
    return { problem: `${file} is unusable: ${describeError(error)}` };
  }
}

function parseHeader(text: string): CheckpointHeader | string {
  const value = JSON.parse(text) as Partial<CheckpointHeader> | null;
  if (typeof value !== "object" || value === null || value.format !== FORMAT) return `not a ${FORMAT} file`;
  if (
    typeof value.version !== "string" ||
    typeof value.batonSessionId !== "string" ||
    typeof value.eventId !== "string" ||
    !Number.isSafeInteger(value.seq) ||
    !Number.isSafeInteger(value.byteOffset)
  ) {
    return "malformed header";
  }
  return value as CheckpointHeader;
}

function checkAgainstLedger(header: CheckpointHeader, ledger: Ledger, version: string): string | undefined {
  if (header.version !== version) return `fold version ${header.version}, expected ${version}`;
  if (header.batonSessionId !== ledger.batonSessionId) return `it belongs to ${header.batonSessionId}`;
  if (header.byteOffset <= 0 || header.byteOffset > ledger.byteLength) {
    return `offset ${header.byteOffset} is beyond the ledger (${ledger.byteLength} bytes)`;
  }
  const event = ledger.eventEndingAt(header.byteOffset);
  if (event === undefined) return `no ledger line ends at offset ${header.byteOffset}`;
  if (event.seq !== header.seq || event.eventId !== header.eventId) {
    return `the line at offset ${header.byteOffset} is seq ${event.seq} ${event.eventId}, not seq ${header.seq} ${header.eventId}`;
  }
  return undefined;
}

const writes = new Map<string, { chain: Promise<void>; newestSeq: number }>();

/**
 * Persist `state` as of `position` (the position that accompanied the last folded event, or the
 * one `loadState` returned). Runs in the background: serialization yields to the event loop and
 * the file is replaced atomically. Writes for one ledger are serialized; a write older than one
 * already requested is skipped. Resolves false when skipped (empty ledger or superseded).
 */
export function writeCheckpoint<S>(
  ledger: Pick<Ledger, "path" | "batonSessionId">,
  fold: Pick<StateFold<S>, "version" | "encode">,
  state: S,
  position: LedgerPosition,
): Promise<boolean> {
  const file = checkpointPathFor(ledger.path);
  const eventId = position.eventId;
  if (eventId === undefined || position.byteOffset <= 0) return Promise.resolve(false);
  const entry = writes.get(file) ?? { chain: Promise.resolve(), newestSeq: -1 };
  if (position.seq <= entry.newestSeq) return Promise.resolve(false);
  entry.newestSeq = position.seq;
  const payload = fold.encode ? fold.encode(state) : state;
  const result = entry.chain.then(async () => {
    if (entry.newestSeq !== position.seq) return false; // a newer checkpoint was requested meanwhile
    const header: CheckpointHeader = {
      format: FORMAT,
      version: fold.version,
      batonSessionId: ledger.batonSessionId,
      seq: position.seq,
      byteOffset: position.byteOffset,
      eventId,
    };
    const body = await stringifyPieces(payload);
    if (body === undefined) return false;
    await writeFileAtomic(file, [`${JSON.stringify(header)}\n`, ...body, "\n"], "checkpoint");
    return true;
  });
  entry.chain = result.then(
    () => undefined,
    () => undefined,
  );
  writes.set(file, entry);
  void entry.chain.then(() => {
    if (writes.get(file) === entry && entry.newestSeq === position.seq) writes.delete(file);
  });
  return result;
}
