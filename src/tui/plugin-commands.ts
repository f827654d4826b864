/**
 * Running a plugin command (CMD-01): a `message` shows in the transcript as the plugin's; a `picker`
 * opens the picker and choosing an option runs the command again with `selectedValue` (its answer is
 * handled the same way); a remote-search picker runs it with `searchQuery` for every query change after
 * 250 ms of quiet, shows the newest answer only (older ones are dropped), accepts empty pages and must
 * stay a remote picker. Failures toast and go to the session log with their phase (invoke/select/search).
 * Key handlers only route intents here; every call to the plugin runs after them.
 */
import { BatonError, describeError } from "../shared/errors.ts";
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { PickerItem } from "chat-tui";
import type { PluginCommandResult, TuiPlugins } from "./session-port.ts";
import type { PickerFill, RemoteSearch } from "./picker-slot.ts";

export interface PluginCommandRef {
  readonly pluginInstanceId: string;
  readonly pluginId: string;
  readonly commandId: string;
}

/** What running a plugin command needs of the host (a port: the host is not imported here). */
export interface PluginCommandHost {
  readonly session: { readonly plugins?: TuiPlugins };
  readonly clock: Clock;
  toast(text: string, tone: "info" | "error"): void;
  addLocal(item: { kind: "agent"; author: string; text: string; format: "plain" }): void;
  openPicker(title: string, select: (itemId: string) => void, items?: readonly PickerItem[], remote?: RemoteSearch): PickerFill;
}

export const SEARCH_DEBOUNCE_MS = 250;

type Phase = "invoke" | "select" | "search";
type Picker = Extract<PluginCommandResult, { kind: "picker" }>;

function itemsOf(picker: Picker): PickerItem[] {
  return picker.options.map((o) => ({ id: o.value, label: o.name, ...(o.description === undefined ? {} : { detail: o.description }) }));
}

function failed(host: PluginCommandHost, ref: PluginCommandRef, phase: Phase, error: unknown): void {
  host.session.plugins?.log(`plugin command /${ref.commandId} (${ref.pluginId}) failed while ${phase === "invoke" ? "running" : phase === "select" ? "handling a choice" : "searching"}: ${describeError(error)}`, { phase, pluginId: ref.pluginId, commandId: ref.commandId });
  // A binding that stopped under the call says so itself ("Plugin … stopped: …"); this would hide it.
  if (error instanceof BatonError && error.code === "plugin_failed") return;
  host.toast(`/${ref.commandId} (${ref.pluginId}): ${describeError(error)}`, "error");
}

/** Run a plugin's command and show what it answers. */
export async function runPluginCommand(host: PluginCommandHost, ref: PluginCommandRef, argument: string): Promise<void> {
  const plugins = host.session.plugins;
  if (plugins === undefined) return;
  let result: PluginCommandResult;
  try {
    result = await plugins.execute(ref.pluginInstanceId, ref.commandId, argument);
  } catch (error) {
    failed(host, ref, "invoke", error);
    return;
  }
  show(host, ref, argument, result);
}

function show(host: PluginCommandHost, ref: PluginCommandRef, argument: string, result: PluginCommandResult): void {
  if (result.kind === "message") {
    if (result.text !== "") host.addLocal({ kind: "agent", author: ref.pluginId, text: result.text, format: "plain" });
    return;
  }
  if (result.kind === "picker") openPicker(host, ref, argument, result);
}

function openPicker(host: PluginCommandHost, ref: PluginCommandRef, argument: string, picker: Picker): void {
  const plugins = host.session.plugins;
  if (plugins === undefined) return;
  const select = (value: string): void => {
    plugins.execute(ref.pluginInstanceId, ref.commandId, argument, { selectedValue: value }).then(
      (next) => show(host, ref, argument, next),
      (error: unknown) => failed(host, ref, "select", error),
    );
  };
  if (picker.search?.mode !== "remote") {
    if (picker.options.length === 0) {
      host.toast(`/${ref.commandId} (${ref.pluginId}) offered nothing to choose`, "info");
      return;
    }
    host.openPicker(picker.title, select, itemsOf(picker));
    return;
  }
  const search = remoteSearch(host, ref, argument, itemsOf(picker), () => fill);
  const fill: PickerFill = host.openPicker(picker.title, select, itemsOf(picker), {
    search,
    ...(picker.search.query === undefined ? {} : { query: picker.search.query }),
    ...(picker.search.placeholder === undefined ? {} : { placeholder: picker.search.placeholder }),
  });
}

/** Debounced, newest-wins search: only the answer to the latest query fills the picker. */
function remoteSearch(host: PluginCommandHost, ref: PluginCommandRef, argument: string, first: readonly PickerItem[], fill: () => PickerFill): (query: string) => void {
  let timer: TimerHandle | undefined;
  let latest = 0;
  let shown = first;
  return (query) => {
    if (timer !== undefined) host.clock.clearTimeout(timer);
    const asked = ++latest;
    timer = host.clock.setTimeout(() => {
      timer = undefined;
      const plugins = host.session.plugins;
      if (plugins === undefined) return;
      fill()(shown, true);
      plugins.execute(ref.pluginInstanceId, ref.commandId, argument, { searchQuery: query }).then(
        (page) => {
          if (asked !== latest) return; // a newer query is on its way
          if (page.kind !== "picker" || page.search?.mode !== "remote") {
            fill()(shown);
            failed(host, ref, "search", new BatonError("plugin_invalid", "a search must answer with a remote picker"));
            return;
          }
          shown = itemsOf(page);
          fill()(shown);
        },
        (error: unknown) => {
          if (asked !== latest) return;
          fill()(shown);
          failed(host, ref, "search", error);
        },
      );
    }, SEARCH_DEBOUNCE_MS);
  };
}
