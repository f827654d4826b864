/**
 * The TUI session's plugins, loaded after the first frame: the Plugin Manager, its catalog and the YAML and
 * cron libraries behind it are not needed to draw the screen (MGR-01 starts plugins in the background anyway).
 * Until `start()` the Board is empty and listeners wait; a call that needs the manager (list, enable, a plugin
 * command) loads it at once. A session that closes before they loaded never loads them.
 */
import { EMPTY_BOARD } from "../plugin/board.ts";
import type { PluginTone, TuiPlugins } from "../tui/index.ts";
import type { AppContext } from "./app-context.ts";
import type { OpenedSession } from "./open-session.ts";
import type { sessionPlugins } from "./plugins.ts";

type Loaded = ReturnType<typeof sessionPlugins>;
type ToastListener = (text: string, tone: PluginTone, ms?: number) => void;

export interface DeferredPlugins extends TuiPlugins {
  /** Load the plugin host and activate the enabled plugins (in the background). Idempotent. */
  start(): void;
}

export function deferredSessionPlugins(ctx: AppContext, opened: OpenedSession, reservedCommands: ReadonlySet<string>): DeferredPlugins {
  let loading: Promise<Loaded> | undefined;
  let loaded: Loaded | undefined;
  let closed = false;
  const boardListeners = new Set<() => void>();
  const toastListeners = new Set<ToastListener>();
  const detach: (() => void)[] = [];

  const load = (): Promise<Loaded> => {
    if (closed) return Promise.reject(new Error("the session is closed"));
    loading ??= import("./plugins.ts").then((module) => {
      if (closed) throw new Error("the session is closed");
      const plugins = module.sessionPlugins(ctx, opened, reservedCommands, { closeWithSession: false });
      loaded = plugins;
      detach.push(plugins.onBoard(() => {
        for (const listener of [...boardListeners]) listener();
      }));
      detach.push(plugins.onToast((text, tone, ms) => {
        for (const listener of [...toastListeners]) listener(text, tone, ms);
      }));
      void plugins.manager.start().catch((error: unknown) => opened.log.log("error", "plugins could not start", { error }));
      return plugins;
    });
    return loading;
  };

  // Registered now, so it runs in its place in the shutdown order (after the harnesses) even if the plugins load later.
  opened.addCloser(async () => {
    closed = true;
    const plugins = await loading?.catch(() => undefined);
    for (const off of detach.splice(0)) off();
    await plugins?.close();
  });

  return {
    start: () => {
      void load().catch((error: unknown) => {
        if (!closed) opened.log.log("error", "plugins could not load", { error });
      });
    },
    list: async () => (await load()).list(),
    enable: async (pluginId) => (await load()).enable(pluginId),
    disable: async (pluginId) => (await load()).disable(pluginId),
    restart: async (pluginId) => (await load()).restart(pluginId),
    execute: async (pluginInstanceId, commandId, argument, call) => (await load()).execute(pluginInstanceId, commandId, argument, call),
    log: (message, attributes) => opened.log.log("warn", message, { attributes }),
    board: () => loaded?.board() ?? EMPTY_BOARD,
    onBoard: (listener) => {
      boardListeners.add(listener);
      return () => void boardListeners.delete(listener);
    },
    onToast: (listener) => {
      toastListeners.add(listener);
      return () => void toastListeners.delete(listener);
    },
  };
}
