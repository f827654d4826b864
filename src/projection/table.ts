/**
 * A persistent id-keyed table made of plain JSON data (checkpoint-safe).
 *
 * A single `Record` copied on every update costs O(keys): ~430 µs per update at 10,000 messages. The table
 * is a three-level hash trie instead: 16 × 16 × 16 = 4,096 leaves. A leaf is a flat array `[id, value, id,
 * value, …]` (~n/4096 pairs), not a record: objects keyed by ever-new ids give the engine a new hidden class
 * per key (measured: a first insert cost ~17 µs, and cloning such records dominated the fold), while an
 * array copy is a memcpy. An update copies the root index, two inner nodes (16 pointers each) and one
 * leaf — 48 pointers, where the earlier 64 × 64 trie copied 128 (most of a streamed chunk's fold on a 100k
 * state) — and every untouched value, leaf and node keeps its object identity. Inner nodes are created on
 * first use (`null` before). Inside a draft (`draft.ts`) nodes the draft created are updated in place.
 * Readers go through `tableGet`/`tableValues`, never the buckets directly.
 */
import { appended, editable, fresh } from "./draft.ts";

export const TABLE_FANOUT = 16;
/** Leaves in a full table: the number of buckets ids are spread over. */
export const TABLE_BUCKETS = TABLE_FANOUT * TABLE_FANOUT * TABLE_FANOUT;
const MASK = TABLE_FANOUT - 1;

/** `[id, value, id, value, …]` */
type Leaf<T> = readonly (string | T)[];
type Inner<T> = readonly Leaf<T>[];
type Outer<T> = readonly (Inner<T> | null)[];

export interface Table<T> {
  readonly size: number;
  readonly buckets: readonly (Outer<T> | null)[];
}

const EMPTY_LEAF: Leaf<never> = [];

export function emptyTable<T>(): Table<T> {
  return { size: 0, buckets: new Array<Outer<T> | null>(TABLE_FANOUT).fill(null) };
}

/** FNV-1a over the id; the low 12 bits pick the leaf. */
export function hashId(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function leafOf<T>(table: Table<T>, hash: number): Leaf<T> {
  const outer = table.buckets[hash & MASK];
  if (outer === null || outer === undefined) return EMPTY_LEAF;
  const inner = outer[(hash >>> 4) & MASK];
  if (inner === null || inner === undefined) return EMPTY_LEAF;
  return inner[(hash >>> 8) & MASK] ?? EMPTY_LEAF;
}

/** Index of `id` in `leaf` (even), or -1. */
function find<T>(leaf: Leaf<T>, id: string): number {
  for (let i = 0; i < leaf.length; i += 2) if (leaf[i] === id) return i;
  return -1;
}

function withLeaf<T>(table: Table<T>, hash: number, leaf: Leaf<T>, size: number): Table<T> {
  const a = hash & MASK;
  const b = (hash >>> 4) & MASK;
  const c = (hash >>> 8) & MASK;
  const outerNow = table.buckets[a];
  const outer = (outerNow === null || outerNow === undefined ? fresh(new Array<Inner<T> | null>(TABLE_FANOUT).fill(null)) : editable(outerNow)) as (Inner<T> | null)[];
  const innerNow = outer[b];
  const inner = (innerNow === null || innerNow === undefined ? fresh(new Array<Leaf<T>>(TABLE_FANOUT).fill(EMPTY_LEAF)) : editable(innerNow)) as Leaf<T>[];
  inner[c] = leaf;
  outer[b] = inner;
  const next = editable(table) as { size: number; buckets: (Outer<T> | null)[] };
  if (next !== table) next.buckets = fresh(table.buckets.slice());
  next.buckets[a] = outer;
  next.size = size;
  return next;
}

export function tableGet<T>(table: Table<T>, id: string): T | undefined {
  const leaf = leafOf(table, hashId(id));
  const at = find(leaf, id);
  return at === -1 ? undefined : (leaf[at + 1] as T);
}

export function tableHas<T>(table: Table<T>, id: string): boolean {
  return find(leafOf(table, hashId(id)), id) !== -1;
}

/** Returns the same table when `value` is already stored under `id` (identity). */
export function tableSet<T>(table: Table<T>, id: string, value: T): Table<T> {
  const hash = hashId(id);
  const leaf = leafOf(table, hash);
  const at = find(leaf, id);
  if (at !== -1 && leaf[at + 1] === value) return table;
  if (at === -1) return withLeaf(table, hash, appended<string | T>(leaf, id, value), table.size + 1);
  const next = editable(leaf) as (string | T)[];
  next[at + 1] = value;
  return withLeaf(table, hash, next, table.size);
}

export function tableDelete<T>(table: Table<T>, id: string): Table<T> {
  const hash = hashId(id);
  const leaf = leafOf(table, hash);
  const at = find(leaf, id);
  if (at === -1) return table;
  const next = editable(leaf) as (string | T)[];
  next.splice(at, 2);
  return withLeaf(table, hash, next, table.size - 1);
}

function forEachEntry<T>(table: Table<T>, visit: (id: string, value: T) => void): void {
  for (const outer of table.buckets) {
    if (outer === null) continue;
    for (const inner of outer) {
      if (inner === null) continue;
      for (const leaf of inner) {
        for (let i = 0; i < leaf.length; i += 2) visit(leaf[i] as string, leaf[i + 1] as T);
      }
    }
  }
}

/** All values, in hash order (not insertion order: use the timeline or a seq field for order). */
export function tableValues<T>(table: Table<T>): T[] {
  const out: T[] = [];
  forEachEntry(table, (_id, value) => out.push(value));
  return out;
}

/** A flat record with ids sorted, for golden files, debugging and export. */
export function tableToRecord<T>(table: Table<T>): Record<string, T> {
  const entries: [string, T][] = [];
  forEachEntry(table, (id, value) => entries.push([id, value]));
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Record<string, T> = {};
  for (const [id, value] of entries) out[id] = value;
  return out;
}
