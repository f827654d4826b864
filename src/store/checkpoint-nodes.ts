/**
 * The node file of an incremental checkpoint (`checkpoint-<gen>.nodes` beside the ledger): records
 * appended once, each `JSON\n`, named by a token `{"$":[offset,length,live]}` (`live`: the bytes of the
 * record and of every record below it). The head (`checkpoint.jsonl`) names the file, the length it
 * covers and the digest of that prefix; bytes past that length (a write cut short by a crash, or by a full
 * disk) are never read and are cut off before the next append.
 *
 * A writer remembers which state nodes it wrote or read (by object identity: the projection is
 * persistent) so the next checkpoint writes only new nodes. What `put` stages becomes known only when
 * `commit` says the head naming it is on disk; a failed write drops it and cuts the file back.
 *
 * Garbage: a node replaced by a newer one stays in the file. The head's `live` bytes say how much of it
 * is still referenced; when that falls under `COMPACTION.liveRatio` of a file of at least
 * `COMPACTION.minBytes`, the next checkpoint writes a new generation with the live records only
 * (`checkpoint-incremental.ts`) and the old file is removed once a head names the new one.
 *
 * The file is opened for reading when the store is created for an existing file, and when a head first
 * names a new one, so a compaction (or another process's) removing it later never strands a stub; the
 * descriptor is closed when the store is closed or collected.
 */
import fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { checkDiskWrite } from "./disk-faults.ts";
import { closeQuietly, FILE_MODE, unlinkQuietly } from "./files.ts";
import { digestPrefix, fullBlocksOf, type PrefixDigest } from "./ledger-digest.ts";

export const NODES_PATTERN = /^checkpoint-[0-9a-f]{12}\.nodes$/;

/** When a node file is rewritten with its live records only (tests may lower `minBytes`). */
export const COMPACTION = { minBytes: 4 * 1024 * 1024, liveRatio: 0.5 };

export function newNodesName(): string {
  return `checkpoint-${randomBytes(6).toString("hex")}.nodes`;
}

interface Token {
  readonly $: readonly number[];
}

/** A stub of another node file copied into this one (`lazy.ts`'s `Stub`, structurally). */
interface MovableStub {
  moveTo(source: CheckpointNodes, token: unknown): void;
}

const readDescriptors = new FinalizationRegistry<number>((fd) => closeQuietly(fd));

export class CheckpointNodes {
  readonly file: string;
  /** Bytes covered by the head on disk (what reads may reference). */
  #length: number;
  /** Bytes of the file the head on disk references. */
  #live: number;
  #readFd: number | undefined;
  #known = new WeakMap<object, string>();
  #staged = new Map<object, string>();
  #adopted: [MovableStub, string][] = [];
  #parts: string[] = [];
  #stagedBytes = 0;
  #knownBlocks: readonly string[] = [];
  /** Created by this process and not yet named by a head: removed again when its first write fails. */
  #fresh: boolean;

  /**
   * @param length the bytes a head names (0 for a new file)
   * @param fresh a new file: created by the first flush
   */
  constructor(
    readonly dir: string,
    readonly name: string,
    length: number,
    fresh: boolean,
    live = length,
  ) {
    this.file = path.join(dir, name);
    this.#length = length;
    this.#live = live;
    this.#fresh = fresh;
    if (!fresh) this.openForReading();
  }

  get length(): number {
    return this.#length;
  }

  get live(): number {
    return this.#live;
  }

  /** Whether the next checkpoint should write a new generation with the live records only. */
  get wantsCompaction(): boolean {
    return this.#length >= COMPACTION.minBytes && this.#live < this.#length * COMPACTION.liveRatio;
  }

