/** `/plugins` and `baton plugins list` rows: every installed plugin with its settings and this session's binding. */
import { describeError } from "../shared/errors.ts";
import type { BindingReason, PluginBinding } from "./binding.ts";
import type { PluginCatalog } from "./catalog.ts";
import type { InstanceSettings } from "./settings.ts";

export interface PluginRow {
  readonly key: string;
  readonly pluginId: string;
  readonly marketplace: string;
  readonly pluginInstanceId: string | undefined;
  readonly version: string;
  readonly versions: readonly string[];
  readonly enabled: boolean;
  /** This session's binding, if any. */
  readonly binding: { readonly state: string; readonly reason: BindingReason | undefined } | undefined;
  readonly problem: string | undefined;
}

export async function pluginRows(catalog: PluginCatalog, bindingOf: (key: string) => PluginBinding | undefined): Promise<PluginRow[]> {
  const installed = await catalog.installed();
  let instances: readonly InstanceSettings[] = [];
  let problem: string | undefined;
  try {
    instances = (await catalog.settings.load()).instances;
  } catch (error) {
    problem = describeError(error);
  }
  const keys = new Map<string, { pluginId: string; marketplace: string }>();
  for (const v of installed) keys.set(`${v.pluginId}@${v.marketplace}`, { pluginId: v.pluginId, marketplace: v.marketplace });
  for (const i of instances) keys.set(i.key, { pluginId: i.pluginId, marketplace: i.marketplace });
  return [...keys.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, { pluginId, marketplace }]) => {
      const settings = instances.find((i) => i.key === key);
      const versions = installed.filter((v) => v.pluginId === pluginId && v.marketplace === marketplace).map((v) => v.version);
      const binding = bindingOf(key);
      const broken = installed.find((v) => v.pluginId === pluginId && v.marketplace === marketplace && v.problem !== undefined);
      return {
        key,
        pluginId,
        marketplace,
        pluginInstanceId: settings?.pluginInstanceId,
        version: settings?.version ?? versions[versions.length - 1] ?? "?",
        versions,
        enabled: settings?.enabled === true,
        binding: binding === undefined ? undefined : { state: binding.state, reason: binding.reason },
        problem: problem ?? broken?.problem,
      };
    });
}
