/**
 * `session/request_permission` ⇄ a Baton permission Interaction. The agent's own options are shown; each one's
 * meaning comes from its **kind** (allow/reject × once/always), never from its id: ids differ across agents and
 * versions (`allow` in claude-agent-acp 0.49, `allow-once` in 0.101, `proceed_once`, `once`, …). An option of a
 * kind Baton does not know is left off the card (its meaning cannot be told), never guessed.
 */
import type { PermissionDraft, PermissionOption as BatonOption, PermissionSubject, InteractionResolution } from "../../event/interaction-types.ts";
import type { PermissionOption, PermissionOptionKind, RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";

export const OPTION_KINDS: Readonly<Record<PermissionOptionKind, Pick<BatonOption, "polarity" | "lifetime">>> = {
  allow_once: { polarity: "allow", lifetime: "once" },
  allow_always: { polarity: "allow", lifetime: "persistent" },
  reject_once: { polarity: "reject", lifetime: "once" },
  reject_always: { polarity: "reject", lifetime: "persistent" },
};

function isKind(kind: unknown): kind is PermissionOptionKind {
  return typeof kind === "string" && Object.hasOwn(OPTION_KINDS, kind);
}

export interface PermissionRequestView {
  readonly toolCallId?: string;
  readonly title?: string | null;
  readonly options: readonly Partial<PermissionOption>[];
  /** The tool call's kind, raw input and locations as sent (what Baton's approval rules judge). */
  readonly kind?: unknown;
  readonly rawInput?: unknown;
  readonly locations?: unknown;
}

/** A shell command (`execute` with a string `rawInput.command`) or the paths an `edit` touches; else nothing to judge. */
export function permissionSubject(request: Pick<PermissionRequestView, "kind" | "rawInput" | "locations">): PermissionSubject | undefined {
  if (request.kind === "execute") {
    const command = typeof request.rawInput === "object" && request.rawInput !== null ? (request.rawInput as Record<string, unknown>)["command"] : undefined;
    return typeof command === "string" && command !== "" ? { kind: "command", command } : undefined;
  }
  if (request.kind === "edit" && Array.isArray(request.locations)) {
    const paths = request.locations.map((l: unknown) => (typeof l === "object" && l !== null ? (l as Record<string, unknown>)["path"] : undefined));
    return paths.length > 0 && paths.every((p): p is string => typeof p === "string" && p !== "") ? { kind: "edit", paths } : undefined;
  }
  return undefined;
}

export interface MappedPermission {
  readonly draft: PermissionDraft;
  /** Options the agent sent whose kind Baton does not know (left off the card). */
  readonly unknownKinds: readonly string[];
}

/** The Interaction draft for a permission request: the agent's options, each with the meaning of its kind. */
export function permissionDraft(request: PermissionRequestView): MappedPermission {
  const options: BatonOption[] = [];
  const unknownKinds: string[] = [];
  for (const option of request.options) {
    if (typeof option.optionId !== "string" || option.optionId === "") continue;
    if (!isKind(option.kind)) {
      unknownKinds.push(String(option.kind));
      continue;
    }
    const name = typeof option.name === "string" && option.name !== "" ? option.name : option.optionId;
    options.push({ optionId: option.optionId, name, ...OPTION_KINDS[option.kind] });
  }
  const title = typeof request.title === "string" && request.title.trim() !== "" ? request.title : "Permission requested";
  const subject = permissionSubject(request);
  return {
    draft: { type: "permission", title, ...(request.toolCallId !== undefined ? { toolCallId: request.toolCallId } : {}), options, ...(subject === undefined ? {} : { subject }) },
    unknownKinds,
  };
}

/** The answer to the agent. A selection names one of the options it sent; anything else is a cancellation. */
export function permissionOutcome(resolution: InteractionResolution, offered: readonly BatonOption[]): RequestPermissionResponse {
  if (resolution.outcome === "selected" && offered.some((option) => option.optionId === resolution.optionId)) {
    return { outcome: { outcome: "selected", optionId: resolution.optionId } };
  }
  return { outcome: { outcome: "cancelled" } };
}
