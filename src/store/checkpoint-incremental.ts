/**
 * Format 3 of `checkpoint.jsonl` (#18): the header names an append-only node file (`checkpoint-nodes.ts`), the
 * length of it the head may reference and the digest of that prefix; the second line is a small head. Each
 * checkpoint appends to the node file what changed since the last one (a turn end: that turn's nodes), syncs
 * it, then replaces the head atomically (temp + rename). The order makes every crash safe: bytes appended but
 * not yet named by a head on disk are never read and are cut off before the next append; a node file no head
 * names (a first write that failed) is removed.
 */
import fs from "node:fs";
import * as path from "node:path";
import { describeError } from "../shared/errors.ts";
import { CheckpointNodes, newNodesName, NODES_PATTERN, removeOtherNodeFiles } from "./checkpoint-nodes.ts";
import { closeQuietly, writeFileAtomic } from "./files.ts";
import { digestShapeProblem, verifyPrefixSync, type PrefixDigest } from "./ledger-digest.ts";

export const FORMAT_NODES = "baton-checkpoint/3";

/** Where an incremental checkpoint keeps its nodes (a fold's view of `CheckpointNodes`; see the projection's codec). */
export interface CheckpointNodeStore {
  tokenOf(node: object): string | undefined;
  put(node: object | null, json: string, below: number): string;
  adopt(stub: { moveTo(source: CheckpointNodes, token: unknown): void }, token: string): void;
  tokenText(token: unknown): string;
  liveOf(token: string): number;
  read(token: unknown): unknown;
  remember(node: object, token: unknown): void;
  /** A stub of this store read its record (the store's bounded cache may evict it later). */
  loaded?(stub: { evict(): void; takeUse(): boolean }, token: unknown): void;
  keep?(token: unknown, value: object): void;
  recall?(token: unknown): object | undefined;
}

/** A state encoded for a checkpoint: the head's JSON text and the node bytes it references. */
export interface EncodedHead {
  readonly head: string;
  readonly live: number;
}

/** What a format-3 header says about its node file. */
export interface NodeFileEntry {
  readonly name: string;
  readonly length: number;
  readonly digest: PrefixDigest;
  /** How many of those bytes the head references (the rest is garbage a compaction drops). */
  readonly live: number;
}

/** The node file an open ledger's incremental checkpoints extend (from its verified checkpoint, or the last one written). */
const nodeFiles = new WeakMap<object, CheckpointNodes>();

/** The checkpoint `ledger` opened with is verified: its later checkpoints extend that node file. */
export function adoptNodeFile(ledger: object, nodes: CheckpointNodes): void {
  nodeFiles.set(ledger, nodes);
}

/** A format-3 header's node file: named as this Baton names them, long enough, and (unless deferred) its digest. */
export function checkNodeFile(dir: string, nodes: NodeFileEntry | undefined, deferDigest: boolean): string | undefined {
  if (nodes === undefined || typeof nodes.name !== "string" || !NODES_PATTERN.test(nodes.name) || !Number.isSafeInteger(nodes.length) || nodes.length < 0 || !Number.isSafeInteger(nodes.live)) {
    return "malformed node file entry";
  }
  const shape = digestShapeProblem(nodes.digest, nodes.length);
  if (shape !== undefined) return `node file: ${shape}`;
  const file = path.join(dir, nodes.name);
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (error) {
    return `cannot read ${file}: ${describeError(error)}`;
  }
  if (size < nodes.length) return `${file} has ${size} bytes, the checkpoint needs ${nodes.length}`;
  if (deferDigest || nodes.length === 0) return undefined;
  const fd = fs.openSync(file, "r");
  try {
    const check = verifyPrefixSync(fd, nodes.length, nodes.digest);
    return check.ok ? undefined : `${file}: ${check.reason.replace("the ledger's", "its")}`;
  } finally {
    closeQuietly(fd);
  }
}

/**
 * Extends the node file with what changed since the last checkpoint, then replaces the small head
 * (`headerLine(entry)` + the head's JSON). When the file is mostly garbage it writes a new generation
 * instead (every live record, copied without keeping unread ones in memory) and removes the old file once
 * the head names the new one. A failure anywhere forgets what was staged and cuts the node file back (or
 * removes a node file no head names yet); the head on disk stays the previous one.
 */
export async function writeIncremental<S>(
  ledger: object,
  encodeNodes: (state: S, nodes: CheckpointNodeStore) => Generator<void, EncodedHead>,
  state: S,
  file: string,
  headerLine: (entry: NodeFileEntry) => string,
): Promise<boolean> {
  const dir = path.dirname(file);
  const current = nodeFiles.get(ledger);
  const nodes = current === undefined || current.wantsCompaction ? new CheckpointNodes(dir, newNodesName(), 0, true) : current;
  let encoded: EncodedHead;
  try {
    const slices = encodeNodes(state, nodes);
    for (let step = slices.next(); ; step = slices.next()) {
      if (step.done === true) {
        encoded = step.value;
        break;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } catch (error) {
    nodes.abandon();
    throw error;
  }
  const flushed = await nodes.flush();
  try {
    await writeFileAtomic(file, [headerLine({ name: nodes.name, length: flushed.length, digest: flushed.digest, live: encoded.live }), encoded.head, "\n"], "checkpoint");
  } catch (error) {
    nodes.abandon();
    throw error;
  }
  nodes.commit(flushed.length, flushed.digest, encoded.live);
  nodeFiles.set(ledger, nodes);
  removeOtherNodeFiles(dir, nodes.name);
  return true;
}
