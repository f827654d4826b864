/**
 * Checkpoints: a cached fold of the ledger up to a byte offset, so opening a long session replays
 * only the tail. The ledger stays the single truth: a checkpoint is used only when it provably
 * matches the ledger — same fold version, same session, the line ending at its byte offset has its
 * seq and eventId, and the digest of every 1 MiB block before that offset still matches the file
 * (`ledger-digest.ts`); anything else — missing, stale, edited, corrupt, other version — falls back
 * to a full replay, never an error.
 *
 * File `checkpoint.jsonl` beside the ledger, two lines: a small header (validated before the large
 * state line is parsed), then the state JSON. Written in the background (sliced serialization,
 * temp + rename, 0600). A fold with `encodeNodes`/`decodeNodes` writes it incrementally (format 3): the
 * second line is a small head and the state's nodes live in an append-only node file
 * (`checkpoint-nodes.ts`) that each checkpoint extends with what changed; the header names that file,
 * the length it covers and its digest, checked like the ledger's.
 */
import fs from "node:fs";
import * as path from "node:path";
import type { AnyEvent } from "../event/envelope.ts";
import { describeError } from "../shared/errors.ts";
import { closeQuietly, isErrno, writeFileAtomic } from "./files.ts";
import type { Ledger, LedgerPosition } from "./ledger.ts";
import { digestPrefix, digestShapeProblem, fullBlocksOf, verifyPrefix, verifyPrefixSync, type PrefixDigest } from "./ledger-digest.ts";
import { stringifyPieces } from "./sliced-json.ts";
import { CheckpointNodes } from "./checkpoint-nodes.ts";
import { adoptNodeFile, checkNodeFile, FORMAT_NODES, writeIncremental, type CheckpointNodeStore, type EncodedHead, type NodeFileEntry } from "./checkpoint-incremental.ts";

export type { CheckpointNodeStore, EncodedHead } from "./checkpoint-incremental.ts";

export const CHECKPOINT_FILE = "checkpoint.jsonl";
const FORMAT = "baton-checkpoint/2";

/** How a consumer folds events into its state. Bump `version` whenever the state shape or fold changes. */
export interface StateFold<S> {
  readonly version: string;
  initial(): S;
  fold(state: S, event: AnyEvent): S;
  /** False when the fold never reads an event's `raw`: a load then need not parse it (ledger-load.ts). Default true. */
  readonly readsRaw?: boolean;
  /**
   * Runs a fold of many events in a row (a load): the fold may then update in place the states it
   * creates inside `run`, as long as what `run` returns is immutable once it returns.
   */
  batch?<T>(run: () => T): T;
  /** State → JSON-able value (default: the state itself). */
  encode?(state: S): unknown;
  /** Parsed JSON → state (default: the value itself). May throw: the checkpoint is then ignored. */
  decode?(value: unknown): S;
  /** Incremental checkpoints: the state as a head's JSON text, its nodes put into `nodes` (yields between slices). */
  encodeNodes?(state: S, nodes: CheckpointNodeStore): Generator<void, EncodedHead>;
  /** Incremental checkpoints: a parsed head → the state (nodes read from `nodes` when used); `decode` runs after it. */
  decodeNodes?(head: unknown, nodes: CheckpointNodeStore): S;
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
  /**
   * Present when the state came from a checkpoint whose ledger digest is still unchecked (`verify:
   * "deferred"`): resolves undefined when the ledger prefix matches, else the problem. Until it
   * resolves, do not write a new checkpoint from this state. Memoized.
   */
  readonly verifyCheckpoint?: () => Promise<string | undefined>;
}

export interface LoadOptions {
  /**
   * When to check the checkpoint's ledger digest (it reads the whole prefix): `sync` (default) before
   * the checkpoint is used — for commands that read everything anyway; `deferred` — the interactive
   * open, which checks after its first frame and replays fully on a mismatch.
   */
  readonly verify?: "sync" | "deferred";
  /** False: ignore any checkpoint and replay the whole ledger. */
  readonly useCheckpoint?: boolean;
}

interface CheckpointHeader {
  readonly format: string;
  readonly version: string;
  readonly batonSessionId: string;
  readonly seq: number;
  readonly byteOffset: number;
  readonly eventId: string;
  readonly digest: PrefixDigest;
  /** Format 3: the node file, the bytes of it the head may reference, and their digest. */
  readonly nodes?: NodeFileEntry;
}

