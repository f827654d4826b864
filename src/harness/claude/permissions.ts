/**
 * `canUseTool` → Baton interactions (CLA-07, IX-06). Ordinary tools become permission cards whose options come from
 * the SDK (an "always" option only when it offers a persistent or session suggestion); AskUserQuestion becomes a
 * question answered through `updatedInput.answers`; ExitPlanMode asks whether to implement the captured plan.
 */
import type { CanUseTool, PermissionResult, PermissionUpdate } from "@anthropic-ai/claude-agent-sdk";
import type { AskUserQuestionInput } from "@anthropic-ai/claude-agent-sdk/sdk-tools";
import type { InteractionContext, InteractionHandler } from "../contract.ts";
import type { DiffBlock } from "../../event/content.ts";
import type { InteractionResolution, PermissionOption, PermissionSubject, Question } from "../../event/interaction-types.ts";
import type { TurnId } from "../../shared/ids.ts";
import type { Logger } from "../../shared/log.ts";
import { describeTool, WRITE_TOOLS } from "./tools.ts";

export interface PermissionDeps {
  readonly interactions: InteractionHandler;
  readonly cwd: string;
  readonly log: Logger;
  /** The Baton turn this request belongs to (the active turn, or a fresh observed one). */
  turnFor(): TurnId;
  sessionId(): string | undefined;
  /** The permission mode Claude Code is in right now. */
  mode(): string;
  planOf(toolUseId: string): string | undefined;
  onDeclined(toolUseId: string): void;
}

type CanUseToolOptions = Parameters<CanUseTool>[2];
type Input = Record<string, unknown>;

export const DECLINED_MESSAGE = "The user declined this tool call.";
export const PLAN_MODE_MESSAGE =
  "Plan mode is active: do not change files or run commands yet. Present your plan with ExitPlanMode and wait for the user.";
export const KEEP_PLANNING_MESSAGE = "The user wants to keep planning. Stop here and wait for the user's feedback before doing anything else.";
export const DISMISSED_MESSAGE = "The user dismissed the question without answering.";

const PERSISTENT_DESTINATIONS = new Set(["userSettings", "projectSettings", "localSettings"]);
const DESTINATION_LABEL: Readonly<Record<string, string>> = {
  userSettings: "saved to user settings",
  projectSettings: "saved to project settings",
  localSettings: "saved to local project settings",
  session: "for this session",
  cliArg: "for this session",
};

function describeSuggestion(update: PermissionUpdate): string {
  switch (update.type) {
    case "addRules":
    case "replaceRules":
      return `${update.behavior} ${update.rules.map((r) => (r.ruleContent ? `${r.toolName}(${r.ruleContent})` : r.toolName)).join(", ")}`;
    case "removeRules":
      return `stop ${update.behavior === "allow" ? "allowing" : "denying"} ${update.rules.map((r) => r.toolName).join(", ")}`;
    case "setMode":
      return `switch to ${update.mode} mode`;
    case "addDirectories":
      return `allow access to ${update.directories.join(", ")}`;
    case "removeDirectories":
      return `remove access to ${update.directories.join(", ")}`;
  }
}

/** The "always" option for the SDK's suggestions, named with exactly what it grants (IX-06). */
export function alwaysOption(suggestions: readonly PermissionUpdate[]): PermissionOption {
  const parts = suggestions.map((s) => `${describeSuggestion(s)} (${DESTINATION_LABEL[s.destination] ?? s.destination})`);
  const persistent = suggestions.some((s) => PERSISTENT_DESTINATIONS.has(s.destination));
  const name = `Always: ${parts.join("; ")}`;
  return { optionId: "allowAlways", name: name.charAt(0).toUpperCase() + name.slice(1), polarity: "allow", lifetime: persistent ? "persistent" : "session" };
}

export function permissionOptions(options: Pick<CanUseToolOptions, "suggestions" | "suppressAlwaysAllowRule">): PermissionOption[] {
  const out: PermissionOption[] = [{ optionId: "allow", name: "Allow once", polarity: "allow", lifetime: "once" }];
  const suggestions = options.suggestions ?? [];
  if (suggestions.length > 0 && options.suppressAlwaysAllowRule !== true) out.push(alwaysOption(suggestions));
  out.push({ optionId: "deny", name: "Deny", polarity: "reject", lifetime: "once" });
  return out;
}

export function questionsOf(input: Input): Question[] {
  const questions = (input as Partial<AskUserQuestionInput>).questions ?? [];
  return questions.map((q, index) => ({
    questionId: `q${index}`,
    header: q.header,
    question: q.question,
    options: q.options.map((o) => ({ label: o.label, ...(o.description ? { description: o.description } : {}), ...(o.preview ? { preview: o.preview } : {}) })),
    multiSelect: q.multiSelect === true,
    allowOther: true,
  }));
}

