/**
 * `/plugins` (plugins.md §5): a picker of the installed plugins with this session's binding state (from the
 * projection: active, failed with its reason, closed), then what can be done with the chosen one — enable
 * (the consent card appears in the dock), disable, restart a failed one. `/plugins enable|disable|restart
 * <id>` does the same directly. Plugin commands: completion lists the active bindings' commands, and a
 * command's message is shown in the transcript as the plugin's.
 */
import { isKind, type AnyEvent } from "../projection/index.ts";
import { selectPluginBinding, selectPluginCommands, type PluginBindingItem, type ProjectionState } from "../projection/index.ts";
import { describeError } from "../shared/errors.ts";
import type { ChatCommand } from "chat-tui";
import type { PluginListing, TuiPlugins } from "./session-port.ts";
import type { PluginCommandRef } from "./plugin-commands.ts";
import type { TuiHost } from "./tui-host.ts";


/** Completion entries for the active bindings' commands (activation already refused any that shadow Baton's). */
export function pluginCompletions(state: ProjectionState): ChatCommand[] {
  return selectPluginCommands(state).map((entry) => ({ name: entry.command.name, description: `${entry.command.description || entry.command.name} (${entry.pluginId})` }));
}

/** The active binding that registered `/name`, if any. */
export function findPluginCommand(state: ProjectionState, name: string): PluginCommandRef | undefined {
  const found = selectPluginCommands(state).find((entry) => entry.command.name === name);
  return found === undefined ? undefined : { pluginInstanceId: found.pluginInstanceId, pluginId: found.pluginId, commandId: found.command.commandId };
}

/** The toast is only a view of the fact: "Plugin <id> stopped: <reason>" when a binding failed. */
export function pluginStoppedToast(event: AnyEvent): string | undefined {
  if (!isKind(event, "_baton_plugin_binding_update") || event.payload.state !== "failed") return undefined;
  const reason = event.payload.reason;
  const why = reason === undefined ? "unknown reason" : `${reason.code}${reason.detail === undefined ? "" : ` (${reason.detail})`}`;
  return `Plugin ${event.payload.pluginId} stopped: ${why}`;
}

/** "active", "failed: exit (exit code 3)", "closed: disabled", "disabled", "enabled, starting…". */
export function bindingLabel(listing: PluginListing, binding: PluginBindingItem | undefined): string {
  if (listing.problem !== undefined) return `problem: ${listing.problem}`;
  if (binding !== undefined && binding.state === "active") return "active";
  if (binding !== undefined && binding.state === "failed") return `failed: ${binding.reason?.code ?? "?"}${binding.reason?.detail ? ` (${binding.reason.detail})` : ""}`;
  if (!listing.enabled) return "disabled";
  if (binding !== undefined && binding.state === "closed") return `closed${binding.reason ? `: ${binding.reason.code}` : ""}`;
  return "enabled, starting…";
}

function bindingOf(state: ProjectionState, listing: PluginListing): PluginBindingItem | undefined {
  const id = listing.pluginInstanceId;
  return id === undefined ? undefined : selectPluginBinding(state, id);
}

type Action = "enable" | "disable" | "restart";

async function act(host: TuiHost, plugins: TuiPlugins, action: Action, pluginId: string): Promise<void> {
  const doing = { enable: "Enabling", disable: "Disabling", restart: "Restarting" }[action];
  host.toast(`${doing} ${pluginId}…`, "info");
  try {
    await plugins[action](pluginId);
    host.toast(`Plugin ${pluginId} ${action === "disable" ? "disabled" : "active"}`, "success");
  } catch (error) {
    host.toast(describeError(error), "error");
  }
}

function actionsFor(listing: PluginListing, binding: PluginBindingItem | undefined): { id: Action; label: string }[] {
  if (!listing.enabled) return [{ id: "enable", label: "Enable (shows what it may do first)" }];
  const actions: { id: Action; label: string }[] = [];
  if (binding?.state !== "active") actions.push({ id: "restart", label: "Restart it" });
  actions.push({ id: "disable", label: "Disable (its data stays)" });
  return actions;
}

function chooseAction(host: TuiHost, plugins: TuiPlugins, listing: PluginListing): void {
  const binding = bindingOf(host.controller.state, listing);
  const actions = actionsFor(listing, binding);
  host.openPicker(
    `${listing.pluginId} ${listing.version} — ${bindingLabel(listing, binding)}`,
    (id) => void act(host, plugins, id as Action, listing.pluginId),
    actions.map((a) => ({ id: a.id, label: a.label })),
  );
}

export async function runPluginsCommand(host: TuiHost, args: string): Promise<void> {
  const plugins = host.session.plugins;
  if (plugins === undefined) {
    host.toast("Plugins do not run in this session", "warning");
    return;
  }
  const [verb, id, ...rest] = args.trim().split(/\s+/).filter((part) => part !== "");
  if (verb === "enable" || verb === "disable" || verb === "restart") {
    if (id === undefined || rest.length > 0) {
      host.toast(`Usage: /plugins ${verb} <owner/name>`, "warning");
      return;
    }
    await act(host, plugins, verb, id);
    return;
  }
  if (verb !== undefined) {
    host.toast(`Unknown /plugins action '${verb}'; use enable, disable or restart (or /plugins alone for the list)`, "warning");
    return;
  }
  let listings: readonly PluginListing[] = [];
  const fill = host.openPicker("Plugins (Enter to choose what to do)", (itemId) => {
    const listing = listings.find((l) => `${l.pluginId}@${l.marketplace}` === itemId);
    if (listing !== undefined) chooseAction(host, plugins, listing);
  });
  try {
    listings = await plugins.list();
  } catch (error) {
    fill(null);
    host.toast(describeError(error), "error");
    return;
  }
  if (listings.length === 0) {
    fill(null);
    host.addLocal({ kind: "notice", tone: "info", title: "No plugins installed", detail: "Install one with: baton plugins install <dir | file.tgz | owner/name>" });
    return;
  }
  const state = host.controller.state;
  fill(
    listings.map((listing) => ({
      id: `${listing.pluginId}@${listing.marketplace}`,
      label: `${listing.pluginId} ${listing.version}`,
      detail: `${listing.marketplace} · ${bindingLabel(listing, bindingOf(state, listing))}`,
    })),
  );
}
