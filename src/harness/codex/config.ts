/**
 * Model / effort / collaboration-mode configuration (COD-11). Values apply from the next turn on;
 * `default` clears an override. Lists come from the live app-server (`model/list`,
 * `collaborationMode/list`); without a live handle only the current choices are reported.
 */
import { BatonError } from "../../shared/errors.ts";
import type { SessionConfigOption } from "../capabilities.ts";
import type { CodexSession } from "./session.ts";
import type { Model } from "./protocol/v2/Model";
import type { TurnStartParams } from "./protocol/v2/TurnStartParams";
import type { ModeKind } from "./protocol/ModeKind";
import type { ConfigId } from "../../shared/config-ids.ts";

const MODES: readonly ModeKind[] = ["default", "plan"];

function effortLabel(value: string): string {
  if (value === "xhigh") return "Extra high";
  return value.charAt(0).toUpperCase() + value.slice(1);
}

export class CodexConfig {
  model: string | undefined;
  effort: string | undefined;
  mode: ModeKind | undefined;
  private models: Model[] | undefined;
  private modes: ModeKind[] | undefined;

  constructor(initial: { model?: string; effort?: string; mode?: string }) {
    this.model = initial.model === "default" ? undefined : initial.model;
    this.effort = initial.effort === "default" ? undefined : initial.effort;
    this.mode = MODES.includes(initial.mode as ModeKind) ? (initial.mode as ModeKind) : undefined;
  }

  /** True once a model list is known (from the live app-server or a session-less probe). */
  get hasCatalog(): boolean {
    return this.models !== undefined;
  }

  /** A catalog listed without a session; a live session's own list replaces it on refresh. */
  adoptCatalog(models: readonly Model[]): void {
    this.models ??= [...models];
  }

  async refresh(session: CodexSession): Promise<void> {
    const listed = await session.call("model/list", { limit: 200 }, 10_000);
    this.models = listed.data.filter((m) => !m.hidden);
    try {
      const modes = await session.call("collaborationMode/list", {}, 10_000);
      const kinds = modes.data.map((m) => m.mode).filter((m): m is ModeKind => m !== null && MODES.includes(m));
      this.modes = kinds.length > 0 ? [...new Set(kinds)] : [...MODES];
    } catch {
      this.modes = [...MODES];
    }
  }

  /** The model the next turn runs: the override, else the thread's, else the catalog default. */
  effectiveModel(session: CodexSession | undefined): string | undefined {
    return this.model ?? session?.model ?? this.models?.find((m) => m.isDefault)?.model;
  }

  private selectedModel(session: CodexSession | undefined): Model | undefined {
    const slug = this.effectiveModel(session);
    return this.models?.find((m) => m.model === slug || m.id === slug);
  }

  options(session: CodexSession | undefined): SessionConfigOption[] {
    const modelOptions = [{ value: "default", name: "Default" }];
    for (const m of this.models ?? []) modelOptions.push({ value: m.model, name: m.displayName });
    if (this.model !== undefined && !modelOptions.some((o) => o.value === this.model)) modelOptions.push({ value: this.model, name: this.model });
    const effortOptions = [{ value: "default", name: "Default" }];
    for (const e of this.selectedModel(session)?.supportedReasoningEfforts ?? []) {
      effortOptions.push({ value: e.reasoningEffort, name: effortLabel(e.reasoningEffort) });
    }
    if (this.effort !== undefined && !effortOptions.some((o) => o.value === this.effort)) effortOptions.push({ value: this.effort, name: effortLabel(this.effort) });
    const modeOptions = (this.modes ?? MODES).map((m) => ({ value: m, name: m === "plan" ? "Plan" : "Default" }));
    return [
      { id: "model", name: "Model", type: "select", category: "model", value: this.model ?? "default", options: modelOptions },
      { id: "effort", name: "Reasoning effort", type: "select", category: "thought_level", value: this.effort ?? "default", options: effortOptions },
      { id: "mode", name: "Mode", type: "select", category: "mode", value: this.mode ?? "default", options: modeOptions },
    ];
  }

  set(id: ConfigId, value: string, session: CodexSession | undefined): void {
    switch (id) {
      case "model": {
        if (value === "default") {
          this.model = undefined;
          return;
        }
        if (this.models !== undefined && !this.models.some((m) => m.model === value || m.id === value)) {
          throw new BatonError("usage", `Codex has no model '${value}' (available: ${this.models.map((m) => m.model).join(", ")})`);
        }
        this.model = value;
        return;
      }
      case "effort": {
        if (value === "default") {
          this.effort = undefined;
          return;
        }
        const model = this.selectedModel(session);
        if (model !== undefined && !model.supportedReasoningEfforts.some((e) => e.reasoningEffort === value)) {
          const supported = model.supportedReasoningEfforts.map((e) => e.reasoningEffort);
          throw new BatonError("usage", `Model ${model.model} does not support effort '${value}' (supported: ${supported.length > 0 ? supported.join(", ") : "none"})`);
        }
        this.effort = value;
        return;
      }
      case "mode": {
        if (session?.active !== undefined && !session.active.finished) throw new BatonError("busy", "The mode cannot change while a Codex turn is running");
        if (!MODES.includes(value as ModeKind)) throw new BatonError("usage", `Codex has no mode '${value}' (modes: ${MODES.join(", ")})`);
        this.mode = value as ModeKind;
        return;
      }
    }
  }

  /** turn/start overrides: a collaboration mode carries model and effort; otherwise they go alone. */
  turnParams(session: CodexSession): Partial<TurnStartParams> {
    if (this.mode !== undefined) {
      const model = this.effectiveModel(session);
      if (model !== undefined) {
        return { collaborationMode: { mode: this.mode, settings: { model, reasoning_effort: this.effort ?? null, developer_instructions: null } } };
      }
    }
    const out: Partial<TurnStartParams> = {};
    if (this.model !== undefined) out.model = this.model;
    if (this.effort !== undefined) out.effort = this.effort;
    return out;
  }
}
