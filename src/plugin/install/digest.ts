/**
 * The sha512 tree digest of an installed package: every file's relative path, executable bit and content
 * hash, every symlink's target, in sorted order, hashed once more. The receipt (`install.json`) is outside
 * the digest. Re-checked before every activation; a result is reused while no file's size or mtime moved.
 */
import fs from "node:fs";
import path from "node:path";

export const RECEIPT_FILE = "install.json";

interface Entry {
  readonly rel: string;
  readonly kind: "file" | "link";
  readonly stat: fs.Stats;
  readonly full: string;
}

async function walk(root: string, rel = "", out: Entry[] = []): Promise<Entry[]> {
  const dir = path.join(root, rel);
  const names = (await fs.promises.readdir(dir)).sort();
  for (const name of names) {
    const childRel = rel === "" ? name : `${rel}/${name}`;
    if (childRel === RECEIPT_FILE) continue;
    const full = path.join(root, childRel);
    const stat = await fs.promises.lstat(full);
    if (stat.isSymbolicLink()) out.push({ rel: childRel, kind: "link", stat, full });
    else if (stat.isDirectory()) await walk(root, childRel, out);
    else if (stat.isFile()) out.push({ rel: childRel, kind: "file", stat, full });
  }
  return out;
}

async function fileHash(file: string): Promise<string> {
  const hash = new Bun.CryptoHasher("sha512");
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Uint8Array);
  return hash.digest("hex");
}

/** `sha512-<base64>` over the tree rooted at `root`. */
export async function treeDigest(root: string): Promise<string> {
  const entries = await walk(root);
  const hash = new Bun.CryptoHasher("sha512");
  for (const entry of entries) {
    if (entry.kind === "link") hash.update(`l ${entry.rel} ${await fs.promises.readlink(entry.full)}\n`);
    else hash.update(`f ${entry.rel} ${(entry.stat.mode & 0o111) !== 0 ? "x" : "-"} ${await fileHash(entry.full)}\n`);
  }
  return `sha512-${hash.digest("base64")}`;
}

const cache = new Map<string, { readonly fingerprint: string; readonly digest: string }>();

async function fingerprint(root: string): Promise<string> {
  const entries = await walk(root);
  return entries.map((e) => `${e.rel}\u0000${e.stat.size}\u0000${e.stat.mtimeMs}\u0000${e.stat.mode}`).join("\n");
}

/** The tree's digest, reused from the last computation while sizes, mtimes and modes are unchanged. */
export async function cachedTreeDigest(root: string): Promise<string> {
  const print = await fingerprint(root);
  const hit = cache.get(root);
  if (hit !== undefined && hit.fingerprint === print) return hit.digest;
  const digest = await treeDigest(root);
  cache.set(root, { fingerprint: print, digest });
  return digest;
}
