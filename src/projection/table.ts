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
 *
 * The entry written last is held at the root (`recentId`/`recent`), not in the buckets: the next write of
 * the same id — the next chunk of the message that is streaming, the next note on the running turn —
 * copies the 4-field root and walks nothing. A write of another new id moves it into its leaf (one path
 * copy, what an insert cost anyway); a write of an id already in the buckets updates it there and leaves
 * the recent entry alone. Iteration visits the recent entry at the end of its leaf, where moving it
 * would put it, so the order is that of a table without it.
 * Readers go through `tableGet`/`tableValues`, never the buckets directly: in a state opened from an
 * incremental checkpoint, inner nodes, leaves and values may be stubs (`lazy.ts`) that these functions
 * resolve as they pass them.
 */
import { appended, editable, fresh } from "./draft.ts";
import { isStored, resolve, Stub } from "./lazy.ts";

export const TABLE_FANOUT = 16;
/** Leaves in a full table: the number of buckets ids are spread over. */
export const TABLE_BUCKETS = TABLE_FANOUT * TABLE_FANOUT * TABLE_FANOUT;
const MASK = TABLE_FANOUT - 1;

/** `[id, value, id, value, …]` */
type Leaf<T> = readonly (string | T)[];
type Inner<T> = readonly Leaf<T>[];
type Outer<T> = readonly (Inner<T> | null)[];

export interface Table<T> {
  /** Entries, the recent one included. */
  readonly size: number;
  readonly buckets: readonly (Outer<T> | null)[];
  /** The id written last, held here and not in the buckets; null when none. */
  readonly recentId: string | null;
  /** Its value (null when `recentId` is). */
  readonly recent: T | null;
}

type MutableTable<T> = { size: number; buckets: (Outer<T> | null)[]; recentId: string | null; recent: T | null };

const EMPTY_LEAF: Leaf<never> = [];

