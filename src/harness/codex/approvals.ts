/**
 * Codex server requests → Interaction drafts, and the chosen option → the wire reply (COD-09, IX-07).
 * Options come from `availableDecisions` when present; Baton never invents an "always" option.
 */
import type { InteractionDraft, InteractionResolution, PermissionOption, PermissionSubject } from "../../event/interaction-types.ts";
import type { CommandExecutionRequestApprovalParams } from "./protocol/v2/CommandExecutionRequestApprovalParams";
import type { CommandExecutionRequestApprovalResponse } from "./protocol/v2/CommandExecutionRequestApprovalResponse";
import type { FileChangeRequestApprovalParams } from "./protocol/v2/FileChangeRequestApprovalParams";
import type { FileChangeRequestApprovalResponse } from "./protocol/v2/FileChangeRequestApprovalResponse";
import type { PermissionsRequestApprovalParams } from "./protocol/v2/PermissionsRequestApprovalParams";
import type { PermissionsRequestApprovalResponse } from "./protocol/v2/PermissionsRequestApprovalResponse";
import type { ToolRequestUserInputParams } from "./protocol/v2/ToolRequestUserInputParams";
import type { ToolRequestUserInputResponse } from "./protocol/v2/ToolRequestUserInputResponse";
import type { ExecCommandApprovalParams } from "./protocol/ExecCommandApprovalParams";
import type { ApplyPatchApprovalParams } from "./protocol/ApplyPatchApprovalParams";
import type { ReviewDecision } from "./protocol/ReviewDecision";
import type { FileUpdateChange } from "./protocol/v2/FileUpdateChange";
import { fileChangeBlocks } from "./items.ts";

/** A permission option and the exact wire decision it stands for. */
export interface DecisionChoice<D> {
  readonly option: PermissionOption;
  readonly decision: D;
}

/** The prepared question: what to show, and how to turn the answer into the reply. */
export interface PreparedInteraction<R> {
  readonly draft: InteractionDraft;
  reply(resolution: InteractionResolution): R;
}

type StableDecision = "accept" | "acceptForSession" | "decline" | "cancel";

const STABLE: Readonly<Record<StableDecision, PermissionOption>> = {
  accept: { optionId: "accept", name: "Allow once", polarity: "allow", lifetime: "once" },
  acceptForSession: { optionId: "acceptForSession", name: "Allow for this session", polarity: "allow", lifetime: "session" },
  decline: { optionId: "decline", name: "Deny", polarity: "reject", lifetime: "once" },
  cancel: { optionId: "cancel", name: "Deny and stop the turn", polarity: "reject", lifetime: "once" },
};

export function stableChoices(): DecisionChoice<StableDecision>[] {
  return (Object.keys(STABLE) as StableDecision[]).map((decision) => ({ option: STABLE[decision], decision }));
}

/** A short key for an unrecognized decision's shape (one warning per shape per thread). */
export function decisionShape(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) return `{${Object.keys(value).sort().join(",")}}`;
  return typeof value;
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : undefined;
}

/**
 * IX-07: map `availableDecisions` to options. Unreadable entries are dropped and reported through
 * `onUnrecognized`; an absent field, or nothing mappable, falls back to the four stable options.
 */
export function commandDecisionChoices(available: unknown, onUnrecognized: (shape: string) => void): DecisionChoice<unknown>[] {
  if (!Array.isArray(available)) return stableChoices();
  const out: DecisionChoice<unknown>[] = [];
  available.forEach((entry: unknown, index) => {
    if (typeof entry === "string" && Object.hasOwn(STABLE, entry)) {
      out.push({ option: STABLE[entry as StableDecision], decision: entry });
      return;
    }
    if (typeof entry === "object" && entry !== null) {
      const record = entry as Record<string, unknown>;
      const exec = record["acceptWithExecpolicyAmendment"] as Record<string, unknown> | undefined;
      if (exec !== undefined) {
        const tokens = stringArray(exec?.["execpolicy_amendment"]);
        if (tokens !== undefined && tokens.length > 0) {
          out.push({
            option: { optionId: `acceptWithExecpolicyAmendment:${index}`, name: `Allow and remember: ${tokens.join(" ")}`, polarity: "allow", lifetime: "persistent" },
            decision: entry,
          });
          return;
        }
      }
      const network = record["applyNetworkPolicyAmendment"] as Record<string, unknown> | undefined;
      if (network !== undefined) {
        const amendment = network?.["network_policy_amendment"] as Record<string, unknown> | undefined;
        const host = amendment?.["host"];
        const action = amendment?.["action"];
        if (typeof host === "string" && (action === "allow" || action === "deny")) {
          out.push({
            option: {
              optionId: `applyNetworkPolicyAmendment:${index}`,
              name: `${action === "allow" ? "Allow" : "Deny"} and remember: ${host}`,
              polarity: action === "allow" ? "allow" : "reject",
              lifetime: "persistent",
            },
            decision: entry,
          });
          return;
        }
      }
    }
    onUnrecognized(decisionShape(entry));
  });
  return out.length > 0 ? out : stableChoices();
}

