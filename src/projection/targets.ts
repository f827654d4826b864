/**
 * Per-target snapshots (EV-06/07): context usage, native commands and session config each replace the
 * previous snapshot of that HarnessTarget. Keyed by the envelope's `harnessTargetId`, never by harness
 * name; an event without a target id has nowhere to go and is dropped.
 */
import type { AnyEvent, EventOf } from "../event/envelope.ts";
import { jsonEqual } from "./json-equal.ts";
import { ownGet, recordSet } from "./record.ts";
import type { ProjectionState, TargetState } from "./state.ts";

function blankTarget(harnessTargetId: string, harness: string | null): TargetState {
  return {
    harnessTargetId,
    harness,
    contextUsage: null,
    commands: null,
    configOptions: null,
    lastPlanId: null,
    contextEpochId: null,
  };
}

export function withTarget(
  state: ProjectionState,
  harnessTargetId: string | null | undefined,
  harness: string | null | undefined,
  update: (target: TargetState) => TargetState,
): ProjectionState {
  if (harnessTargetId === undefined || harnessTargetId === null) return state;
  const previous = ownGet(state.perTarget, harnessTargetId) ?? blankTarget(harnessTargetId, harness ?? null);
  const next = update(previous);
  if (next === previous) return state;
  return { ...state, perTarget: recordSet(state.perTarget, harnessTargetId, next) };
}

function withEventTarget(state: ProjectionState, event: AnyEvent, update: (target: TargetState) => TargetState): ProjectionState {
  return withTarget(state, event.harnessTargetId, event.harness, update);
}

export function reduceContextUsage(state: ProjectionState, event: EventOf<"context_usage_update">): ProjectionState {
  const usage = event.payload;
  return withEventTarget(state, event, (t) => (jsonEqual(t.contextUsage, usage) ? t : { ...t, contextUsage: usage }));
}

export function reduceAvailableCommands(state: ProjectionState, event: EventOf<"available_commands_update">): ProjectionState {
  const commands = event.payload.commands;
  return withEventTarget(state, event, (t) => (jsonEqual(t.commands, commands) ? t : { ...t, commands }));
}

export function reduceConfigOptions(state: ProjectionState, event: EventOf<"config_option_update">): ProjectionState {
  const configOptions = event.payload.options;
  return withEventTarget(state, event, (t) => (jsonEqual(t.configOptions, configOptions) ? t : { ...t, configOptions }));
}

/** IX-08: the route the harness reported replaces the previous one (never inferred from Baton's config). */
export function reduceApprovalRoute(state: ProjectionState, event: EventOf<"approval_route_update">): ProjectionState {
  const route = event.payload.route;
  return withEventTarget(state, event, (t) => (t.approvalRoute === route ? t : { ...t, approvalRoute: route }));
}

export function setLastPlan(state: ProjectionState, event: AnyEvent, planId: string): ProjectionState {
  return withEventTarget(state, event, (t) => (t.lastPlanId === planId ? t : { ...t, lastPlanId: planId }));
}
