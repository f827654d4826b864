/**
 * Model, effort and mode per target (HAR-07/09): the session's choice lives in its meta (and wins), the
 * user's choice for new sessions in the preferences; the adapter applies it from the next turn on.
 */
import { canConfigure, type SessionConfigOption } from "../harness/capabilities.ts";

export type { SessionConfigOption } from "../harness/capabilities.ts";
import type { HarnessRegistry } from "../harness/registry.ts";
import { BatonError } from "../shared/errors.ts";
import type { HarnessBinding } from "./binding.ts";
import { setHarnessSession, type MetaPort, type PreferencesPort } from "./ports.ts";
import type { TargetId } from "../shared/ids.ts";
import type { ConfigId } from "../shared/config-ids.ts";

export class TargetConfigurator {
  constructor(
    private readonly deps: {
      readonly registry: HarnessRegistry;
      readonly meta: MetaPort;
      readonly preferences: PreferencesPort | undefined;
      readonly binding: (targetId: TargetId) => HarnessBinding;
    },
  ) {}

  /** The options the harness offers (and their current values), or an empty list when it has none. */
  async options(targetRef: string): Promise<readonly SessionConfigOption[]> {
    const binding = this.deps.binding(this.deps.registry.resolve(targetRef).id);
    if (!canConfigure(binding.adapter)) return [];
    return binding.adapter.getConfig(binding.handle);
  }

  /** The value in effect for a target: the session's, else the user's preference. */
  current(targetRef: string, id: ConfigId): string | undefined {
    const target = this.deps.registry.resolve(targetRef);
    const stored = this.deps.meta.read().harnessSessions[target.id];
    const own = stored?.[id];
    if (own !== undefined) return own;
    return id === "mode" ? undefined : this.deps.preferences?.get(id, target.id);
  }

  /** Apply from the next turn; `default` clears the session value (and the preference for model/effort). */
  async set(targetRef: string, id: ConfigId, value: string): Promise<void> {
    const target = this.deps.registry.resolve(targetRef);
    const binding = this.deps.binding(target.id);
    if (!canConfigure(binding.adapter)) throw new BatonError("prompt_unsupported", `${target.id} has no ${id} setting`);
    // A binding that is not open yet receives the value through its launch snapshot at open.
    if (binding.handle) await binding.adapter.setConfig(binding.handle, id, value);
    this.deps.meta.update((meta) => {
      const next = setHarnessSession(meta, target.id, { harness: target.harness });
      const entry = { ...next.harnessSessions[target.id]! } as Record<string, unknown>;
      if (value === "default") delete entry[id];
      else entry[id] = value;
      return { ...next, harnessSessions: { ...next.harnessSessions, [target.id]: entry as never } };
    });
    if (id !== "mode") this.deps.preferences?.set(id, target.id, value);
  }
}

type ConfigChoice = NonNullable<SessionConfigOption["options"]>[number];

/** The offered choice `typed` names: its value or its display name, any case; `default` is always a choice. */
export function matchConfigChoice(choices: readonly ConfigChoice[], typed: string): { readonly value: string; readonly name: string } | undefined {
  const wanted = typed.trim().toLowerCase();
  const chosen = choices.find((c) => c.value.toLowerCase() === wanted) ?? choices.find((c) => c.name.toLowerCase() === wanted);
  if (chosen !== undefined) return { value: chosen.value, name: chosen.name };
  return wanted === "default" ? { value: "default", name: "Default" } : undefined;
}
