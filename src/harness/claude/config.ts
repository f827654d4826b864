/** Claude's session config snapshot (CLA-09): model, effort and permission mode as SessionConfigOptions. */
import type { EffortLevel, ModelInfo, PermissionMode, Query } from "@anthropic-ai/claude-agent-sdk";
import { BatonError } from "../../shared/errors.ts";
import type { SessionConfigOption } from "../capabilities.ts";
import type { ConfigId } from "../../shared/config-ids.ts";

export interface ClaudeConfigState {
  /** Explicit model override, undefined = Claude Code's default. */
  model?: string | undefined;
  effort?: EffortLevel | undefined;
  mode: BatonClaudeMode;
}

/** The permission modes Baton offers (CLA-09); anything else Claude reports is shown as default. */
export const CLAUDE_MODES = ["default", "plan"] as const;
export type BatonClaudeMode = (typeof CLAUDE_MODES)[number];
export const EFFORT_LEVELS: readonly EffortLevel[] = ["low", "medium", "high", "xhigh", "max"];
type ModelChoice = Pick<ModelInfo, "value" | "displayName" | "description"> & { readonly supportedEffortLevels?: readonly string[] | undefined };

export const FALLBACK_MODELS: readonly ModelChoice[] = [
  { value: "default", displayName: "Default", description: "Claude Code's default model" },
  { value: "sonnet", displayName: "Sonnet", description: "" },
  { value: "opus", displayName: "Opus", description: "" },
  { value: "haiku", displayName: "Haiku", description: "" },
];

export function isEffort(value: string): value is EffortLevel {
  return (EFFORT_LEVELS as readonly string[]).includes(value);
}

export function toBatonMode(mode: PermissionMode | string | undefined): BatonClaudeMode {
  return mode === "plan" ? "plan" : "default";
}

export function buildConfigOptions(
  state: ClaudeConfigState,
  models: readonly ModelChoice[] | undefined,
  activeModel: string | undefined,
): SessionConfigOption[] {
  const list = models && models.length > 0 ? models : FALLBACK_MODELS;
  const modelOptions = list.map((m) => ({ value: m.value, name: m.displayName, ...(m.description ? { description: m.description } : {}) }));
  const selected = list.find((m) => m.value === (state.model ?? "default")) ?? list.find((m) => m.value === activeModel);
  const supported: readonly string[] | undefined = selected?.supportedEffortLevels ?? undefined;
  const efforts = EFFORT_LEVELS.filter((level) => supported === undefined || supported.includes(level));
  return [
    {
      id: "model",
      name: "Model",
      type: "select",
      category: "model",
      value: state.model ?? "default",
      options: modelOptions.some((o) => o.value === "default") ? modelOptions : [{ value: "default", name: "Default" }, ...modelOptions],
    },
    {
      id: "effort",
      name: "Effort",
      type: "select",
      category: "thought_level",
      value: state.effort ?? "default",
      options: [{ value: "default", name: "Default" }, ...efforts.map((level) => ({ value: level, name: level }))],
    },
    {
      id: "mode",
      name: "Mode",
      type: "select",
      category: "mode",
      value: state.mode,
      options: [
        { value: "default", name: "Default", description: "Ask before edits and commands" },
        { value: "plan", name: "Plan", description: "Plan first; Baton declines changes until the plan is approved" },
      ],
    },
  ];
}

export function parseEffort(value: string | undefined): EffortLevel | undefined {
  return value !== undefined && isEffort(value) ? value : undefined;
}

/** Validate and record a config change (`default` clears the override); throws BatonError("usage") on bad values. */
export function updateConfigState(state: ClaudeConfigState, id: ConfigId, value: string): void {
  if (id === "model") {
    state.model = value === "default" ? undefined : value;
  } else if (id === "effort") {
    if (value !== "default" && !isEffort(value)) throw new BatonError("usage", `unknown Claude effort '${value}' (use ${EFFORT_LEVELS.join(", ")} or default)`);
    state.effort = parseEffort(value);
  } else {
    if (value !== "default" && value !== "plan") throw new BatonError("usage", `unknown Claude mode '${value}' (use default or plan)`);
    state.mode = value;
  }
}

/** Bring a live query to the desired config (between turns only): setModel, effort flag setting, permission mode. */
export async function applyConfigToQuery(
  query: Query,
  desired: ClaudeConfigState,
  applied: ClaudeConfigState,
  trace?: (direction: "in" | "out", message: unknown) => void,
): Promise<void> {
  if (desired.model !== applied.model) {
    trace?.("out", { control: "setModel", model: desired.model });
    await query.setModel(desired.model);
    applied.model = desired.model;
  }
  if (desired.effort !== applied.effort) {
    trace?.("out", { control: "applyFlagSettings", effortLevel: desired.effort ?? null });
    await query.applyFlagSettings({ effortLevel: desired.effort ?? null });
    applied.effort = desired.effort;
  }
  if (desired.mode !== applied.mode) {
    trace?.("out", { control: "setPermissionMode", mode: desired.mode });
    const response = await query.setPermissionMode(desired.mode);
    applied.mode = toBatonMode(response?.mode ?? desired.mode);
  }
}

/** What the user wants (`desired`) and what the running Claude Code has (`applied`), for one session. */
export class ClaudeConfigTracker {
  readonly desired: ClaudeConfigState;
  applied: ClaudeConfigState;

  constructor(open: { readonly model?: string | undefined; readonly effort?: string | undefined; readonly mode?: string | undefined }) {
    this.desired = { model: open.model && open.model !== "default" ? open.model : undefined, effort: parseEffort(open.effort), mode: toBatonMode(open.mode) };
    this.applied = { ...this.desired };
  }

  set(id: ConfigId, value: string): void {
    updateConfigState(this.desired, id, value);
  }

  apply(query: Query, trace?: (direction: "in" | "out", message: unknown) => void): Promise<void> {
    return applyConfigToQuery(query, this.desired, this.applied, trace);
  }

  /** A new Claude Code process starts with what is desired. */
  restarted(): void {
    this.applied = { ...this.desired };
  }

  /** Claude Code reported its permission mode: a mode the user did not change follows it. */
  reported(mode: string): void {
    const reported = toBatonMode(mode);
    if (this.desired.mode === this.applied.mode) this.desired.mode = reported;
    this.applied.mode = reported;
  }
}
