/**
 * The resources test-watch keeps, and the pure decisions over them.
 *
 * - `TestWatch/project` (one per session): which turns were seen, the command the user gave, the last run,
 *   the failure signatures already proposed. Its Board item is the "Tests: …" line.
 * - `TestFailure/f-<signature>` (owned by the TestWatch): one failure being proposed. Its reconcile returns
 *   the proposal; it never changes after it is made, so the proposal is the same on every reconcile (Baton
 *   dedupes it); deleting it (a pass, another failure) withdraws a pending proposal.
 */
import type { JsonValue, ResourceRef, ResourceType } from "baton-plugin";
import type { BoardPresentation, TurnSummary } from "./loop-api.ts";
import type { RunOn } from "./settings.ts";

export const GROUP = "testwatch.baton.dev/v1alpha1";
export const WATCH_TYPE: ResourceType = { apiVersion: GROUP, kind: "TestWatch" };
export const FAILURE_TYPE: ResourceType = { apiVersion: GROUP, kind: "TestFailure" };
export const WATCH_NAME = "project";
export const WATCH_REF: ResourceRef = { ...WATCH_TYPE, name: WATCH_NAME };
export const QUESTION_KEY = "test-command";
export const DECLINE_OPTION = "Don't run tests in this project";
/** How many proposed signatures are remembered. */
export const REMEMBERED_SIGNATURES = 50;

const EDIT_KINDS = new Set(["edit", "delete", "move"]);
const UNDONE = new Set(["failed", "declined"]);

/** What asked for a run: an editing turn (its target gets the proposal), or `/tests run`. */
export interface Trigger {
  readonly reason: "edit" | "turn" | "manual" | "resume";
  readonly turnId: string | null;
  readonly targetId: string | null;
}

export type RunState = "running" | "passed" | "failed" | "error";

export interface RunStatus {
  readonly id: string;
  readonly state: RunState;
  readonly command: string;
  readonly startedAt: string;
  readonly trigger: Trigger;
  readonly durationMs?: number;
  readonly exitCode?: number;
  readonly failing?: number;
  readonly passed?: number;
  readonly signature?: string;
  readonly firstFailure?: string;
  readonly error?: string;
  readonly truncated?: boolean;
  /** Set once the reconcile acted on the result (proposed, withdrew). */
  readonly settled?: boolean;
}

export interface WatchStatus {
  /** The highest turn revision looked at. */
  readonly seenRevision?: number;
  /** A run waiting for a command (the question is open). */
  readonly pending?: Trigger;
  /** What the user answered to the question (`declined`: do not run here). */
  readonly answer?: { readonly command: string } | { readonly declined: true };
  /** `/tests run` asked at this time. */
  readonly requestedAt?: string;
  readonly run?: RunStatus;
  readonly proposed?: readonly string[];
}

export interface FailureSpec {
  readonly signature: string;
  readonly command: string;
  readonly exitCode: number | null;
  readonly failing: number | null;
  readonly turnId: string | null;
  readonly targetId: string | null;
  readonly failureLines: readonly string[];
  /** The end of the output (capped), delivered as the proposal's context. */
  readonly output: string;
  readonly truncated: boolean;
}

export function asWatchStatus(status: unknown): WatchStatus {
  return typeof status === "object" && status !== null ? (status as WatchStatus) : {};
}

/** Did this turn ask for a run? `edits`: it changed files (edit/delete/move tools that did not fail). */
export function turnTriggers(turn: TurnSummary, runOn: RunOn): boolean {
  if (runOn === "every-turn") return true;
  return turn.toolCalls.some((t) => EDIT_KINDS.has(t.kind) && !UNDONE.has(t.status));
}

/** The newest triggering turn after `seen`, and the newest revision (to remember). */
export function newTrigger(turns: readonly TurnSummary[], seen: number | undefined, runOn: RunOn): { trigger: Trigger | undefined; latest: number | undefined } {
  const latest = turns.reduce<number | undefined>((max, t) => (max === undefined || t.revision > max ? t.revision : max), undefined);
  // The first look (just enabled): start watching from now, history does not trigger.
  if (seen === undefined) return { trigger: undefined, latest: latest ?? 0 };
  const fresh = turns.filter((t) => t.revision > seen && turnTriggers(t, runOn));
  const last = fresh.at(-1);
  return {
    trigger: last === undefined ? undefined : { reason: runOn === "edits" ? "edit" : "turn", turnId: last.turnId, targetId: last.harnessTargetId },
    latest,
  };
}

