/**
 * Plugin bindings of this session: the last `_baton_plugin_binding_update` of each plugin instance, with the
 * commands an active binding registered. Unknown states (a newer Baton) read as failed, never as active.
 */
import type { EventOf } from "../event/envelope.ts";
import { PLUGIN_BINDING_STATES, type PluginBindingState } from "../event/kinds.ts";
import { jsonEqual } from "./json-equal.ts";
import { recordSet } from "./record.ts";
import type { PluginBindingItem, PluginCommandItem, ProjectionState } from "./state.ts";

function commandsOf(payload: EventOf<"_baton_plugin_binding_update">["payload"]): PluginCommandItem[] {
  const out: PluginCommandItem[] = [];
  for (const registration of payload.registrations ?? []) {
    if (registration.type !== "command" || registration.commandId === undefined || registration.name === undefined) continue;
    out.push({ commandId: registration.commandId, name: registration.name, description: registration.description ?? "" });
  }
  return out;
}

export function reducePluginBinding(state: ProjectionState, event: EventOf<"_baton_plugin_binding_update">): ProjectionState {
  const p = event.payload;
  const known = (PLUGIN_BINDING_STATES as readonly string[]).includes(p.state);
  const bindingState: PluginBindingState = known ? p.state : "failed";
  const item: PluginBindingItem = {
    pluginInstanceId: p.pluginInstanceId,
    pluginId: p.pluginId,
    packageVersion: p.packageVersion,
    treeDigest: p.treeDigest,
    state: bindingState,
    reason: p.reason === undefined ? (known ? null : { code: "unknown", detail: `unknown binding state ${p.state}` }) : { code: p.reason.code, detail: p.reason.detail ?? null },
    commands: bindingState === "active" ? commandsOf(p) : [],
    seq: event.seq,
    ts: event.ts,
  };
  const previous = Object.hasOwn(state.plugins, p.pluginInstanceId) ? state.plugins[p.pluginInstanceId] : undefined;
  if (previous !== undefined && jsonEqual({ ...previous, seq: 0, ts: "" }, { ...item, seq: 0, ts: "" })) return state;
  return { ...state, plugins: recordSet(state.plugins, p.pluginInstanceId, item) };
}

/** Commands of the active bindings, in instance-id order (for `/` completion). */
export function selectPluginCommands(state: ProjectionState): { readonly pluginInstanceId: string; readonly pluginId: string; readonly command: PluginCommandItem }[] {
  const out: { pluginInstanceId: string; pluginId: string; command: PluginCommandItem }[] = [];
  const bindings = Object.values(state.plugins).sort((a, b) => (a.pluginInstanceId < b.pluginInstanceId ? -1 : a.pluginInstanceId > b.pluginInstanceId ? 1 : 0));
  for (const binding of bindings) {
    if (binding.state !== "active") continue;
    for (const command of binding.commands) out.push({ pluginInstanceId: binding.pluginInstanceId, pluginId: binding.pluginId, command });
  }
  return out;
}

/** The binding of the instance a requester, the catalog or config names (a plain name, looked up; undefined when none). */
export function selectPluginBinding(state: ProjectionState, pluginInstanceId: string): PluginBindingItem | undefined {
  return Object.values(state.plugins).find((binding) => binding.pluginInstanceId === pluginInstanceId);
}