export function checkpointPathFor(ledgerPath: string): string {
  return path.join(path.dirname(ledgerPath), CHECKPOINT_FILE);
}

type Restored<S> = { readonly state: S; readonly header: CheckpointHeader; readonly nodes?: CheckpointNodes } | { readonly problem: string | undefined };

/** Digests of full ledger blocks known to match the file, per open ledger (a later checkpoint reuses them). */
const knownBlocks = new WeakMap<object, readonly string[]>();

/** Fold the ledger into a state, starting from a valid checkpoint when there is one. */
export function loadState<S>(ledger: Ledger, fold: StateFold<S>, options: LoadOptions = {}): LoadedState<S> {
  const deferred = options.verify === "deferred";
  const restored: Restored<S> = options.useCheckpoint === false ? { problem: undefined } : restoreCheckpoint(ledger, fold, deferred);
  if (!("state" in restored)) {
    const full = replay(ledger, fold, fold.initial(), 0, 0);
    return restored.problem === undefined ? full : { ...full, checkpointProblem: restored.problem };
  }
  const { header, nodes } = restored;
  const loaded = replay(ledger, fold, restored.state, header.byteOffset, header.seq);
  const file = checkpointPathFor(ledger.path);
  const trust = (): void => {
    knownBlocks.set(ledger, fullBlocksOf(header.digest, header.byteOffset));
    if (nodes !== undefined && header.nodes !== undefined) {
      nodes.knowBlocks(fullBlocksOf(header.nodes.digest, header.nodes.length));
      adoptNodeFile(ledger, nodes);
    }
  };
  if (!deferred) {
    trust();
    return loaded;
  }
  let verdict: Promise<string | undefined> | undefined;
  const verifyCheckpoint = (): Promise<string | undefined> => {
    verdict ??= verifyPrefix(ledger.path, header.byteOffset, header.digest).then(
      async (check) => {
        if (!check.ok) return `${file} is stale: ${check.reason}`;
        if (nodes !== undefined && header.nodes !== undefined) {
          const nodesCheck = await verifyPrefix(nodes.file, header.nodes.length, header.nodes.digest);
          if (!nodesCheck.ok) return `${nodes.file} is stale: ${nodesCheck.reason.replace("the ledger's", "its")}`;
        }
        trust();
        return undefined;
      },
      (error: unknown) => `${file} could not be checked against the ledger: ${describeError(error)}`,
    );
    return verdict;
  };
  return { ...loaded, verifyCheckpoint };
}

/** Fold the events after `from` (whose preceding event is `afterSeq`) onto `state`. */
function replay<S>(ledger: Ledger, fold: StateFold<S>, initial: S, from: number, afterSeq: number): LoadedState<S> {
  const position = ledger.position;
  let replayed = 0;
  const run = (): S => {
    let state = initial;
    const options = { fromOffset: from, toOffset: position.byteOffset, afterSeq, withoutRaw: fold.readsRaw === false };
    // A fold that refuses an event (or breaks on it) fails the load naming the line, like a corrupt line.
    ledger.forEachEvent(options, (event) => {
      state = fold.fold(state, event);
      replayed++;
    });
    return state;
  };
  const state = fold.batch === undefined ? run() : fold.batch(run);
  return { state, fromCheckpoint: from > 0, replayed, position };
}

function restoreCheckpoint<S>(ledger: Ledger, fold: StateFold<S>, deferDigest: boolean): Restored<S> {
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
    const mismatch = checkAgainstLedger(header, ledger, fold.version) ?? (deferDigest ? undefined : checkDigest(ledger.path, header));
    if (mismatch !== undefined) return { problem: `${file} is stale: ${mismatch}` };
    if (header.format === FORMAT_NODES) {
      const problem = fold.decodeNodes === undefined ? "an incremental checkpoint, and this fold reads only whole ones" : checkNodeFile(path.dirname(file), header.nodes, deferDigest);
      if (problem !== undefined) return { problem: `${file} is unusable: ${problem}` };
    }
    const parsed: unknown = JSON.parse(buffer.toString("utf8", headerEnd + 1, buffer.byteLength - 1));
    if (header.nodes !== undefined && fold.decodeNodes !== undefined) {
      const nodes = new CheckpointNodes(path.dirname(file), header.nodes.name, header.nodes.length, false, header.nodes.live);
      const decoded = fold.decodeNodes(parsed, nodes);
      return { state: fold.decode ? fold.decode(decoded) : decoded, header, nodes };
    }
    const state = fold.decode ? fold.decode(parsed) : (parsed as S);
    return { state, header };
  } catch (error) {
    return { problem: `${file} is unusable: ${describeError(error)}` };
  }
}

