import type { PluginPackage } from "./types.ts";

/** Identity at run time; gives the default export its type (and editor completion) at author time. */
export function definePlugin<T extends PluginPackage>(plugin: T): T {
  return plugin;
}
