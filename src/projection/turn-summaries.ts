/**
 * Reading the turn summaries (`ProjectionState.turnSummaries`, a `PagedList` since #18): the newest,
 * the one of a turn (through `summaryIndex`, O(1)), the last n, or all of them. A paged list lets an
 * incremental checkpoint write a turn end's one new summary, not every summary of the session, and
 * lets a state opened from one leave old summaries on disk until something reads them.
 */
import { listAt, listSlice, listToArray } from "./paged-list.ts";
import type { ProjectionState, TurnSummaryEntry } from "./state.ts";
import { tableGet } from "./table.ts";

/** The newest turn summary, if any. */
export function lastSummary(state: ProjectionState): TurnSummaryEntry | undefined {
  return listAt(state.turnSummaries, state.turnSummaries.length - 1);
}

/** The summary of `turnId` (the first one reduced for it), if any. */
export function summaryOf(state: ProjectionState, turnId: string): TurnSummaryEntry | undefined {
  const at = tableGet(state.summaryIndex, turnId);
  return at === undefined ? undefined : listAt(state.turnSummaries, at);
}

/** The newest `count` summaries, oldest first. */
export function recentSummaries(state: ProjectionState, count: number): TurnSummaryEntry[] {
  return listSlice(state.turnSummaries, state.turnSummaries.length - count);
}

const all = new WeakMap<object, readonly TurnSummaryEntry[]>();

/** Every summary, oldest first (memoized on the list, which only grows by copy). */
export function allSummaries(state: ProjectionState): readonly TurnSummaryEntry[] {
  const list = state.turnSummaries;
  let out = all.get(list);
  if (out === undefined) {
    out = listToArray(list);
    all.set(list, out);
  }
  return out;
}
