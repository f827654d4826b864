/**
 * The node file of an incremental checkpoint (`checkpoint-<gen>.nodes` beside the ledger): records
 * appended once, each `JSON\n`, named by a token `{"$":[offset,length]}`. The head (`checkpoint.jsonl`)
 * names the file, the length it covers and the digest of that prefix; bytes past that length (a write
 * cut short by a crash, or by a full disk) are never referenced and are cut off before the next append.
 *
 * A writer remembers which state nodes it wrote or read (by object identity: the projection is
 * persistent) so the next checkpoint writes only new nodes. What `put` stages becomes known only when
 * `commit` says the head naming it is on disk; a failed write drops it and cuts the file back.
 */
import fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { checkDiskWrite } from "./disk-faults.ts";
import { closeQuietly, FILE_MODE, unlinkQuietly } from "./files.ts";
import { digestPrefix, fullBlocksOf, type PrefixDigest } from "./ledger-digest.ts";

export const NODES_PATTERN = /^checkpoint-[0-9a-f]{12}\.nodes$/;

export function newNodesName(): string {
  return `checkpoint-${randomBytes(6).toString("hex")}.nodes`;
}

interface Token {
  readonly $: readonly [number, number];
}

export class CheckpointNodes {
  readonly file: string;
  /** Bytes covered by the head on disk (what reads may reference). */
  #length: number;
  #fd: number | undefined;
  #known = new WeakMap<object, string>();
  #staged = new Map<object, string>();
  #parts: string[] = [];
  #stagedBytes = 0;
  #knownBlocks: readonly string[] = [];
  /** Created by this process and not yet named by a head: removed again when its first write fails. */
  #fresh: boolean;

  constructor(
    readonly dir: string,
    readonly name: string,
    length: number,
    fresh: boolean,
  ) {
    this.file = path.join(dir, name);
    this.#length = length;
    this.#fresh = fresh;
  }

  get length(): number {
    return this.#length;
  }

  private fd(): number {
    this.#fd ??= fs.openSync(this.file, fs.constants.O_RDWR | fs.constants.O_CREAT, FILE_MODE);
    return this.#fd;
  }

  tokenOf(node: object): string | undefined {
    return this.#known.get(node) ?? this.#staged.get(node);
  }

  put(node: object, json: string): string {
    const bytes = Buffer.byteLength(json) + 1;
    const token = `{"$":[${this.#length + this.#stagedBytes},${bytes}]}`;
    this.#parts.push(json, "\n");
    this.#stagedBytes += bytes;
    this.#staged.set(node, token);
    return token;
  }

  isToken(value: unknown): boolean {
    return typeof value === "object" && value !== null && !Array.isArray(value) && Array.isArray((value as Partial<Token>).$);
  }

  tokenText(token: unknown): string {
    const [offset, length] = (token as Token).$;
    return `{"$":[${offset},${length}]}`;
  }

  read(token: unknown): unknown {
    const [offset, length] = (token as Token).$;
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || length < 2 || offset + length > this.#length) {
      throw new Error(`${this.file}: a checkpoint node at ${offset}+${length} is outside the ${this.#length} bytes the checkpoint covers`);
    }
    const buffer = Buffer.allocUnsafe(length);
    const got = fs.readSync(this.fd(), buffer, 0, length, offset);
    if (got !== length || buffer[length - 1] !== 0x0a) throw new Error(`${this.file}: the checkpoint node at ${offset} is cut short`);
    return JSON.parse(buffer.toString("utf8", 0, length - 1));
  }

  remember(node: object, token: unknown): void {
    this.#known.set(node, this.tokenText(token));
  }

  /** Appends what was staged (cutting off unreferenced bytes first), syncs it, and returns the new length's digest. */
  async flush(): Promise<{ readonly length: number; readonly digest: PrefixDigest }> {
    const end = this.#length + this.#stagedBytes;
    this.fd();
    try {
      const handle = await fs.promises.open(this.file, "r+");
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

  /** The head naming `length` bytes is on disk: what was staged is known from now on. */
  commit(length: number, digest: PrefixDigest): void {
    for (const [node, token] of this.#staged) this.#known.set(node, token);
    this.#staged.clear();
    this.#parts = [];
    this.#stagedBytes = 0;
    this.#length = length;
    this.#knownBlocks = fullBlocksOf(digest, length);
    this.#fresh = false;
  }

  /** A write failed: forget what was staged and cut the file back to what the head on disk covers. */
  abandon(): void {
    this.#staged.clear();
    this.#parts = [];
    this.#stagedBytes = 0;
    if (this.#fresh) {
      this.close();
      unlinkQuietly(this.file);
      return;
    }
    try {
      if (this.#fd !== undefined) fs.ftruncateSync(this.#fd, this.#length);
    } catch {
      // the bytes past the head's length are never referenced
    }
  }

  /** Digests of the full blocks known to match (from the head it was opened with, once checked). */
  knowBlocks(blocks: readonly string[]): void {
    this.#knownBlocks = blocks;
  }

  close(): void {
    if (this.#fd !== undefined) closeQuietly(this.#fd);
    this.#fd = undefined;
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
