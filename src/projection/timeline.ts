/** The transcript order: items in the order they were first seen. */
import { assign } from "./draft.ts";
import { listPush } from "./paged-list.ts";
import type { ProjectionState, TimelineItemType } from "./state.ts";

/** Call only when the item's object was just created (first sight), so each id appears once. */
export function pushTimeline(state: ProjectionState, type: TimelineItemType, id: string): ProjectionState {
  return assign(state, "timeline", listPush(state.timeline, { type, id }));
}
