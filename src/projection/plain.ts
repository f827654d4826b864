/**
 * A readable plain view of the state: tables become id-sorted records, paged lists become arrays. For
 * golden files, debugging and export; the reducer never uses it.
 */
import { resolve } from "./lazy.ts";
import { listToArray, type PagedList } from "./paged-list.ts";
import type { ProjectionState, TurnData } from "./state.ts";
import { tableGet, tableIds, tableToRecord, type Table } from "./table.ts";

type Plain<T> = T extends Table<infer V> ? Record<string, V> : T extends PagedList<infer V> ? V[] : T;
export type PlainState = { readonly [K in keyof ProjectionState]: Plain<ProjectionState[K]> };

function isTable(value: unknown): value is Table<unknown> {
  return typeof value === "object" && value !== null && "buckets" in value && "size" in value;
}

function isPagedList(value: unknown): value is PagedList<unknown> {
  return typeof value === "object" && value !== null && "pages" in value && "length" in value && !Array.isArray(value);
}

/** A turn's data with its id lists as arrays. */
function plainTurnData(data: TurnData): unknown {
  return { ...data, steerMessageIds: listToArray(data.steerMessageIds), agentMessageIds: listToArray(data.agentMessageIds), toolCallIds: listToArray(data.toolCallIds) };
}

export function plainState(state: ProjectionState): PlainState {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) {
    out[key] = isTable(value) ? tableToRecord(value) : isPagedList(value) ? listToArray(value) : value;
  }
  const turnData: Record<string, unknown> = {};
  for (const [turnId, data] of Object.entries(tableToRecord(state.turnData))) turnData[turnId] = plainTurnData(data);
  out["turnData"] = turnData;
  return out as PlainState;
}

/**
 * The text of `JSON.stringify(plainState(state))`, in pieces: a field, a table entry or a list item at a
 * time, so an export of a long session (`baton export --format json`) holds one item of it, not a plain copy
 * of the whole projection and its JSON. A table's ids are collected first (≈ 50 bytes each) to write them
 * in the record's key order; each value is read when written. One difference: an id `__proto__` is written
 * (a plain record's assignment drops it).
 */
export function* plainStateJson(state: ProjectionState): Generator<string> {
  let first = true;
  yield "{";
  for (const [key, value] of Object.entries(state)) {
    const head = `${first ? "" : ","}${JSON.stringify(key)}:`;
    if (isTable(value)) {
      yield head;
      yield* tableJson(value, key === "turnData" ? (data) => plainTurnData(data as TurnData) : undefined);
    } else if (isPagedList(value)) {
      yield head;
      yield* listJson(value);
    } else {
      const json = JSON.stringify(value);
      if (json === undefined) continue;
      yield head + json;
    }
    first = false;
  }
  yield "}";
}

/** An array index (`"0"`, `"17"`): a record lists these first, in numeric order, then the other keys as inserted. */
function isArrayIndex(key: string): boolean {
  if (key.length === 0 || key.length > 10 || (key.length > 1 && key.charCodeAt(0) === 0x30)) return false;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return false;
  }
  return Number(key) < 2 ** 32 - 1;
}

/** `tableToRecord(table)`'s keys in the order `JSON.stringify` writes them. */
function recordKeyOrder(table: Table<unknown>): string[] {
  const ids = tableIds(table).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const indices = ids.filter(isArrayIndex);
  if (indices.length === 0) return ids;
  indices.sort((a, b) => Number(a) - Number(b));
  return [...indices, ...ids.filter((id) => !isArrayIndex(id))];
}

function* tableJson(table: Table<unknown>, map: ((value: unknown) => unknown) | undefined): Generator<string> {
  yield "{";
  let first = true;
  for (const id of recordKeyOrder(table)) {
    const value = tableGet(table, id);
    const json = JSON.stringify(map === undefined ? value : map(value));
    if (json === undefined) continue;
    yield `${first ? "" : ","}${JSON.stringify(id)}:${json}`;
    first = false;
  }
  yield "}";
}

function* listJson(list: PagedList<unknown>): Generator<string> {
  yield "[";
  let first = true;
  const items = function* (): Generator<unknown> {
    for (const page of list.pages) yield* resolve(page);
    for (const chunk of list.tail) yield* chunk;
  };
  for (const item of items()) {
    yield `${first ? "" : ","}${JSON.stringify(item) ?? "null"}`;
    first = false;
  }
  yield "]";
}
