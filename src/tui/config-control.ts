/**
 * Model, effort and mode per target (`/model`, `/effort`, `/plan`, Shift+Tab) through the controller's config
 * API: choices come from the target's adapter, apply from the next turn and are remembered (session meta, and
 * user preferences for model/effort). What the TUI shows: a change made in this run → the harness's last
 * reported snapshot → what the session remembered.
 */
import type { Controller } from "../controller/controller.ts";
import { matchConfigChoice, type SessionConfigOption } from "../controller/target-config.ts";
import type { ProjectionState } from "../projection/index.ts";
import { describeError } from "../shared/errors.ts";
import type { PickerItem, Tone } from "chat-tui";
import type { TargetSettings } from "./map-activity.ts";
import type { LookFn } from "./map-transcript.ts";
import type { ConfigId } from "../shared/config-ids.ts";
import type { TargetId } from "../shared/ids.ts";

export interface ConfigDeps {
  readonly controller: () => Controller;
  readonly lookOf: LookFn;
  readonly toast: (text: string, tone?: Tone) => void;
  /** Show a picker; `select` gets the chosen item id. Returns a function that fills in items later. */
  readonly openPicker: (title: string, select: (itemId: string) => void) => (items: readonly PickerItem[] | null) => void;
  /** Something the view shows changed. */
  readonly changed: () => void;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const NAMES: Readonly<Record<ConfigId, string>> = { model: "model", effort: "effort", mode: "mode" };

function snapshotOf(state: ProjectionState, targetId: TargetId): TargetSettings {
  const options = Object.hasOwn(state.perTarget, targetId) ? state.perTarget[targetId]?.configOptions : null;
  const out: Mutable<TargetSettings> = {};
  for (const option of options ?? []) {
    if (typeof option.value !== "string") continue;
    if (option.id === "model" || option.id === "effort" || option.id === "mode") out[option.id] = option.value;
  }
  return out;
}

export class ConfigControl {
  private readonly overrides = new Map<string, TargetSettings>();
  private readonly remembered = new Map<string, TargetSettings>();
  private readonly cache = new Map<string, { state: ProjectionState; value: TargetSettings }>();

  constructor(private readonly deps: ConfigDeps) {}

  /** A new session: forget local changes and what the old session remembered. */
  reset(): void {
    this.overrides.clear();
    this.remembered.clear();
    this.cache.clear();
  }

  /** The harness reported a fresh snapshot for this target: it is the truth from now on. */
  onSnapshot(targetId: TargetId): void {
    this.overrides.delete(targetId);
    this.cache.delete(targetId);
  }

  settingsOf(state: ProjectionState, targetId: TargetId): TargetSettings {
    const hit = this.cache.get(targetId);
    if (hit !== undefined && hit.state === state) return hit.value;
    let remembered = this.remembered.get(targetId);
    if (remembered === undefined) {
      remembered = this.rememberedOf(targetId);
      this.remembered.set(targetId, remembered);
    }
    const value = { ...remembered, ...snapshotOf(state, targetId), ...this.overrides.get(targetId) };
    const same = hit !== undefined && hit.value.model === value.model && hit.value.effort === value.effort && hit.value.mode === value.mode;
    this.cache.set(targetId, { state, value: same ? hit.value : value });
    return same ? hit.value : value;
  }

  private rememberedOf(targetId: TargetId): TargetSettings {
    const out: Mutable<TargetSettings> = {};
    try {
      for (const id of ["model", "effort", "mode"] as const) {
        const value = this.deps.controller().config.current(targetId, id);
        if (value !== undefined) out[id] = value;
      }
    } catch {
      // An unknown target has nothing remembered.
    }
    return out;
  }

  /** `/model [arg]`, `/effort [arg]`: apply an argument, or open a picker of the adapter's options. */
  async pick(targetId: TargetId, id: "model" | "effort", arg: string): Promise<void> {
    const look = this.deps.lookOf(targetId);
    if (this.deps.controller().targets().get(targetId)?.canConfigure !== true) {
      this.deps.toast(`${look.label} has no ${NAMES[id]} setting`, "warning");
      return;
    }
    let choices: NonNullable<SessionConfigOption["options"]> = [];
    const nameOf = (value: string): string => choices.find((c) => c.value === value)?.name ?? value;
    const fill = arg === "" ? this.deps.openPicker(`${look.label} ${NAMES[id]}`, (value) => void this.apply(targetId, id, value, nameOf(value))) : undefined;
    let option: SessionConfigOption | undefined;
    try {
      option = (await this.deps.controller().config.options(targetId)).find((o) => o.id === id);
    } catch (error) {
      fill?.(null);
      this.deps.toast(`Could not read ${look.label} ${NAMES[id]} options: ${describeError(error)}`, "error");
      return;
    }
    choices = option?.options ?? [];
    if (choices.length === 0) {
      fill?.(null);
      this.deps.toast(`${look.label} offers no ${NAMES[id]} choices`, "warning");
      return;
    }
    if (fill !== undefined) {
      const current = this.overrides.get(targetId)?.[id] ?? (typeof option?.value === "string" ? option.value : undefined);
      fill(
        choices.map((c) => ({
          id: c.value,
          label: c.name,
          ...(c.description !== undefined && c.description !== "" ? { detail: c.description } : c.name !== c.value ? { detail: c.value } : {}),
          ...(c.value === current ? { current: true } : {}),
        })),
      );
      return;
    }
    const chosen = matchConfigChoice(choices, arg);
    if (chosen === undefined) {
      this.deps.toast(`Unknown ${look.label} ${NAMES[id]} '${arg}' (try ${choices.map((c) => c.value).join(", ")})`, "error");
      return;
    }
    await this.apply(targetId, id, chosen.value, chosen.name);
  }

  /** `/plan` and Shift+Tab: plan ⇄ default. */
  async toggleMode(state: ProjectionState, targetId: TargetId): Promise<void> {
    const current = this.settingsOf(state, targetId).mode;
    await this.setMode(targetId, current === "plan" ? "default" : "plan");
  }

  async setMode(targetId: TargetId, mode: "plan" | "default"): Promise<boolean> {
    const look = this.deps.lookOf(targetId);
    if (this.deps.controller().targets().get(targetId)?.canConfigure !== true) {
      this.deps.toast(`${look.label} has no plan mode`, "warning");
      return false;
    }
    return this.apply(targetId, "mode", mode);
  }

  async apply(targetId: TargetId, id: ConfigId, value: string, name?: string): Promise<boolean> {
    const look = this.deps.lookOf(targetId);
    try {
      await this.deps.controller().config.set(targetId, id, value);
    } catch (error) {
      this.deps.toast(`${look.label}: ${describeError(error)}`, "error");
      return false;
    }
    this.remembered.delete(targetId);
    this.overrides.set(targetId, { ...this.overrides.get(targetId), [id]: value });
    this.cache.delete(targetId);
    if (id === "mode") this.deps.toast(value === "plan" ? `${look.label}: plan mode on` : `${look.label}: plan mode off`, "info");
    else this.deps.toast(`${look.label} ${NAMES[id]}: ${name ?? value} (takes effect next turn)`, "success");
    this.deps.changed();
    return true;
  }
}