/** The paths a file change touches (a move touches both ends), for Baton's approval rules. */
function editSubject(changes: readonly FileUpdateChange[]): PermissionSubject {
  const paths = changes.flatMap((c) => (c.kind.type === "update" && typeof c.kind.move_path === "string" ? [c.path, c.kind.move_path] : [c.path]));
  return { kind: "edit", paths };
}

/** An argv as one shell line (each word single-quoted unless it is plainly safe), so the rules read the same words. */
function shellLine(argv: readonly string[]): string {
  return argv.map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(" ");
}

/** The wire decision for a resolution: the chosen option's, `decline` for an unknown option, `cancel` when cancelled. */
export function decisionFor<D>(choices: readonly DecisionChoice<D>[], resolution: InteractionResolution, decline: D, cancel: D): D {
  if (resolution.outcome === "cancelled") return cancel;
  if (resolution.outcome !== "selected") return decline;
  return choices.find((c) => c.option.optionId === resolution.optionId)?.decision ?? decline;
}

export function commandApproval(
  params: CommandExecutionRequestApprovalParams,
  onUnrecognized: (shape: string) => void,
): PreparedInteraction<CommandExecutionRequestApprovalResponse> {
  const choices = commandDecisionChoices(params.availableDecisions, onUnrecognized);
  const lines = [params.command ?? "(command not shown by codex)"];
  if (params.cwd) lines.push(`in ${params.cwd}`);
  if (params.reason) lines.push(`Reason: ${params.reason}`);
  return {
    draft: {
      type: "permission",
      title: "Run command?",
      description: lines.join("\n"),
      toolCallId: params.itemId,
      options: choices.map((c) => c.option),
      // What Baton's approval rules judge: the line Codex would run (often `/bin/bash -lc '<script>'`).
      ...(typeof params.command === "string" && params.command !== "" ? { subject: { kind: "command" as const, command: params.command } } : {}),
    },
    reply: (resolution) => ({ decision: decisionFor(choices, resolution, "decline", "cancel") as CommandExecutionRequestApprovalResponse["decision"] }),
  };
}

/** The card for a fileChange item: its paths, and the diffs Codex sent with the item (shown before the decision). */
export function fileChangeApproval(params: FileChangeRequestApprovalParams, changes: readonly FileUpdateChange[]): PreparedInteraction<FileChangeRequestApprovalResponse> {
  const choices = stableChoices();
  const lines: string[] = [];
  if (changes.length > 0) lines.push(changes.map((c) => c.path).join("\n"));
  if (params.reason) lines.push(`Reason: ${params.reason}`);
  if (params.grantRoot) lines.push(`Grants writes under: ${params.grantRoot}`);
  return {
    draft: {
      type: "permission",
      title: "Apply file changes?",
      ...(lines.length > 0 ? { description: lines.join("\n") } : {}),
      toolCallId: params.itemId,
      ...(changes.length > 0 ? { diffs: fileChangeBlocks(changes), subject: editSubject(changes) } : {}),
      options: choices.map((c) => c.option),
    },
    reply: (resolution) => ({ decision: decisionFor<StableDecision>(choices, resolution, "decline", "cancel") }),
  };
}