/** The newest turn's target, for a run nobody's edit asked for (its proposal goes there). */
export function latestTarget(turns: readonly TurnSummary[]): string | null {
  return turns.at(-1)?.harnessTargetId ?? null;
}

/** A run status as a status patch: every key present (null deletes), since a merge patch keeps old keys. */
export function runPatch(run: RunStatus): Record<string, JsonValue> {
  return {
    id: run.id,
    state: run.state,
    command: run.command,
    startedAt: run.startedAt,
    trigger: { reason: run.trigger.reason, turnId: run.trigger.turnId, targetId: run.trigger.targetId },
    durationMs: run.durationMs ?? null,
    exitCode: run.exitCode ?? null,
    failing: run.failing ?? null,
    passed: run.passed ?? null,
    signature: run.signature ?? null,
    firstFailure: run.firstFailure ?? null,
    error: run.error ?? null,
    truncated: run.truncated ?? null,
    settled: run.settled ?? null,
  };
}

export function failureName(signature: string): string {
  return `f-${signature}`;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The Board line: "Tests: passing ✓ 12.3 s", "Tests: 3 failing", running, error, no command. */
export function presentWatch(status: WatchStatus, command: string | undefined, problems: readonly string[]): BoardPresentation {
  const run = status.run;
  const title = "Tests";
  if (run === undefined) {
    if (command === undefined) {
      const declined = status.answer !== undefined && "declined" in status.answer;
      return { title, status: "no test command", tone: "warning", detail: declined ? "You chose not to run tests here; set `command` in plugin.yaml to start." : "Set `command` in plugin.yaml, add a `test` script, or answer the question." };
    }
    return { title, status: "waiting for an edit", tone: "muted", detail: problems[0] ?? `\`${command}\` runs after a turn that edits files` };
  }
  switch (run.state) {
    case "running":
      return { title, status: "running…", tone: "muted", detail: `\`${run.command}\`` };
    case "passed":
      return { title, status: `passing ✓ ${seconds(run.durationMs ?? 0)}`, tone: "success", ...(problems[0] === undefined ? {} : { detail: problems[0] }) };
    case "failed":
      return {
        title,
        status: run.failing === undefined ? `failing (exit ${run.exitCode ?? "?"})` : `${run.failing} failing`,
        tone: "error",
        priority: 10,
        ...(run.firstFailure === undefined ? {} : { detail: run.firstFailure }),
      };
    case "error":
      return { title, status: "error", tone: "error", priority: 10, detail: run.error ?? "the test command did not finish" };
  }
}

/** The end of the output shown in the proposal itself (its context carries more). */
export const PROPOSAL_OUTPUT_LINES = 60;
export const PROPOSAL_OUTPUT_BYTES = 6 * 1024;

function outputEnd(output: string): string {
  let lines = output.trimEnd().split("\n").slice(-PROPOSAL_OUTPUT_LINES);
  while (lines.length > 1 && Buffer.byteLength(lines.join("\n")) > PROPOSAL_OUTPUT_BYTES) lines = lines.slice(1);
  // A fence inside the output would close the block early.
  return lines.join("\n").replaceAll("```", "ˋˋˋ");
}

/** The proposal: what failed, the failing lines and the end of the output (the context carries more). */
export function proposalText(spec: FailureSpec): string {
  const what = spec.failing === null ? "fail" : `fail (${spec.failing} failing)`;
  const exit = spec.exitCode === null ? "" : `, exit ${spec.exitCode}`;
  const lines = spec.failureLines.slice(0, 20).map((l) => `    ${l.trim()}`);
  const end = outputEnd(spec.output);
  return [
    `The tests ${what} after your last change (\`${spec.command}\`${exit}):`,
    "",
    ...lines,
    ...(spec.failureLines.length > 20 ? [`    … ${spec.failureLines.length - 20} more`] : []),
    ...(end === "" ? [] : ["", "The end of the output:", "```", end, "```"]),
    "",
    `Fix the failing tests, then run \`${spec.command}\` to check.`,
  ].join("\n");
}
