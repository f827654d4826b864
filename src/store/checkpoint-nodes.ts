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
 *
 * Memory: the records a state reads stay in memory only up to `NODE_CACHE.maxBytes` (bytes of record JSON,
 * process-wide, every node file together); past that the least recently used loaded stubs let go of their
 * values (CLOCK: a stub read again since it was last passed over gets a second chance) and read their
 * records again when next used — the bytes at a record's offset never change, so a reread is the same
 * content, and the same object while anybody still holds it (`lazy.ts`). Only stubs are evicted: a node a
 * writer changed is a copy in the live state, never a stub, and a stub's value is never changed in place
 * (writers copy before changing), so nothing a state holds that the file lacks can be dropped.
 */
import fs from "node:fs";
import * as path from "node:path";
import { randomHex } from "../shared/digest.ts";
import { checkDiskWrite } from "./disk-faults.ts";
import { closeQuietly, FILE_MODE, unlinkQuietly } from "./files.ts";
import { digestPrefix, fullBlocksOf, type PrefixDigest } from "./ledger-digest.ts";

export const NODES_PATTERN = /^checkpoint-[0-9a-f]{12}\.nodes$/;

/** When a node file is rewritten with its live records only (tests may lower `minBytes`). */
export const COMPACTION = { minBytes: 4 * 1024 * 1024, liveRatio: 0.5 };

/**
 * How many bytes of loaded records (their JSON on disk) stay in memory, process-wide (tests and benches may
 * change it; a lower limit applies at the next load). 32 MiB of records is about 80–100 MB of heap, a
 * 100k-event session's whole node file (≈ 25 MB) fits.
 */
export const NODE_CACHE = { maxBytes: 32 * 1024 * 1024 };
/**
 * Staged records are encoded and written in batches of about this many characters, each its own task (#18): a 1 MiB
 * batch's `Buffer.from` held the event loop 2–10 ms on two cores, a 256 KiB one ≈ 1 ms.
 */
const FLUSH_BATCH_CHARS = 256 * 1024;

/** A loaded stub as the cache sees it (`lazy.ts`'s `Stub`, structurally). */
interface LoadedStub {
  evict(): void;
  takeUse(): boolean;
}

/**
 * The loaded stubs, oldest first, in a ring (CLOCK): while the bytes are over the limit, the oldest is evicted
 * unless it was read since it was last passed over, in which case it goes to the back once.
 */
class LoadedNodes {
  #stubs: (LoadedStub | undefined)[] = new Array<LoadedStub | undefined>(1024);
  #sizes = new Float64Array(1024);
  #head = 0;
  #count = 0;
  #bytes = 0;
  #evictions = 0;

  get bytes(): number {
    return this.#bytes;
  }

  get count(): number {
    return this.#count;
  }

  get evictions(): number {
    return this.#evictions;
  }

  add(stub: LoadedStub, bytes: number): void {
    this.push(stub, bytes);
    this.#bytes += bytes;
    this.trim(NODE_CACHE.maxBytes);
  }

  /** Evicts until at most `maxBytes` are held. */
  trim(maxBytes: number): void {
    let passes = 0;
    while (this.#bytes > maxBytes && this.#count > 0) {
      const at = this.#head;
      const stub = this.#stubs[at] as LoadedStub;
      const bytes = this.#sizes[at] as number;
      this.#stubs[at] = undefined;
      this.#head = (at + 1) % this.#stubs.length;
      this.#count--;
      // Second chance, bounded: after one pass over everything each bit is clear.
      if (stub.takeUse() && passes++ < this.#count + 1) {
        this.push(stub, bytes);
        continue;
      }
      stub.evict();
      this.#bytes -= bytes;
      this.#evictions++;
    }
  }

  private push(stub: LoadedStub, bytes: number): void {
    if (this.#count === this.#stubs.length) this.grow();
    const at = (this.#head + this.#count) % this.#stubs.length;
    this.#stubs[at] = stub;
    this.#sizes[at] = bytes;
    this.#count++;
  }

  private grow(): void {
    const size = this.#stubs.length;
    const stubs = new Array<LoadedStub | undefined>(size * 2);
    const sizes = new Float64Array(size * 2);
    for (let i = 0; i < this.#count; i++) {
      const from = (this.#head + i) % size;
      stubs[i] = this.#stubs[from];
      sizes[i] = this.#sizes[from] as number;
    }
    this.#stubs = stubs;
    this.#sizes = sizes;
    this.#head = 0;
  }
}

const loadedNodes = new LoadedNodes();

/** What the loaded-node cache holds now (record bytes and stubs) and how many stubs it evicted so far. */
export function loadedNodeStats(): { readonly bytes: number; readonly count: number; readonly evictions: number } {
  return { bytes: loadedNodes.bytes, count: loadedNodes.count, evictions: loadedNodes.evictions };
}

/** Evicts loaded stubs until at most `maxBytes` of records are held (0: all of them). */
export function trimLoadedNodes(maxBytes = NODE_CACHE.maxBytes): void {
  loadedNodes.trim(maxBytes);
}

export function newNodesName(): string {
  return `checkpoint-${randomHex(6)}.nodes`;
}

interface Token {
  readonly $: readonly number[];
}

/** A stub of another node file copied into this one (`lazy.ts`'s `Stub`, structurally). */
interface MovableStub {
  moveTo(source: CheckpointNodes, token: unknown): void;
}

const readDescriptors = new FinalizationRegistry<number>((fd) => closeQuietly(fd));

interface KeptValue {
  readonly kept: Map<number, WeakRef<object>>;
  readonly offset: number;
  readonly ref: WeakRef<object>;
}

/** An evicted value was collected: its entry goes (unless a newer one took its place). */
const keptValues = new FinalizationRegistry<KeptValue>(({ kept, offset, ref }) => {
  if (kept.get(offset) === ref) kept.delete(offset);
});

export class CheckpointNodes {
  readonly file: string;
  /** Bytes covered by the head on disk (what reads may reference). */
  #length: number;
  /** Bytes of the file the head on disk references. */
  #live: number;
  #readFd: number | undefined;
  #known = new WeakMap<object, string>();
  /** Values of evicted stubs by record offset, held weakly: a reread while one is alive returns it. */
  #kept = new Map<number, WeakRef<object>>();
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

  /** A stub of this file read its record: held in the process's bounded cache of loaded nodes. */
  loaded(stub: LoadedStub, token: unknown): void {
    loadedNodes.add(stub, (token as Token).$[1] as number);
  }

  keep(token: unknown, value: object): void {
    const offset = (token as Token).$[0] as number;
    const ref = new WeakRef(value);
    this.#kept.set(offset, ref);
    keptValues.register(value, { kept: this.#kept, offset, ref });
  }

  recall(token: unknown): object | undefined {
    const offset = (token as Token).$[0] as number;
    const ref = this.#kept.get(offset);
    if (ref === undefined) return undefined;
    const value = ref.deref();
    if (value === undefined) this.#kept.delete(offset);
    return value;
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
          while (i < this.#parts.length && batch.length < FLUSH_BATCH_CHARS) batch += this.#parts[i++];
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
