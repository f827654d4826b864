/**
 * Digests of a ledger prefix, so a checkpoint can prove that the bytes it folded are still the bytes
 * on disk (a same-length edit before its offset changes no seq or eventId the header checks).
 *
 * The prefix [0, byteOffset) is cut into fixed 1 MiB blocks, each hashed on its own (xxh3-64; the
 * threat is an edited or restored file, not an adversary). A later checkpoint reuses the digests of
 * the full blocks it already knows and hashes only the blocks after them, so recording a digest costs
 * O(new bytes), and a verifier can stop at the first block that differs. Verification reads the whole
 * prefix, so it runs synchronously only where a command reads everything anyway; the interactive open
 * verifies asynchronously after its first frame (see `loadState`'s `verify` option).
 */
import fs from "node:fs";

export const DIGEST_ALGORITHM = "xxh3-64";
export const DIGEST_BLOCK_BYTES = 1024 * 1024;

export interface PrefixDigest {
  readonly algorithm: string;
  readonly blockBytes: number;
  /** One hex digest per block of [0, byteOffset); the last block may be partial. */
  readonly blocks: readonly string[];
}

export type DigestCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export function digestBlock(bytes: Uint8Array): string {
  return Bun.hash.xxHash3(bytes).toString(16).padStart(16, "0");
}

function blockCount(byteOffset: number, blockBytes: number): number {
  return Math.ceil(byteOffset / blockBytes);
}

/** Is this a digest this Baton can check for a prefix of `byteOffset` bytes? */
export function digestShapeProblem(digest: unknown, byteOffset: number): string | undefined {
  if (typeof digest !== "object" || digest === null) return "no ledger digest";
  const { algorithm, blockBytes, blocks } = digest as Partial<PrefixDigest>;
  if (algorithm !== DIGEST_ALGORITHM || blockBytes !== DIGEST_BLOCK_BYTES) return `digest ${String(algorithm)}/${String(blockBytes)} is not ${DIGEST_ALGORITHM}/${DIGEST_BLOCK_BYTES}`;
  if (!Array.isArray(blocks) || blocks.length !== blockCount(byteOffset, DIGEST_BLOCK_BYTES) || !blocks.every((b) => typeof b === "string")) {
    return `digest has ${Array.isArray(blocks) ? blocks.length : "no"} blocks for ${byteOffset} bytes`;
  }
  return undefined;
}

function mismatch(index: number, byteOffset: number): DigestCheck {
  const start = index * DIGEST_BLOCK_BYTES;
  const end = Math.min(start + DIGEST_BLOCK_BYTES, byteOffset);
  return { ok: false, reason: `the ledger's bytes ${start}–${end} changed since the checkpoint was written` };
}

/** Check every block synchronously (commands that read the whole ledger anyway). */
export function verifyPrefixSync(fd: number, byteOffset: number, digest: PrefixDigest): DigestCheck {
  const buffer = Buffer.allocUnsafe(Math.min(DIGEST_BLOCK_BYTES, byteOffset)); // one buffer for every block
  for (let index = 0; index < digest.blocks.length; index++) {
    const start = index * DIGEST_BLOCK_BYTES;
    const length = Math.min(DIGEST_BLOCK_BYTES, byteOffset - start);
    let filled = 0;
    while (filled < length) {
      const n = fs.readSync(fd, buffer, filled, length - filled, start + filled);
      if (n === 0) break;
      filled += n;
    }
    if (digestBlock(buffer.subarray(0, filled)) !== digest.blocks[index]) return mismatch(index, byteOffset);
  }
  return { ok: true };
}

/** Check every block with asynchronous reads (one block per read; the event loop stays free). */
export async function verifyPrefix(file: string, byteOffset: number, digest: PrefixDigest): Promise<DigestCheck> {
  const handle = await fs.promises.open(file, "r");
  try {
    const buffer = Buffer.allocUnsafe(DIGEST_BLOCK_BYTES);
    for (let index = 0; index < digest.blocks.length; index++) {
      const bytes = await readBlock(handle, buffer, index, byteOffset);
      if (digestBlock(bytes) !== digest.blocks[index]) return mismatch(index, byteOffset);
    }
    return { ok: true };
  } finally {
    await handle.close();
  }
}

/**
 * Digest of [0, byteOffset), reusing `knownFull` (digests of full blocks already known to match the
 * file) and hashing only the blocks after them, asynchronously.
 */
export async function digestPrefix(file: string, byteOffset: number, knownFull: readonly string[]): Promise<PrefixDigest> {
  const count = blockCount(byteOffset, DIGEST_BLOCK_BYTES);
  const fullBlocks = Math.floor(byteOffset / DIGEST_BLOCK_BYTES);
  const blocks = knownFull.slice(0, Math.min(knownFull.length, fullBlocks));
  if (blocks.length < count) {
    const handle = await fs.promises.open(file, "r");
    try {
      const buffer = Buffer.allocUnsafe(DIGEST_BLOCK_BYTES);
      for (let index = blocks.length; index < count; index++) blocks.push(digestBlock(await readBlock(handle, buffer, index, byteOffset)));
    } finally {
      await handle.close();
    }
  }
  return { algorithm: DIGEST_ALGORITHM, blockBytes: DIGEST_BLOCK_BYTES, blocks };
}

/** The digests of the full blocks of a digest covering `byteOffset` bytes (what a later digest may reuse). */
export function fullBlocksOf(digest: PrefixDigest, byteOffset: number): readonly string[] {
  return digest.blocks.slice(0, Math.floor(byteOffset / DIGEST_BLOCK_BYTES));
}

async function readBlock(handle: fs.promises.FileHandle, buffer: Buffer, index: number, byteOffset: number): Promise<Buffer> {
  const start = index * DIGEST_BLOCK_BYTES;
  const length = Math.min(DIGEST_BLOCK_BYTES, byteOffset - start);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
