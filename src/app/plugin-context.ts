/**
 * Plugin ContextProviders (CTX-06, CTXP-01) in the session's provider registry: while a binding is active,
 * each provider it registered answers `@` completion as `<pluginName>@<kind>` (tokens
 * `@<pluginName>.<kind>:<id>`); its `provide` runs only when a prompt naming it is submitted, within the
 * reference's budget (longer text is cut), and text about a Resource comes back with its `plugin_resource`
 * source so it is delivered as a snapshot of its own. A binding that stops takes its providers along.
 */
import type { ContextProvider, ContextProviderRegistry } from "../context/providers.ts";
import type { PluginBinding } from "../plugin/binding.ts";
import type { PluginManager } from "../plugin/manager.ts";
import { describeError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";

/** `owner/name` → `name`. */
export function pluginName(pluginId: string): string {
  return pluginId.slice(pluginId.lastIndexOf("/") + 1);
}

function providerFor(binding: PluginBinding, kind: string, log: Logger): ContextProvider {
  return {
    kind: `${pluginName(binding.pluginId)}@${kind}`,
    search: async (query, { limit }) => {
      try {
        return (await binding.contextSearch(kind, query, limit)).map((c) => ({ id: c.id, label: c.label, ...(c.detail === undefined ? {} : { detail: c.detail }) }));
      } catch (error) {
        log.log("warn", `context search of ${binding.pluginId} (${kind}) failed: ${describeError(error)}`);
        return [];
      }
    },
    provide: async (id, { maxChars }) => {
      const given = await binding.contextProvide(kind, id, maxChars);
      if (given === null) return undefined;
      const text = given.text.length <= maxChars ? given.text : `${given.text.slice(0, Math.max(0, maxChars - 1))}…`;
      const r = given.resource;
      if (r === undefined) return text;
      return { text, source: { kind: "plugin_resource", owner: binding.instance.pluginInstanceId, key: `${r.apiVersion}/${r.kind}/${r.name}#${r.uid}` } };
    },
  };
}

/** Keep the registry's plugin providers equal to what the active bindings registered. Returns the stop function. */
export function syncContextProviders(manager: PluginManager, registry: ContextProviderRegistry, log: Logger): () => void {
  const registered = new Map<PluginBinding, (() => void)[]>();
  const sync = (): void => {
    const active = new Set(manager.activeBindings());
    for (const [binding, offs] of [...registered]) {
      if (active.has(binding)) continue;
      for (const off of offs) off();
      registered.delete(binding);
    }
    for (const binding of active) {
      if (registered.has(binding)) continue;
      const offs: (() => void)[] = [];
      for (const r of binding.registrations) {
        if (r.type !== "contextProvider") continue;
        try {
          offs.push(registry.register(providerFor(binding, r.kind, log)));
        } catch (error) {
          log.log("warn", `context provider ${r.kind} of ${binding.pluginId} not registered: ${describeError(error)}`);
        }
      }
      registered.set(binding, offs);
    }
  };
  const off = manager.onChange(sync);
  sync();
  return () => {
    off();
    for (const offs of registered.values()) for (const o of offs) o();
    registered.clear();
  };
}
