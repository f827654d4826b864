/**
 * A readable plain view of the state: tables become id-sorted records, paged lists become arrays. For
 * golden files, debugging and export; the reducer never uses it.
 */
import { listToArray, type PagedList } from "./paged-list.ts";
import type { ProjectionState, TurnData } from "./state.ts";
import { tableToRecord, type Table } from "./table.ts";

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
