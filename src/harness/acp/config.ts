/**
 * Model / effort / mode of an ACP session (HAR-07), from what the agent offers: `modes` (session/set_mode) and
 * `configOptions` (session/set_config_option), recognised by category (`model`, `thought_level`, `mode`) or id.
 * Baton's `default` means "what the agent chose itself when the session started". Changes apply from the next
 * turn; other agent options (fast mode, collaboration modes, …) are kept but not offered as model/effort/mode.
 */
import type { SessionConfigOption as AcpConfigOption, SessionConfigSelectOption, SessionModeState } from "@agentclientprotocol/sdk/unstable";
import { BatonError } from "../../shared/errors.ts";
import type { SessionConfigOption } from "../capabilities.ts";
import type { ConfigId } from "../../shared/config-ids.ts";

/** How a Baton config id reaches the agent. */
export type ConfigRoute = { readonly via: "set_mode" } | { readonly via: "set_config_option"; readonly configId: string };

const CATEGORY: Readonly<Record<ConfigId, string>> = { model: "model", effort: "thought_level", mode: "mode" };
const NAMES: Readonly<Record<ConfigId, string>> = { model: "Model", effort: "Effort", mode: "Mode" };

interface Choice {
  readonly value: string;
  readonly name: string;
  readonly description?: string;
}

function selectChoices(option: AcpConfigOption): Choice[] {
  if (option.type !== "select") return [];
  const out: Choice[] = [];
  for (const entry of option.options) {
    const list: readonly SessionConfigSelectOption[] = "group" in entry ? entry.options : [entry];
    for (const choice of list) out.push({ value: choice.value, name: choice.name, ...(choice.description ? { description: choice.description } : {}) });
  }
  return out;
}

/** The live config of one ACP session: what the agent reported last, and what it started with. */
export class AcpConfigState {
  private modes: SessionModeState | undefined;
  private options: readonly AcpConfigOption[] = [];
  private readonly initial = new Map<ConfigId, string>();

  /** From session/new|load|resume: replaces what was known and records the starting values (once). */
  reset(modes: SessionModeState | null | undefined, options: readonly AcpConfigOption[] | null | undefined): void {
    this.modes = modes ?? undefined;
    this.options = options ?? [];
    for (const id of ["model", "effort", "mode"] as const) {
      const value = this.current(id);
      if (value !== undefined && !this.initial.has(id)) this.initial.set(id, value);
    }
  }

  /** `config_option_update`: the full set. */
  replaceOptions(options: readonly AcpConfigOption[]): void {
    this.options = options;
  }

  /** `current_mode_update`. */
  setCurrentMode(modeId: string): void {
    if (this.modes !== undefined) this.modes = { ...this.modes, currentModeId: modeId };
    else this.options = this.options.map((option) => (this.isFor("mode", option) && option.type === "select" ? { ...option, currentValue: modeId } : option));
  }

  /** True when the agent offers any of model, effort or mode. */
  get offered(): boolean {
    return (["model", "effort", "mode"] as const).some((id) => this.route(id) !== undefined);
  }

  private isFor(id: ConfigId, option: AcpConfigOption): boolean {
    return option.category === CATEGORY[id] || option.id === id || (id === "effort" && option.id === "thought_level");
  }

  private optionFor(id: ConfigId): AcpConfigOption | undefined {
    return this.options.find((option) => option.type === "select" && this.isFor(id, option));
  }

  route(id: ConfigId): ConfigRoute | undefined {
    if (id === "mode" && this.modes !== undefined && this.modes.availableModes.length > 0) return { via: "set_mode" };
    const option = this.optionFor(id);
    return option === undefined ? undefined : { via: "set_config_option", configId: option.id };
  }

  choices(id: ConfigId): Choice[] {
    if (id === "mode" && this.modes !== undefined && this.modes.availableModes.length > 0) {
      return this.modes.availableModes.map((mode) => ({ value: mode.id, name: mode.name, ...(mode.description ? { description: mode.description } : {}) }));
    }
    const option = this.optionFor(id);
    return option === undefined ? [] : selectChoices(option);
  }

  current(id: ConfigId): string | undefined {
    if (id === "mode" && this.modes !== undefined && this.modes.availableModes.length > 0) return this.modes.currentModeId;
    const option = this.optionFor(id);
    return option !== undefined && typeof option.currentValue === "string" ? option.currentValue : undefined;
  }

  /** The value the agent started the session with (what Baton's `default` means). */
  initialValue(id: ConfigId): string | undefined {
    return this.initial.get(id);
  }

  /** Baton's snapshot: model, effort and mode as the agent offers them right now. */
  snapshot(): SessionConfigOption[] {
    const out: SessionConfigOption[] = [];
    for (const id of ["model", "effort", "mode"] as const) {
      if (this.route(id) === undefined) continue;
      const current = this.current(id);
      out.push({
        id,
        name: NAMES[id],
        type: "select",
        category: CATEGORY[id],
        value: current ?? null,
        options: this.choices(id).map((choice) => ({ value: choice.value, name: choice.name, ...(choice.description ? { description: choice.description } : {}) })),
      });
    }
    return out;
  }

  /**
   * The agent-side value for a Baton request, checked against what the agent offers; `default` is the starting
   * value. Undefined when nothing needs sending (already current, or no known starting value).
   */
  resolve(id: ConfigId, value: string, agentLabel: string): string | undefined {
    const route = this.route(id);
    if (route === undefined) throw new BatonError("usage", `${agentLabel} offers no ${id} setting`);
    const wanted = value === "default" ? (this.choices(id).some((c) => c.value === "default") ? "default" : this.initialValue(id)) : value;
    if (wanted === undefined) return undefined;
    const choices = this.choices(id);
    const match = choices.find((c) => c.value === wanted) ?? choices.find((c) => c.name.toLowerCase() === wanted.toLowerCase());
    if (match === undefined) {
      throw new BatonError("usage", `${agentLabel} has no ${id} '${value}' (available: ${choices.map((c) => c.value).join(", ") || "none"})`);
    }
    return match.value === this.current(id) ? undefined : match.value;
  }
}