export function emptyTable<T>(): Table<T> {
  return { size: 0, buckets: new Array<Outer<T> | null>(TABLE_FANOUT).fill(null), recentId: null, recent: null };
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

function outerOf<T>(table: Table<T>, a: number): Outer<T> | null {
  const outer = table.buckets[a];
  return outer === null || outer === undefined ? null : resolve(outer);
}

function leafOf<T>(table: Table<T>, hash: number): Leaf<T> {
  const outer = outerOf(table, hash & MASK);
  if (outer === null) return EMPTY_LEAF;
  const inner = outer[(hash >>> 4) & MASK];
  if (inner === null || inner === undefined) return EMPTY_LEAF;
  const leaf = resolve(inner)[(hash >>> 8) & MASK];
  return leaf === undefined ? EMPTY_LEAF : resolve(leaf);
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
  const outerNow = outerOf(table, a);
  const outer = (outerNow === null ? fresh(new Array<Inner<T> | null>(TABLE_FANOUT).fill(null)) : editable(outerNow)) as (Inner<T> | null)[];
  const innerNow = outer[b];
  const inner = (innerNow === null || innerNow === undefined ? fresh(new Array<Leaf<T>>(TABLE_FANOUT).fill(EMPTY_LEAF)) : editable(resolve(innerNow))) as Leaf<T>[];
  inner[c] = leaf;
  outer[b] = inner;
  // The root and its index are owned separately: a root copied for its recent entry shares the index.
  const buckets = editable(table.buckets) as (Outer<T> | null)[];
  buckets[a] = outer;
  const next = editable(table) as MutableTable<T>;
  next.buckets = buckets;
  next.size = size;
  return next;
}

export function tableGet<T>(table: Table<T>, id: string): T | undefined {
  if (table.recentId === id) return table.recent as T;
  const leaf = leafOf(table, hashId(id));
  const at = find(leaf, id);
  return at === -1 ? undefined : resolve(leaf[at + 1] as T);
}

export function tableHas<T>(table: Table<T>, id: string): boolean {
  return table.recentId === id || find(leafOf(table, hashId(id)), id) !== -1;
}

/** `table` with its recent entry moved into its leaf (the caller then replaces or clears the root's). */
function settled<T>(table: Table<T>): Table<T> {
  const id = table.recentId;
  if (id === null) return table;
  const hash = hashId(id);
  return withLeaf(table, hash, appended<string | T>(leafOf(table, hash), id, table.recent as T), table.size);
}

function withRecent<T>(table: Table<T>, id: string | null, value: T | null, size: number): Table<T> {
  const next = editable(table) as MutableTable<T>;
  next.recentId = id;
  next.recent = value;
  next.size = size;
  return next;
}

/** Returns the same table when `value` is already stored under `id` (identity). */
export function tableSet<T>(table: Table<T>, id: string, value: T): Table<T> {
  if (table.recentId === id) return table.recent === value ? table : withRecent(table, id, value, table.size);
  const hash = hashId(id);
  const leaf = leafOf(table, hash);
  const at = find(leaf, id);
  if (at === -1) return withRecent(settled(table), id, value, table.size + 1);
  if (isStored(leaf[at + 1] as T, value)) return table;
  const next = editable(leaf) as (string | T)[];
  next[at + 1] = value;
  return withLeaf(table, hash, next, table.size);
}

export function tableDelete<T>(table: Table<T>, id: string): Table<T> {
  if (table.recentId === id) return withRecent(table, null, null, table.size - 1);
  const hash = hashId(id);
  const leaf = leafOf(table, hash);
  const at = find(leaf, id);
  if (at === -1) return table;
  const next = editable(leaf) as (string | T)[];
  next.splice(at, 2);
  return withLeaf(table, hash, next, table.size - 1);
}

/**
 * Reads the table's index where it is on disk (a state opened from an incremental checkpoint): its inner nodes and
 * leaves, not the values, one record per step. A write of an id the table does not hold — the first chunk of a new
 * message, a new tool call — walks to the id's leaf (to look for it, then to move the recent entry there): in a state
 * just opened that path is unread, and reading it mid-stream cost a streamed event ≈ 30–45 µs (docs/storage.md).
 * An open reads the index ahead in the background (`src/app/read-ahead.ts`), so the stream finds it in memory.
 */
export function* readTableIndex<T>(table: Table<T>): Generator<void> {
  for (const outer of table.buckets) {
    if (outer === null || outer === undefined) continue;
    for (const inner of yield* readNode(outer)) {
      if (inner === null || inner === undefined) continue;
      for (const leaf of yield* readNode(inner)) yield* readNode(leaf);
    }
  }
}

/** `node`, read from its record when it is an unread stub (then a step ends). */
function* readNode<N>(node: N | Stub<N>): Generator<void, N> {
  if (!(node instanceof Stub) || node.peek() !== undefined) return resolve(node);
  const value = node.get();
  yield;
  return value;
}

/** Visits every entry in hash order; `raw`: values as stored (a value may be an unread stub), for a walk over ids. */
function forEachEntry<T>(table: Table<T>, visit: (id: string, value: T) => void, raw = false): void {
  const recentId = table.recentId;
  const hash = recentId === null ? 0 : hashId(recentId);
  // Where the recent entry would be: its bucket (-1 when none), inner node and leaf.
  const ra = recentId === null ? -1 : hash & MASK;
  const rb = (hash >>> 4) & MASK;
  const rc = (hash >>> 8) & MASK;
  const visitRecent = (): void => visit(recentId as string, table.recent as T);
  for (let a = 0; a < table.buckets.length; a++) {
    const stored = table.buckets[a];
    const outer = stored === null || stored === undefined ? stored : resolve(stored);
    if (outer === null || outer === undefined) {
      if (a === ra) visitRecent();
      continue;
    }
    for (let b = 0; b < outer.length; b++) {
      const storedInner = outer[b];
      if (storedInner === null || storedInner === undefined) {
        if (a === ra && b === rb) visitRecent();
        continue;
      }
      const inner = resolve(storedInner);
      for (let c = 0; c < inner.length; c++) {
        const leaf = resolve(inner[c] as Leaf<T>);
        for (let i = 0; i < leaf.length; i += 2) visit(leaf[i] as string, raw ? (leaf[i + 1] as T) : resolve(leaf[i + 1] as T));
        if (a === ra && b === rb && c === rc) visitRecent();
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

/** All ids, in hash order, without reading the values (an export walks ids first, then reads one value at a time). */
export function tableIds<T>(table: Table<T>): string[] {
  const out: string[] = [];
  forEachEntry(table, (id) => out.push(id), true);
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