  private openForReading(): void {
    if (this.#readFd !== undefined) return;
    this.#readFd = fs.openSync(this.file, "r");
    readDescriptors.register(this, this.#readFd, this);
  }

  tokenOf(node: object): string | undefined {
    return this.#known.get(node) ?? this.#staged.get(node);
  }

  put(node: object | null, json: string, below: number): string {
    const bytes = Buffer.byteLength(json) + 1;
    const token = `{"$":[${this.#length + this.#stagedBytes},${bytes},${bytes + below}]}`;
    this.#parts.push(json, "\n");
    this.#stagedBytes += bytes;
    if (node !== null) this.#staged.set(node, token);
    return token;
  }

  adopt(stub: MovableStub, token: string): void {
    this.#staged.set(stub, token);
    this.#adopted.push([stub, token]);
  }

  tokenText(token: unknown): string {
    const [offset, length, live] = (token as Token).$;
    return `{"$":[${offset},${length},${live}]}`;
  }

  liveOf(token: string): number {
    const end = token.lastIndexOf("]");
    return Number(token.slice(token.lastIndexOf(",", end) + 1, end));
  }

  read(token: unknown): unknown {
    const [offset, length] = (token as Token).$ as [number, number];
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || length < 2 || offset < 0 || offset + length > this.#length) {
      throw new Error(`${this.file}: a checkpoint node at ${offset}+${length} is outside the ${this.#length} bytes the checkpoint covers`);
    }
    this.openForReading();
    const buffer = Buffer.allocUnsafe(length);
    const got = fs.readSync(this.#readFd as number, buffer, 0, length, offset);
    if (got !== length || buffer[length - 1] !== 0x0a) throw new Error(`${this.file}: the checkpoint node at ${offset} is cut short`);
    return JSON.parse(buffer.toString("utf8", 0, length - 1));
  }

  remember(node: object, token: unknown): void {
    this.#known.set(node, this.tokenText(token));
  }

  /** Bytes staged for the next flush. */
  get staged(): number {
    return this.#stagedBytes;
  }

  /** Appends what was staged (cutting off unreferenced bytes first), syncs it, and returns the new length's digest. */
  async flush(): Promise<{ readonly length: number; readonly digest: PrefixDigest }> {
    const end = this.#length + this.#stagedBytes;
    try {
      const handle = await fs.promises.open(this.file, this.#fresh ? "w" : "r+", FILE_MODE);
      try {
        checkDiskWrite("checkpoint", this.file);
        await handle.truncate(this.#length);
        let position = this.#length;
        for (let i = 0; i < this.#parts.length; ) {
          let batch = "";
          while (i < this.#parts.length && batch.length < 1024 * 1024) batch += this.#parts[i++];
          const bytes = Buffer.from(batch);
          let written = 0;
          while (written < bytes.byteLength) {
            const { bytesWritten } = await handle.write(bytes, written, bytes.byteLength - written, position + written);
            if (bytesWritten <= 0) throw Object.assign(new Error("ENOSPC: no space left on device, write (no progress)"), { code: "ENOSPC" });
            written += bytesWritten;
          }
          position += bytes.byteLength;
        }
        await handle.datasync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      this.abandon();
      throw error;
    }
    const digest = await digestPrefix(this.file, end, this.#knownBlocks);
    return { length: end, digest };
  }

  /** The head naming `length` bytes (`live` of them referenced) is on disk: what was staged is known from now on. */
  commit(length: number, digest: PrefixDigest, live: number): void {
    for (const [node, token] of this.#staged) this.#known.set(node, token);
    for (const [stub, token] of this.#adopted) stub.moveTo(this, JSON.parse(token));
    this.#staged.clear();
    this.#adopted = [];
    this.#parts = [];
    this.#stagedBytes = 0;
    this.#length = length;
    this.#live = live;
    this.#knownBlocks = fullBlocksOf(digest, length);
    this.#fresh = false;
    this.openForReading();
  }

  /** A write failed: forget what was staged and cut the file back to what the head on disk covers (remove a new one). */
  abandon(): void {
    this.#staged.clear();
    this.#adopted = [];
    this.#parts = [];
    this.#stagedBytes = 0;
    if (this.#fresh) {
      unlinkQuietly(this.file);
      return;
    }
    try {
      fs.truncateSync(this.file, this.#length);
    } catch {
      // the bytes past the head's length are never referenced, and the next flush cuts them first
    }
  }

  /** Digests of the full blocks known to match (from the head it was opened with, once checked). */
  knowBlocks(blocks: readonly string[]): void {
    this.#knownBlocks = blocks;
  }

  close(): void {
    if (this.#readFd === undefined) return;
    readDescriptors.unregister(this);
    closeQuietly(this.#readFd);
    this.#readFd = undefined;
  }
}

/** Removes node files of other generations (after a head naming `keep` is on disk). */
export function removeOtherNodeFiles(dir: string, keep: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (NODES_PATTERN.test(name) && name !== keep) unlinkQuietly(path.join(dir, name));
}
