/**
 * The activity (run status) line (TUI-05): one row per active turn, `<model[ · effort]> · <label>` with its
 * start time (the view ticks the elapsed timer) and "Esc to interrupt" for the driven turn; `<model> · idle`
 * when nothing runs; an optional info row (plan mode, context use, delegated approvals).
 */
import type { Activity, ActivityTurn, ContextUsage } from "../projection/index.ts";
import type { ActivityItem } from "chat-tui";
import type { LookFn } from "./map-transcript.ts";
import type { TargetId } from "../shared/ids.ts";

/** What the TUI knows about a target's session config (projection snapshot plus local changes). */
export interface TargetSettings {
  readonly model?: string;
  readonly effort?: string;
  readonly mode?: string;
}

export interface ActivityInput {
  readonly target: TargetId;
  readonly lookOf: LookFn;
  readonly settingsOf: (targetId: TargetId) => TargetSettings;
  readonly contextUsageOf: (targetId: TargetId) => ContextUsage | undefined;
  /** True when the target's adapter reports that approvals are routed to a reviewer. */
  readonly delegated?: boolean;
}

const TOOL_LABELS: Readonly<Record<string, string>> = {
  read: "reading…",
  edit: "editing…",
  delete: "deleting…",
  move: "moving…",
  search: "searching…",
  execute: "running command…",
  think: "thinking…",
  fetch: "fetching…",
};

export function phaseLabel(turn: ActivityTurn): string {
  if (turn.phaseTitle !== null && turn.phaseTitle !== "") return turn.phaseTitle;
  if (turn.retrying) return "retrying…";
  if (turn.state === "requires_action") return "waiting for you…";
  const tool = turn.activeTool;
  if (tool !== null) {
    const known = tool.kind === null ? undefined : TOOL_LABELS[tool.kind];
    if (known !== undefined) return known;
    const prefix = (tool.title ?? "").trim().split(/\s+/).slice(0, 3).join(" ").slice(0, 24);
    if (prefix !== "") return `${prefix}…`;
  }
  // Answer text streaming is not thinking (#11.15); thoughts, silence and anything else are.
  return turn.streaming === "answer" ? "responding…" : "thinking…";
}

const isSet = (value: string | undefined): value is string => value !== undefined && value !== "" && value !== "default";

/** The model shown for a target: an explicit choice, else the model the harness reported ("" when unknown). */
export function modelLabel(input: ActivityInput, targetId: TargetId): string {
  const settings = input.settingsOf(targetId);
  const parts: string[] = [];
  const reported = input.contextUsageOf(targetId)?.model;
  if (isSet(settings.model)) parts.push(settings.model);
  else if (isSet(reported)) parts.push(reported);
  if (isSet(settings.effort)) parts.push(settings.effort);
  return parts.join(" · ");
}

const withModel = (model: string, label: string): string => (model === "" ? label : `${model} · ${label}`);

export function compactNumber(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

function infoRow(input: ActivityInput): string {
  const parts: string[] = [];
  const settings = input.settingsOf(input.target);
  if (settings.mode === "plan") parts.push("plan mode");
  const usage = input.contextUsageOf(input.target);
  const sameModel = usage?.model === undefined || !isSet(settings.model) || usage.model.includes(settings.model);
  if (usage?.contextUsed !== undefined && usage.contextSize !== undefined && usage.contextSize > 0 && sameModel) {
    const pct = Math.round((usage.contextUsed / usage.contextSize) * 100);
    parts.push(`context ${compactNumber(usage.contextUsed)}/${compactNumber(usage.contextSize)} (${pct}%)`);
  }
  if (input.delegated === true) parts.push("approvals:auto-review");
  return parts.join(" · ");
}

export function mapActivity(activity: Activity, input: ActivityInput): ActivityItem[] {
  const rows: ActivityItem[] = [];
  for (const turn of activity.turns) {
    const targetId = turn.harnessTargetId ?? input.target;
    const look = input.lookOf(targetId);
    const observed = turn.role === "observed";
    const startedAt = Date.parse(turn.startedAt);
    rows.push({
      id: turn.turnId,
      author: look.author,
      authorKey: look.id,
      label: withModel(modelLabel(input, targetId), `${phaseLabel(turn)}${observed ? " · background" : ""}`),
      ...(Number.isFinite(startedAt) ? { startedAt } : {}),
      ...(observed ? {} : { hint: "Esc to interrupt" }),
    });
  }
  if (rows.length === 0) {
    const look = input.lookOf(input.target);
    rows.push({ id: "idle", author: look.author, authorKey: look.id, label: withModel(modelLabel(input, input.target), "idle") });
  }
  const info = infoRow(input);
  if (info !== "") rows.push({ id: "info", label: info });
  return rows;
}