export function permissionsApproval(params: PermissionsRequestApprovalParams): PreparedInteraction<PermissionsRequestApprovalResponse> {
  const granted: PermissionsRequestApprovalResponse["permissions"] = {};
  if (params.permissions.network !== null) granted.network = params.permissions.network;
  if (params.permissions.fileSystem !== null) granted.fileSystem = params.permissions.fileSystem;
  const options: PermissionOption[] = [
    { optionId: "turn", name: "Allow for this turn", polarity: "allow", lifetime: "once" },
    { optionId: "session", name: "Allow for this session", polarity: "allow", lifetime: "session" },
    { optionId: "deny", name: "Deny", polarity: "reject", lifetime: "once" },
  ];
  const lines = [JSON.stringify(params.permissions)];
  if (params.reason) lines.unshift(`Reason: ${params.reason}`);
  return {
    draft: { type: "permission", title: "Codex requests permission", description: lines.join("\n"), toolCallId: params.itemId, options },
    reply: (resolution) => {
      if (resolution.outcome === "selected" && (resolution.optionId === "turn" || resolution.optionId === "session")) {
        return { permissions: granted, scope: resolution.optionId };
      }
      return { permissions: {}, scope: "turn" };
    },
  };
}

export function userInputQuestion(params: ToolRequestUserInputParams): PreparedInteraction<ToolRequestUserInputResponse> {
  return {
    draft: {
      type: "question",
      toolCallId: params.itemId,
      questions: params.questions.map((q) => ({
        questionId: q.id,
        header: q.header,
        question: q.question,
        ...(q.options !== null ? { options: q.options.map((o) => ({ label: o.label, description: o.description })) } : {}),
        allowOther: q.isOther,
        secret: q.isSecret,
      })),
    },
    reply: (resolution) => {
      if (resolution.outcome !== "answered") return { answers: {} };
      const answers: ToolRequestUserInputResponse["answers"] = {};
      for (const [questionId, values] of Object.entries(resolution.answers)) answers[questionId] = { answers: values };
      return { answers };
    },
  };
}

const LEGACY: DecisionChoice<ReviewDecision>[] = [
  { option: STABLE.accept, decision: "approved" },
  { option: STABLE.acceptForSession, decision: "approved_for_session" },
  { option: STABLE.decline, decision: { denied: { rejection: "denied by the user" } } },
  { option: STABLE.cancel, decision: "abort" },
];

export function legacyExecApproval(params: ExecCommandApprovalParams): PreparedInteraction<{ decision: ReviewDecision }> {
  const lines = [params.command.join(" "), `in ${params.cwd}`];
  if (params.reason) lines.push(`Reason: ${params.reason}`);
  return {
    draft: { type: "permission", title: "Run command?", description: lines.join("\n"), toolCallId: params.callId, options: LEGACY.map((c) => c.option), subject: { kind: "command", command: shellLine(params.command) } },
    reply: (resolution) => ({ decision: decisionFor(LEGACY, resolution, { denied: { rejection: "denied by the user" } }, "abort") }),
  };
}

/** The legacy patch request's changes in the v2 shape, so both show the same diffs. */
function legacyChanges(fileChanges: ApplyPatchApprovalParams["fileChanges"]): FileUpdateChange[] {
  const out: FileUpdateChange[] = [];
  for (const [path, change] of Object.entries(fileChanges)) {
    if (change === undefined) continue;
    if (change.type === "update") out.push({ path, kind: { type: "update", move_path: change.move_path }, diff: change.unified_diff });
    else out.push({ path, kind: { type: change.type }, diff: change.content });
  }
  return out;
}

export function legacyPatchApproval(params: ApplyPatchApprovalParams): PreparedInteraction<{ decision: ReviewDecision }> {
  const lines = [Object.keys(params.fileChanges).join("\n")];
  if (params.reason) lines.push(`Reason: ${params.reason}`);
  const changes = legacyChanges(params.fileChanges);
  return {
    draft: {
      type: "permission",
      title: "Apply file changes?",
      description: lines.join("\n"),
      toolCallId: params.callId,
      ...(changes.length > 0 ? { diffs: fileChangeBlocks(changes), subject: editSubject(changes) } : {}),
      options: LEGACY.map((c) => c.option),
    },
    reply: (resolution) => ({ decision: decisionFor(LEGACY, resolution, { denied: { rejection: "denied by the user" } }, "abort") }),
  };
}
