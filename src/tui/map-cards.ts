/**
 * Interaction cards (TUI-07): pending interactions become approval / question cards with their Esc result,
 * and what the user picked becomes the controller's InteractionResolution (TUI-08).
 */
import type { InteractionDraft, InteractionResolution, PermissionOption as DraftOption } from "../projection/index.ts";
import { selectPluginBinding, type InteractionItem, type ProjectionState } from "../projection/index.ts";
import type { InteractionCard, InteractionResponse, PermissionOption, Question } from "chat-tui";
import { assertNever } from "../shared/assert.ts";
import { diffParts } from "./map-tools.ts";
import type { TargetLook } from "./targets.ts";

export const HOOK_TRUST = "trust";
export const HOOK_SKIP = "skip";

function optionHint(option: DraftOption): string | undefined {
  if (option.polarity === "allow" && option.lifetime === "session") return "for this session";
  if (option.lifetime === "persistent") return option.polarity === "allow" ? "always" : "never";
  return undefined;
}

function permissionOptions(options: readonly DraftOption[]): PermissionOption[] {
  return options.map((option) => {
    const hint = optionHint(option);
    return { id: option.optionId, label: option.name, ...(hint === undefined || option.name.toLowerCase().includes(hint) ? {} : { hint }) };
  });
}

function questionsOf(draft: Extract<InteractionDraft, { type: "question" }>): Question[] {
  return draft.questions.map((q) => ({
    id: q.questionId,
    ...(q.header === "" ? {} : { header: q.header }),
    question: q.question,
    options: (q.options ?? []).map((o, index) => ({
      id: String(index),
      label: o.label,
      ...(o.description === undefined ? {} : { description: o.description }),
    })),
    ...(q.multiSelect === true ? { multiSelect: true } : {}),
    ...(q.allowOther !== false || (q.options ?? []).length === 0 ? { allowOther: true } : {}),
  }));
}

/** A single question with a `role: "reject"` option answers with that option on Esc. */
function questionEsc(draft: Extract<InteractionDraft, { type: "question" }>): InteractionResponse | undefined {
  const [only, ...rest] = draft.questions;
  if (only === undefined || rest.length > 0) return undefined;
  const index = (only.options ?? []).findIndex((o) => o.role === "reject");
  if (index < 0) return undefined;
  return { outcome: "answered", answers: { [only.questionId]: { selected: [String(index)] } } };
}

/** "Suggested by <requester>": Baton itself, or the plugin (by its id once its binding is known). */
export function requesterLabel(state: ProjectionState, item: InteractionItem): string {
  const requester = item.requester;
  if (requester.type === "plugin") {
    const binding = selectPluginBinding(state, requester.pluginInstanceId);
    return binding?.pluginId ?? requester.pluginInstanceId;
  }
  return requester.type === "baton" ? "baton" : requester.harnessTargetId;
}

/**
 * The dock's cards: what blocks a turn first (approvals, questions), suggestions after them, each group in
 * the order it opened; a suggestion names the target it goes to when it names one (or the user picked one:
 * `chosen`, interaction id → target id).
 */
export function mapCards(
  state: ProjectionState,
  pending: readonly InteractionItem[],
  lookOf: (targetId: string | null) => TargetLook,
  chosen: ReadonlyMap<string, string> = new Map(),
): InteractionCard[] {
  const blocking = pending.filter((item) => item.draft.type !== "proposed_input");
  const suggestions = pending.filter((item) => item.draft.type === "proposed_input");
  return [...blocking, ...suggestions].map((item) => {
    const requester = requesterLabel(state, item);
    const card = mapInteraction(item, lookOf(item.requester.type === "harness" ? item.harnessTargetId : requester), requester);
    if (card.kind !== "suggestion" || item.draft.type !== "proposed_input") return card;
    const targetId = chosen.get(item.interactionId) ?? item.draft.targetId;
    return targetId === undefined ? card : { ...card, target: lookOf(targetId).label };
  });
}

export function mapInteraction(item: InteractionItem, look: TargetLook, requester = look.author): InteractionCard {
  const draft = item.draft;
  const base = { id: item.interactionId, author: look.author, authorKey: look.id };
  switch (draft.type) {
    case "permission": {
      const diffs = (draft.diffs ?? []).flatMap(diffParts);
      return {
        ...base,
        kind: "permission",
        title: draft.title,
        ...(draft.description === undefined ? {} : { description: draft.description }),
        ...(diffs.length === 0 ? {} : { diffs }),
        options: permissionOptions(draft.options),
      };
    }
    case "question": {
      const esc = questionEsc(draft);
      // A plugin's question (PIX-01) names who asks; it blocks no turn.
      const title = item.requester.type === "plugin" ? `Question from ${requester}` : "Question";
      return { ...base, kind: "question", title, questions: questionsOf(draft), ...(esc === undefined ? {} : { escResponse: esc }) };
    }
    case "hook_trust": {
      const n = draft.hooks.length;
      return {
        ...base,
        kind: "permission",
        title: `Trust ${n} ${draft.harnessName} hook${n === 1 ? "" : "s"}?`,
        description: draft.hooks.map((hook) => `${hook.source}: ${hook.command}`).join("\n"),
        options: [
          { id: HOOK_TRUST, label: "Trust current definitions (ask again if changed)" },
          { id: HOOK_SKIP, label: `Continue without ${draft.harnessName} hooks` },
        ],
        escResponse: { outcome: "selected", optionId: HOOK_SKIP },
        escLabel: "skip",
      };
    }
    case "proposed_input":
      return { ...base, kind: "suggestion", title: draft.title ?? "Suggested follow-up", text: draft.text, requester, escLabel: "dismiss" };
    default:
      return assertNever(draft, "interaction draft");
  }
}

/** The user's answer on a card → the resolution the controller records. */
export function resolutionFor(draft: InteractionDraft, response: InteractionResponse): InteractionResolution {
  if (response.outcome === "cancelled") {
    return draft.type === "hook_trust" ? { outcome: "skipped" } : { outcome: "cancelled", reason: "user" };
  }
  if (draft.type === "hook_trust") {
    return response.outcome === "selected" && response.optionId === HOOK_TRUST ? { outcome: "trusted" } : { outcome: "skipped" };
  }
  if (response.outcome === "selected") return { outcome: "selected", optionId: response.optionId };
  const answers: Record<string, string[]> = {};
  const questions = draft.type === "question" ? draft.questions : [];
  for (const [questionId, answer] of Object.entries(response.answers)) {
    const options = questions.find((q) => q.questionId === questionId)?.options ?? [];
    const labels = answer.selected.map((id) => options[Number(id)]?.label ?? id);
    if (answer.other !== undefined && answer.other !== "") labels.push(answer.other);
    answers[questionId] = labels;
  }
  return { outcome: "answered", answers };
}
