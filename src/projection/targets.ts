/**
 * Per-target snapshots (EV-06/07): context usage, native commands and session config each replace the
 * previous snapshot of that HarnessTarget. Keyed by the envelope's `harnessTargetId`, never by harness
 * name; an event without a target id has nowhere to go and is dropped.
 */
import type { AnyEvent, EventOf } from "../event/envelope.ts";
import type { TargetId } from "../shared/ids.ts";
import { assign } from "./draft.ts";
import { jsonEqual } from "./json-equal.ts";
import { ownGet, recordSet } from "./record.ts";
import type { ProjectionState, TargetState } from "./state.ts";

function blankTarget(harnessTargetId: TargetId, harness: string | null): TargetState {
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
  harnessTargetId: TargetId | null | undefined,
  harness: string | null | undefined,
  update: (target: TargetState) => TargetState,
): ProjectionState {
  if (harnessTargetId === undefined || harnessTargetId === null) return state;
  const previous = ownGet(state.perTarget, harnessTargetId) ?? blankTarget(harnessTargetId, harness ?? null);
  const next = update(previous);
  if (next === previous) return state;
  return assign(state, "perTarget", recordSet(state.perTarget, harnessTargetId, next));
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

/**
 * A snapshot draft (EV-06: native commands, context usage, session config) that equals its target's current
 * snapshot: folding it changes nothing, so it need not be stored again (an unchanged command list is not
 * re-recorded by every process that starts the agent).
 */
export function repeatsSnapshot(state: ProjectionState, draft: { readonly kind: string; readonly payload: unknown; readonly harnessTargetId?: string | undefined }): boolean {
  const target = draft.harnessTargetId === undefined ? undefined : targetStateOf(state, draft.harnessTargetId);
  if (target === undefined) return false;
  const payload = draft.payload as { readonly commands?: unknown; readonly options?: unknown };
  switch (draft.kind) {
    case "available_commands_update":
      return target.commands !== null && jsonEqual(target.commands, payload.commands);
    case "context_usage_update":
      return target.contextUsage !== null && jsonEqual(target.contextUsage, draft.payload);
    case "config_option_update":
      return target.configOptions !== null && jsonEqual(target.configOptions, payload.options);
    default:
      return false;
  }
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

/** The state of the target a draft names (a plain name: drafts are branded only once appended). */
function targetStateOf(state: ProjectionState, harnessTargetId: string): TargetState | undefined {
  return Object.values(state.perTarget).find((target) => target.harnessTargetId === harnessTargetId);
}
