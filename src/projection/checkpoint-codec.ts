/**
 * The projection as an incremental checkpoint (#18): a small head plus nodes written once.
 *
 * The head is the state with its tables and paged lists replaced by their roots; below a root, every
 * inner node, leaf, full page, tail chunk and large value is a separate record in the checkpoint's node
 * file, named by a token `{"$":[offset,length,live]}` (`live`: the bytes of that record and of every
 * record below it, so the writer knows how much of its file is still referenced). The projection is
 * persistent, so a node that already has a token — written by an earlier checkpoint of this process, or
 * read from the one the session opened with — is written as its token without being visited: a turn end
 * writes the nodes the turn changed (its messages and tool calls, the paths to them, its turn summary,
 * the timeline's tail) and the head, O(turn), not the whole state.
 *
 * Decoding makes each token a `Stub` (`lazy.ts`) that reads its record on first use, so an open reads
 * the head and the tail of the ledger, not the history: old turns load when something looks at them.
 * (A list's tail — at most 255 items — is read at open.) Small nodes (< `SPILL_CHARS` of JSON) stay
 * inline in their parent. A value that is an object with a `$` key is always stored as a record, so an
 * inline value is never mistaken for a token.
 *
 * A stub of another node file (the writer compacts into a new one) is copied without being kept in
 * memory: its record is read, re-encoded, and the stub moves to its new place once that file is named
 * by a head on disk (`NodeStore.adopt`).
 *
 * The encoder is a generator that yields between slices of new JSON, so the first checkpoint of a long
 * session (everything is new) does not hold the event loop.
 */
import { Stub, type StubDecode, type StubSource } from "./lazy.ts";
import type { ProjectionState } from "./state.ts";
import { readTableIndex, type Table } from "./table.ts";

export interface NodeStore extends StubSource {
  /** The token (JSON text) under which `node` — a node, or a stub copied here — is stored already, if it is. */
  tokenOf(node: object): string | undefined;
  /** Stores a record whose children occupy `below` bytes; returns its token and, unless null, remembers `node` under it. */
  put(node: object | null, json: string, below: number): string;
  /** `stub` (of another source) was copied here under `token`: it moves here once a head names this store. */
  adopt(stub: Stub, token: string): void;
  tokenText(token: unknown): string;
  /** Bytes a token's record and the records below it occupy. */
  liveOf(token: string): number;
}

export interface EncodedState {
  readonly head: string;
  /** Bytes of the node file the head references (records shared by two parents count twice). */
  readonly live: number;
}

export const SPILL_CHARS = 256;
const YIELD_CHARS = 256 * 1024;
/**
 * A slice also ends after this long (#18): a record's JSON.stringify flattens its streamed text (ropes of thousands of
 * chunks), so 256 KiB of fresh JSON took 5–15 ms on two cores — a stall for whatever the UI does meanwhile.
 */
const SLICE_MS = 2;

interface Part {
  readonly json: string;
  readonly live: number;
}

/** A token's shape: `{"$":[offset, length, live]}`. */
export function isToken(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Array.isArray((value as { $?: unknown }).$);
}

function isTableShape(value: unknown): value is { size: number; buckets: readonly unknown[]; recentId: string | null; recent: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "buckets" in value && "size" in value;
}

function isListShape(value: unknown): value is { length: number; pages: readonly unknown[]; tail: readonly unknown[] } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "pages" in value && "tail" in value && "length" in value;
}

type Encode = (value: never) => Generator<void, Part>;

