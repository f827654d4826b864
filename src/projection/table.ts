/**
 * A persistent id-keyed table made of plain JSON data (checkpoint-safe).
 *
 * A single `Record` copied on every update costs O(keys): ~430 µs per update at 10,000 messages. The table
 * is a two-level hash trie instead: 64 branches × 64 leaves, each leaf a small record. An update copies
 * one branch index (64 pointers), one branch (64 pointers) and one leaf (~n/4096 keys); every untouched
 * value, leaf and branch keeps its object identity. Branches are created on first use (`null` before).
 * Readers go through `tableGet`/`tableValues`, never the buckets directly.
 */

export const TABLE_FANOUT = 64;
/** Leaves in a full table: the number of buckets ids are spread over. */
export const TABLE_BUCKETS = TABLE_FANOUT * TABLE_FANOUT;

type Leaf<T> = Readonly<Record<string, T>>;
type Branch<T> = readonly Leaf<T>[];

export interface Table<T> {
  readonly size: number;
  readonly buckets: readonly (Branch<T> | null)[];
}

const EMPTY_LEAF: Leaf<never> = {};

export function emptyTable<T>(): Table<T> {
  return { size: 0, buckets: new Array<Branch<T> | null>(TABLE_FANOUT).fill(null) };
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
  const branch = table.buckets[hash & (TABLE_FANOUT - 1)];
  return branch?.[(hash >>> 6) & (TABLE_FANOUT - 1)] ?? EMPTY_LEAF;
}

function withLeaf<T>(table: Table<T>, hash: number, leaf: Leaf<T>, size: number): Table<T> {
  const hi = hash & (TABLE_FANOUT - 1);
  const lo = (hash >>> 6) & (TABLE_FANOUT - 1);
  const branch = (table.buckets[hi] ?? new Array<Leaf<T>>(TABLE_FANOUT).fill(EMPTY_LEAF)).slice();
  branch[lo] = leaf;
  const buckets = table.buckets.slice();
  buckets[hi] = branch;
  return { size, buckets };
}

export function tableGet<T>(table: Table<T>, id: string): T | undefined {
  const leaf = leafOf(table, hashId(id));
  return Object.hasOwn(leaf, id) ? leaf[id] : undefined;
}

export function tableHas<T>(table: Table<T>, id: string): boolean {
  return Object.hasOwn(leafOf(table, hashId(id)), id);
}

/** Returns the same table when `value` is already stored under `id` (identity). */
export function tableSet<T>(table: Table<T>, id: string, value: T): Table<T> {
  const hash = hashId(id);
  const leaf = leafOf(table, hash);
  const present = Object.hasOwn(leaf, id);
  if (present && leaf[id] === value) return table;
  return withLeaf(table, hash, { ...leaf, [id]: value }, present ? table.size : table.size + 1);
}

export function tableDelete<T>(table: Table<T>, id: string): Table<T> {
  const hash = hashId(id);
  const leaf = leafOf(table, hash);
  if (!Object.hasOwn(leaf, id)) return table;
  const next: Record<string, T> = { ...leaf };
  delete next[id];
  return withLeaf(table, hash, next, table.size - 1);
}

function forEachEntry<T>(table: Table<T>, visit: (id: string, value: T) => void): void {
  for (const branch of table.buckets) {
    if (branch === null) continue;
    for (const leaf of branch) {
      for (const id in leaf) if (Object.hasOwn(leaf, id)) visit(id, leaf[id] as T);
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
