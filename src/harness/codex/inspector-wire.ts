/**
 * The two read-only app-server methods the native-session inspector uses beyond the adapter's table.
 * `ThreadTurnsListParams` / `ThreadTurnsListResponse` mirror the pinned 0.171.0 `generate-ts --experimental`
 * output verbatim (v2/ThreadTurnsListParams.ts, v2/ThreadTurnsListResponse.ts); they are declared here
 * rather than checked into protocol/ so the protocol regeneration test's root list stays as it is.
 */
import type { SortDirection } from "./protocol/v2/SortDirection";
import type { ThreadReadParams } from "./protocol/v2/ThreadReadParams";
import type { ThreadReadResponse } from "./protocol/v2/ThreadReadResponse";
import type { Turn } from "./protocol/v2/Turn";
import type { TurnItemsView } from "./protocol/v2/TurnItemsView";

export type ThreadTurnsListParams = {
  threadId: string;
  /** Opaque cursor to pass to the next call to continue after the last turn. */
  cursor?: string | null;
  /** Optional turn page size. */
  limit?: number | null;
  /** Optional turn pagination direction; defaults to descending. */
  sortDirection?: SortDirection | null;
  /** How much item detail to include for each returned turn; defaults to summary. */
  itemsView?: TurnItemsView | null;
};

export type ThreadTurnsListResponse = {
  data: Array<Turn>;
  /** Opaque cursor to pass to the next call to continue after the last turn; null when there are no more. */
  nextCursor: string | null;
  /** Opaque cursor to pass as `cursor` when reversing `sortDirection`. */
  backwardsCursor: string | null;
};

export interface InspectorMethods {
  "thread/read": { params: ThreadReadParams; result: ThreadReadResponse };
  "thread/turns/list": { params: ThreadTurnsListParams; result: ThreadTurnsListResponse };
}
