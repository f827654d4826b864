/**
 * The projection as an incremental checkpoint (#18): a small head plus nodes written once.
 *
 * The head is the state with its tables and paged lists replaced by their roots; below a root, every
 * inner node, leaf, full page and large value is a separate record in the checkpoint's node file, named
 * by a token (`NodeStore`). The projection is persistent, so a node that already has a token — written
 * by an earlier checkpoint of this process, or read from the one the session opened with — is written
 * as its token without being visited: a turn end writes the nodes the turn changed (its messages and
 * tool calls, the paths to them, the timeline's tail) and the head, O(turn), not the whole state.
 *
 * Decoding makes each token a `Stub` (`lazy.ts`) that reads its record on first use, so an open reads
 * the head and the tail of the ledger, not the history: old turns load when something looks at them.
 * Small nodes (< `SPILL_CHARS` of JSON) stay inline in their parent. A token is a JSON object with a
 * `$` key; a value that is such an object itself is always stored as a record, so an inline value is
 * never mistaken for a token.
 *
 * The encoder is a generator that yields between slices of new JSON, so the first checkpoint of a long
 * session (everything is new) does not hold the event loop.
 */
import { Stub } from "./lazy.ts";
import type { ProjectionState } from "./state.ts";

export interface NodeStore {
  /** The token (JSON text) under which `node` is stored already, if it is. */
  tokenOf(node: object): string | undefined;
  /** Stores a node's JSON text; returns its token (JSON text) and remembers `node` under it. */
  put(node: object, json: string): string;
  isToken(value: unknown): boolean;
  /** The JSON text of a parsed token (a stub written back unread). */
  tokenText(token: unknown): string;
  /** The parsed JSON of a token's record (synchronous). */
  read(token: unknown): unknown;
  /** `node` was decoded from `token`: an unchanged node is then written as that token. */
  remember(node: object, token: unknown): void;
}

export const SPILL_CHARS = 256;
const YIELD_CHARS = 256 * 1024;

type Json = string;

function isTableShape(value: unknown): value is { size: number; buckets: readonly unknown[] } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "buckets" in value && "size" in value;
}

function isListShape(value: unknown): value is { length: number; pages: readonly unknown[]; tail: readonly unknown[] } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "pages" in value && "tail" in value && "length" in value;
}

/** Encodes `state` into `store`; returns the head's JSON text. Yields between slices of new JSON. */
export function* encodeState(state: ProjectionState, store: NodeStore): Generator<void, Json> {
  let fresh = 0;
  const spill = (node: object, json: Json, force = false): Json => {
    if (!force && json.length < SPILL_CHARS) return json;
    fresh += json.length;
    return store.put(node, json);
  };
  /** A node position: a stub of this store is its token; a stored node its token; else encoded. */
  function* node(value: unknown, encode: (value: never) => Generator<void, Json>): Generator<void, Json> {
    let node = value;
    if (node instanceof Stub) {
      if (node.source === store) return store.tokenText(node.token);
      node = node.get();
    }
    const known = store.tokenOf(node as object);
    if (known !== undefined) return known;
    const json = yield* encode(node as never);
    if (fresh >= YIELD_CHARS) {
      fresh = 0;
      yield;
    }
    return spill(node as object, json);
  }
  function* leafValue(value: unknown): Generator<void, Json> {
    let item = value;
    if (item instanceof Stub) {
      if (item.source === store) return store.tokenText(item.token);
      item = item.get();
    }
    if (typeof item !== "object" || item === null) return JSON.stringify(item);
    const known = store.tokenOf(item);
    if (known !== undefined) return known;
    const json = JSON.stringify(item);
    return spill(item, json, Object.hasOwn(item, "$"));
  }
  function* leaf(entries: readonly unknown[]): Generator<void, Json> {
    const parts: string[] = [];
    for (let i = 0; i < entries.length; i += 2) parts.push(JSON.stringify(entries[i]), yield* leafValue(entries[i + 1]));
    return `[${parts.join(",")}]`;
  }
  function* inner(leaves: readonly unknown[]): Generator<void, Json> {
    const parts: string[] = [];
    for (const entries of leaves) parts.push(yield* node(entries, leaf));
    return `[${parts.join(",")}]`;
  }
  function* outer(inners: readonly unknown[]): Generator<void, Json> {
    const parts: string[] = [];
    for (const value of inners) parts.push(value === null ? "null" : yield* node(value, inner));
    return `[${parts.join(",")}]`;
  }
  function* page(items: readonly unknown[]): Generator<void, Json> {
    return JSON.stringify(items);
  }
  const fields: string[] = [];
  for (const [key, value] of Object.entries(state)) {
    let json: Json;
    if (isTableShape(value)) {
      const buckets: string[] = [];
      for (const entry of value.buckets) buckets.push(entry === null ? "null" : yield* node(entry, outer));
      json = `{"size":${value.size},"buckets":[${buckets.join(",")}]}`;
    } else if (isListShape(value)) {
      const pages: string[] = [];
      for (const entry of value.pages) pages.push(yield* node(entry, page));
      json = `{"length":${value.length},"pages":[${pages.join(",")}],"tail":${JSON.stringify(value.tail)}}`;
    } else {
      json = JSON.stringify(value);
    }
    fields.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${fields.join(",")}}`;
}

/** The state a head stands for, with stubs where it holds tokens. */
export function decodeState(head: unknown, store: NodeStore): ProjectionState {
  function at<T>(value: unknown, decode: (json: unknown) => T): T | Stub<T> {
    if (!store.isToken(value)) return decode(value);
    return new Stub<T>(store, value, () => {
      const node = decode(store.read(value));
      if (typeof node === "object" && node !== null) store.remember(node, value);
      return node;
    });
  }
  const value = (json: unknown): unknown => json;
  const leaf = (json: unknown): unknown[] => {
    const entries = json as unknown[];
    const out: unknown[] = [];
    for (let i = 0; i < entries.length; i += 2) out.push(entries[i], at(entries[i + 1], value));
    return out;
  };
  const inner = (json: unknown): unknown[] => (json as unknown[]).map((entries) => at(entries, leaf));
  const outer = (json: unknown): unknown[] => (json as unknown[]).map((entry) => (entry === null ? null : at(entry, inner)));
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(head as Record<string, unknown>)) {
    if (isTableShape(field)) out[key] = { size: field.size, buckets: field.buckets.map((entry) => (entry === null ? null : at(entry, outer))) };
    else if (isListShape(field)) out[key] = { length: field.length, pages: field.pages.map((entry) => at(entry, value)), tail: field.tail };
    else out[key] = field;
  }
  return out as unknown as ProjectionState;
}