function checkDigest(ledgerPath: string, header: CheckpointHeader): string | undefined {
  const fd = fs.openSync(ledgerPath, "r");
  try {
    const check = verifyPrefixSync(fd, header.byteOffset, header.digest);
    return check.ok ? undefined : check.reason;
  } finally {
    closeQuietly(fd);
  }
}

function parseHeader(text: string): CheckpointHeader | string {
  const value = JSON.parse(text) as Partial<CheckpointHeader> | null;
  if (typeof value !== "object" || value === null || (value.format !== FORMAT && value.format !== FORMAT_NODES)) return `not a ${FORMAT} or ${FORMAT_NODES} file`;
  if (
    typeof value.version !== "string" ||
    typeof value.batonSessionId !== "string" ||
    typeof value.eventId !== "string" ||
    !Number.isSafeInteger(value.seq) ||
    !Number.isSafeInteger(value.byteOffset)
  ) {
    return "malformed header";
  }
  const digestProblem = digestShapeProblem(value.digest, value.byteOffset as number);
  if (digestProblem !== undefined) return `malformed header: ${digestProblem}`;
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
 * Resolves true once no checkpoint write for `ledger` is in flight (each one has renamed its file or removed its
 * temp), false when `limitMs` passed first. Close awaits it before the process may exit: an exit during a write
 * leaves its `checkpoint.jsonl.tmp-…` behind.
 */
export async function checkpointWritesSettled(ledger: Pick<Ledger, "path">, limitMs: number): Promise<boolean> {
  const file = checkpointPathFor(ledger.path);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), limitMs);
    timer.unref?.();
  });
  const settled = (async (): Promise<true> => {
    for (let entry = writes.get(file); entry !== undefined; entry = writes.get(file)) {
      const chain = entry.chain;
      await chain;
      if (writes.get(file) === entry && entry.chain === chain) break; // nothing was queued meanwhile
    }
    return true;
  })();
  try {
    return await Promise.race([settled, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Persist `state` as of `position` (the position that accompanied the last folded event, or the
 * one `loadState` returned). Runs in the background: serialization yields to the event loop and
 * the file is replaced atomically. Writes for one ledger are serialized; a write older than one
 * already requested is skipped. Resolves false when skipped (empty ledger or superseded).
 */
export function writeCheckpoint<S>(
  ledger: Pick<Ledger, "path" | "batonSessionId">,
  fold: Pick<StateFold<S>, "version" | "encode" | "encodeNodes">,
  state: S,
  position: LedgerPosition,
): Promise<boolean> {
  const file = checkpointPathFor(ledger.path);
  const eventId = position.eventId;
  if (eventId === undefined || position.byteOffset <= 0) return Promise.resolve(false);
  const entry = writes.get(file) ?? { chain: Promise.resolve(), newestSeq: -1 };
  if (position.seq <= entry.newestSeq) return Promise.resolve(false);
  entry.newestSeq = position.seq;
  const payload = fold.encodeNodes !== undefined ? undefined : fold.encode ? fold.encode(state) : state;
  const result = entry.chain.then(async () => {
    if (entry.newestSeq !== position.seq) return false; // a newer checkpoint was requested meanwhile
    // Only the blocks after those already known are read and hashed.
    const digest = await digestPrefix(ledger.path, position.byteOffset, knownBlocks.get(ledger) ?? []);
    knownBlocks.set(ledger, fullBlocksOf(digest, position.byteOffset));
    const header: CheckpointHeader = {
      format: FORMAT,
      version: fold.version,
      batonSessionId: ledger.batonSessionId,
      seq: position.seq,
      byteOffset: position.byteOffset,
      eventId,
      digest,
    };
    if (fold.encodeNodes !== undefined) return writeIncremental(ledger, fold.encodeNodes, state, file, (entry) => `${JSON.stringify({ ...header, format: FORMAT_NODES, nodes: entry })}\n`);
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
