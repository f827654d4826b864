/**
 * Plans: `plan_update` replaces a plan's entries and makes it its target's latest plan; `proposed_plan`
 * is immutable (first write wins); `proposed_plan_implementation_started` links a proposed plan to the
 * turn implementing it, once.
 */
import type { EventOf } from "../event/envelope.ts";
import { assign } from "./draft.ts";
import { jsonEqual } from "./json-equal.ts";
import type { PlanItem, ProjectionState, ProposedPlanItem } from "./state.ts";
import { tableGet, tableSet } from "./table.ts";
import { setLastPlan } from "./targets.ts";
import { pushTimeline } from "./timeline.ts";

export function reducePlanUpdate(state: ProjectionState, event: EventOf<"plan_update">): ProjectionState {
  const { planId, entries } = event.payload;
  const existing = tableGet(state.plans, planId);
  let next = state;
  if (existing === undefined) {
    const plan: PlanItem = {
      planId,
      entries,
      turnId: event.turnId ?? null,
      harnessTargetId: event.harnessTargetId ?? null,
      firstSeq: event.seq,
    };
    next = pushTimeline(assign(state, "plans", tableSet(state.plans, planId, plan)), "plan", planId);
  } else if (!jsonEqual(existing.entries, entries)) {
    next = assign(state, "plans", tableSet(state.plans, planId, { ...existing, entries }));
  }
  return setLastPlan(next, event, planId);
}

export function reduceProposedPlan(state: ProjectionState, event: EventOf<"proposed_plan">): ProjectionState {
  const { planId, content } = event.payload;
  if (tableGet(state.proposedPlans, planId) !== undefined) return state;
  const plan: ProposedPlanItem = {
    planId,
    content,
    implementationTurnId: null,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    firstSeq: event.seq,
  };
  return pushTimeline({ ...state, proposedPlans: tableSet(state.proposedPlans, planId, plan) }, "proposed_plan", planId);
}

export function reducePlanImplementationStarted(
  state: ProjectionState,
  event: EventOf<"proposed_plan_implementation_started">,
): ProjectionState {
  const { planId, implementationTurnId } = event.payload;
  const plan = tableGet(state.proposedPlans, planId);
  if (plan === undefined || plan.implementationTurnId !== null) return state;
  return { ...state, proposedPlans: tableSet(state.proposedPlans, planId, { ...plan, implementationTurnId }) };
}