/** Answers keyed by question id → `updatedInput.answers` keyed by question text, values joined by ", ". */
export function answersFor(input: Input, answers: Readonly<Record<string, readonly string[]>>): Record<string, string> {
  const out: Record<string, string> = {};
  questionsOf(input).forEach((q) => {
    const values = answers[q.questionId];
    if (values && values.length > 0) out[q.question] = values.join(", ");
  });
  return out;
}

function rawOf(toolName: string, input: Input, options: CanUseToolOptions): unknown {
  const { signal: _signal, ...rest } = options;
  return { toolName, input, options: rest };
}

/** What Baton's approval rules judge: Bash's command line, or the file a write tool changes. */
export function subjectOf(toolName: string, input: Input): { subject?: PermissionSubject } {
  if (toolName === "Bash") return typeof input["command"] === "string" && input["command"] !== "" ? { subject: { kind: "command", command: input["command"] } } : {};
  const file = input["file_path"] ?? input["notebook_path"];
  return WRITE_TOOLS.has(toolName) && typeof file === "string" && file !== "" ? { subject: { kind: "edit", paths: [file] } } : {};
}

export function createCanUseTool(deps: PermissionDeps): CanUseTool {
  const ask = (draft: Parameters<InteractionHandler["request"]>[0], toolName: string, input: Input, options: CanUseToolOptions): Promise<InteractionResolution> => {
    const sessionId = deps.sessionId();
    const context: InteractionContext = {
      turnId: deps.turnFor(),
      signal: options.signal,
      raw: rawOf(toolName, input, options),
      ...(sessionId !== undefined ? { harnessSessionId: sessionId } : {}),
    };
    return deps.interactions.request(draft, context);
  };
  const deny = (toolUseId: string, message: string): PermissionResult => {
    deps.onDeclined(toolUseId);
    return { behavior: "deny", message, toolUseID: toolUseId, decisionClassification: "user_reject" };
  };

  return async (toolName, input, options) => {
    const id = options.toolUseID;
    if (toolName === "AskUserQuestion") {
      const resolution = await ask({ type: "question", toolCallId: id, questions: questionsOf(input) }, toolName, input, options);
      if (resolution.outcome !== "answered") return deny(id, DISMISSED_MESSAGE);
      return { behavior: "allow", updatedInput: { ...input, answers: answersFor(input, resolution.answers) }, toolUseID: id };
    }
    if (toolName === "ExitPlanMode") {
      const plan = deps.planOf(id) ?? (typeof input["plan"] === "string" ? input["plan"] : undefined);
      const resolution = await ask(
        {
          type: "permission",
          title: "Claude has finished planning. Implement the plan?",
          ...(plan !== undefined ? { description: plan } : {}),
          toolCallId: id,
          options: [
            { optionId: "implement", name: "Yes, implement the plan", polarity: "allow", lifetime: "once" },
            { optionId: "keep_planning", name: "No, keep planning", polarity: "reject", lifetime: "once" },
          ],
        },
        toolName,
        input,
        options,
      );
      if (resolution.outcome === "selected" && resolution.optionId === "implement") {
        return { behavior: "allow", updatedInput: input, toolUseID: id };
      }
      return deny(id, KEEP_PLANNING_MESSAGE);
    }
    if (deps.mode() === "plan" && WRITE_TOOLS.has(toolName)) return deny(id, PLAN_MODE_MESSAGE);

    const view = describeTool(toolName, input, deps.cwd);
    const label = options.displayName ?? toolName;
    const title = options.title ?? (view.title && view.title !== label ? `${label}: ${view.title}` : label);
    const description = options.description ?? options.decisionReason;
    const diffs = (view.content ?? []).filter((block): block is DiffBlock => block.type === "diff");
    const resolution = await ask(
      {
        type: "permission",
        title,
        ...(description ? { description } : {}),
        toolCallId: id,
        // A file change shows what it would change before the decision (#11.9).
        ...(diffs.length > 0 ? { diffs } : {}),
        options: permissionOptions(options),
        ...subjectOf(toolName, input),
      },
      toolName,
      input,
      options,
    );
    if (resolution.outcome === "selected" && resolution.optionId === "allow") {
      return { behavior: "allow", updatedInput: input, toolUseID: id, decisionClassification: "user_temporary" };
    }
    if (resolution.outcome === "selected" && resolution.optionId === "allowAlways" && options.suggestions?.length) {
      return { behavior: "allow", updatedInput: input, updatedPermissions: options.suggestions, toolUseID: id, decisionClassification: "user_permanent" };
    }
    if (resolution.outcome === "selected" && resolution.optionId !== "deny") {
      deps.log.log("warn", `unknown permission option '${resolution.optionId}', declining`);
    }
    return deny(id, DECLINED_MESSAGE);
  };
}
