/**
 * Interactions (IX-03/04): `interaction.opened` — first write wins — is pending until the first
 * `interaction.resolved`. A pending interaction makes its turn (envelope turnId) and the session
 * require action; resolving the last one returns the turn to running.
 */
import type { EventOf } from "../event/envelope.ts";
import type { InteractionItem, ProjectionState } from "./state.ts";
import { listPush, listToArray } from "./paged-list.ts";
import { tableGet, tableHas, tableSet } from "./table.ts";
import { pushTimeline } from "./timeline.ts";
import { settleTurns } from "./turns.ts";

export function reduceInteractionOpened(state: ProjectionState, event: EventOf<"interaction.opened">): ProjectionState {
  const { interactionId, requester, draft } = event.payload;
  if (tableHas(state.interactions, interactionId)) return state;
  const item: InteractionItem = {
    interactionId,
    requester,
    draft,
    status: "pending",
    resolution: null,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    openedSeq: event.seq,
    openedAt: event.ts,
    resolvedSeq: null,
  };
  const proposal = draft.type === "proposed_input";
  const next: ProjectionState = {
    ...state,
    interactions: tableSet(state.interactions, interactionId, item),
    pendingInteractionIds: [...state.pendingInteractionIds, interactionId],
    ...(proposal || requester.type === "plugin" ? { loopInteractionIds: listPush(state.loopInteractionIds, interactionId) } : {}),
    ...(item.turnId !== null && !proposal ? { lastTurnCardId: interactionId } : {}),
  };
  return settleTurns(pushTimeline(next, "interaction", interactionId));
}

/** The proposals and plugin questions of the session, in the order they opened (`loopInteractionIds`). */
export function loopInteractions(state: ProjectionState): InteractionItem[] {
  const out: InteractionItem[] = [];
  for (const id of listToArray(state.loopInteractionIds)) {
    const item = tableGet(state.interactions, id);
    if (item !== undefined) out.push(item);
  }
  return out;
}

export function reduceInteractionResolved(state: ProjectionState, event: EventOf<"interaction.resolved">): ProjectionState {
  const { interactionId, resolution } = event.payload;
  const existing = tableGet(state.interactions, interactionId);
  if (existing === undefined || existing.status === "resolved") return state;
  const item: InteractionItem = { ...existing, status: "resolved", resolution, resolvedSeq: event.seq };
  const next: ProjectionState = {
    ...state,
    interactions: tableSet(state.interactions, interactionId, item),
    pendingInteractionIds: state.pendingInteractionIds.filter((id) => id !== interactionId),
  };
  return settleTurns(next);
}