/** Encodes `state` into `store`: the head's JSON text and the node bytes it references. Yields between slices of new JSON (by size and by time). */
export function* encodeState(state: ProjectionState, store: NodeStore): Generator<void, EncodedState> {
  let fresh = 0;
  let sliceStart = performance.now();
  const tokenPart = (token: string): Part => ({ json: token, live: store.liveOf(token) });

  function* record(node: object | null, value: unknown, encode: Encode, force: boolean): Generator<void, Part> {
    const part = yield* encode(value as never);
    if (!force && part.json.length < SPILL_CHARS) return part; // inline: its children's bytes count in the parent's
    fresh += part.json.length;
    if (fresh >= YIELD_CHARS || performance.now() - sliceStart >= SLICE_MS) {
      fresh = 0;
      yield;
      sliceStart = performance.now();
    }
    return tokenPart(store.put(node, part.json, part.live));
  }

  /** A node position: a stub of this store is its token; a stored node its token; else encoded (and spilled if large). */
  function* node(value: unknown, encode: Encode, force = false): Generator<void, Part> {
    let target = value;
    if (target instanceof Stub) {
      if (target.source === store) return tokenPart(store.tokenText(target.token));
      const copied = store.tokenOf(target);
      if (copied !== undefined) return tokenPart(copied);
      if (!target.loaded) {
        // Another file's record (a compaction): copied without being kept in memory, always as a record.
        const part = yield* record(null, target.readDetached(), encode, true);
        if (!target.detached) store.adopt(target, part.json);
        return part;
      }
      target = target.get();
    }
    if (typeof target !== "object" || target === null) return { json: JSON.stringify(target), live: 0 };
    const known = store.tokenOf(target);
    if (known !== undefined) return tokenPart(known);
    return yield* record(target, target, encode, force);
  }

  function* opaque(value: unknown): Generator<void, Part> {
    return { json: JSON.stringify(value), live: 0 };
  }
  function* leafValue(value: unknown): Generator<void, Part> {
    const plain = value instanceof Stub ? undefined : value;
    const force = typeof plain === "object" && plain !== null && !Array.isArray(plain) && Object.hasOwn(plain, "$");
    return yield* node(value, opaque, force);
  }
  function* leaf(entries: readonly unknown[]): Generator<void, Part> {
    const parts: string[] = [];
    let live = 0;
    for (let i = 0; i < entries.length; i += 2) {
      const value = yield* leafValue(entries[i + 1]);
      parts.push(JSON.stringify(entries[i]), value.json);
      live += value.live;
    }
    return { json: `[${parts.join(",")}]`, live };
  }
  function* children(items: readonly unknown[], encode: Encode): Generator<void, Part> {
    const parts: string[] = [];
    let live = 0;
    for (const item of items) {
      const part = item === null ? { json: "null", live: 0 } : yield* node(item, encode);
      parts.push(part.json);
      live += part.live;
    }
    return { json: `[${parts.join(",")}]`, live };
  }
  function* inner(leaves: readonly unknown[]): Generator<void, Part> {
    return yield* children(leaves, leaf as Encode);
  }
  function* outer(inners: readonly unknown[]): Generator<void, Part> {
    return yield* children(inners, inner as Encode);
  }

  const fields: string[] = [];
  let live = 0;
  for (const [key, value] of Object.entries(state)) {
    let json: string;
    if (isTableShape(value)) {
      const buckets = yield* children(value.buckets, outer as Encode);
      // The entry written last sits at the root (`table.ts`): a record of its own (read at open) or inline.
      const recent = yield* leafValue(value.recent ?? null);
      json = `{"size":${value.size},"buckets":${buckets.json},"recentId":${JSON.stringify(value.recentId ?? null)},"recent":${recent.json}}`;
      live += buckets.live + recent.live;
    } else if (isListShape(value)) {
      const pages = yield* children(value.pages, opaque as Encode);
      const tail = yield* children(value.tail, opaque as Encode);
      json = `{"length":${value.length},"pages":${pages.json},"tail":${tail.json}}`;
      live += pages.live + tail.live;
    } else {
      json = JSON.stringify(value);
    }
    fields.push(`${JSON.stringify(key)}:${json}`);
  }
  return { head: `{${fields.join(",")}}`, live };
}

function at<T>(value: unknown, decode: StubDecode<T>, source: StubSource, detached: boolean): T | Stub<T> {
  return isToken(value) ? new Stub<T>(source, value, decode, detached) : decode(value, source, detached);
}

const decodeValue: StubDecode<unknown> = (json) => json;
const decodeLeaf: StubDecode<unknown[]> = (json, source, detached) => {
  const entries = json as unknown[];
  const out: unknown[] = [];
  for (let i = 0; i < entries.length; i += 2) out.push(entries[i], at(entries[i + 1], decodeValue, source, detached));
  return out;
};
const decodeInner: StubDecode<unknown[]> = (json, source, detached) => (json as unknown[]).map((entries) => at(entries, decodeLeaf, source, detached));
const decodeOuter: StubDecode<unknown[]> = (json, source, detached) =>
  (json as unknown[]).map((entry) => (entry === null ? null : at(entry, decodeInner, source, detached)));

/** The state a head stands for, with stubs where it holds tokens (a list's tail chunks are read now). */
export function decodeState(head: unknown, store: NodeStore): ProjectionState {
  const chunk = (value: unknown): unknown => {
    if (!isToken(value)) return value;
    const items = store.read(value);
    store.remember(items as object, value);
    return items;
  };
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(head as Record<string, unknown>)) {
    if (isTableShape(field)) {
      out[key] = { size: field.size, buckets: field.buckets.map((entry) => (entry === null ? null : at(entry, decodeOuter, store, false))), recentId: field.recentId, recent: chunk(field.recent) };
    }
    else if (isListShape(field)) out[key] = { length: field.length, pages: field.pages.map((entry) => at(entry, decodeValue, store, false)), tail: field.tail.map(chunk) };
    else out[key] = field;
  }
  return out as unknown as ProjectionState;
}

/**
 * Reads ahead what the next writes of a state decoded here will walk: every table's index (`readTableIndex`), one
 * record per step; values, pages and anything else stay on disk until read.
 */
export function* readIndexes(state: ProjectionState): Generator<void> {
  for (const value of Object.values(state)) if (isTableShape(value)) yield* readTableIndex(value as Table<unknown>);
}
