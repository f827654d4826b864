/**
 * Proposals (plugins.md §4, TUI-09): a requester — Baton itself (limit failover) or a plugin instance — may only
 * *suggest* the next input. The suggestion is a `proposed_input` interaction with no turn (it blocks nothing);
 * it becomes an ordinary prompt only when the user submits it, and then takes the typed prompt's path.
 *
 * - open: deduplicated by `dedupeKey` against everything the projection holds, pending or resolved (a
 *   dismissed proposal never returns, on replay too).
 * - submit: the resolution `{submitted, messageId}` is appended (and synced) first, then the prompt is
 *   submitted with `user_message.parentEventId` = that resolution's eventId. The text and target may be the
 *   user's edit. A target that cannot be resolved appends a notice and throws, the proposal stays pending
 *   (the caller puts the text back in the composer: nothing is lost).
 * - dismiss: `{dismissed}`, permanent. withdraw: `{cancelled, reason: requester}`.
 */
import { BATON_SOURCE, type EventSource } from "../event/envelope.ts";
import type { ProposedInputDraft } from "../event/interaction-types.ts";
import type { SubmitOutcome } from "../input/input.ts";
import { findProposal, pendingProposal, selectPendingProposals, type ProjectionState, type ProposalItem } from "../projection/index.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import type { EventId, IdSource, InteractionId, MessageId, TargetId } from "../shared/ids.ts";
import type { AppendFn } from "./pipeline.ts";

/** Who suggests: Baton itself or a plugin instance (never a harness: an agent's output is not a suggestion). */
export type ProposalRequester = { readonly type: "baton" } | { readonly type: "plugin"; readonly pluginInstanceId: string };

/** What a requester hands in; `dedupeKey` is its identity (e.g. plugins.md's sha256 over resource and text). */
export interface ProposalRequest {
  readonly text: string;
  readonly dedupeKey: string;
  readonly title?: string;
  /** A name as the requester gives it: resolved against the configured targets when the proposal is sent. */
  readonly targetId?: string;
  readonly contextRefs?: readonly { readonly name: string }[];
  readonly pluginContext?: Readonly<Record<string, unknown>>;
}

/** What the user chose on the card: edited text and another target, or the proposal as it is. */
export interface ProposalChoice {
  readonly text?: string;
  /** Resolved like a typed target reference (an id, an alias, a unique prefix). */
  readonly targetId?: string;
}

/** The prompt a submitted proposal becomes is linked to its resolution. */
export interface Provenance {
  readonly messageId: MessageId;
  readonly parentEventId: EventId;
}

export interface ProposalDeps {
  readonly append: AppendFn;
  readonly sync: () => Promise<void>;
  readonly state: () => ProjectionState;
  readonly ids: IdSource;
  /** Resolve a target reference to its id; throws (`target_unknown`…) when it cannot. */
  readonly resolveTarget: (ref: string) => TargetId;
  /** Submit an ordinary prompt carrying its provenance. */
  readonly submit: (targetId: TargetId, text: string, provenance: Provenance) => Promise<SubmitOutcome>;
}

export interface OpenedProposal {
  readonly interactionId: InteractionId;
  /** False when a proposal with that dedupeKey already existed (nothing was appended). */
  readonly created: boolean;
}

function sourceOf(requester: ProposalRequester): EventSource {
  return requester.type === "baton" ? BATON_SOURCE : { type: "plugin", pluginInstanceId: requester.pluginInstanceId };
}

export function openProposal(deps: ProposalDeps, requester: ProposalRequester, request: ProposalRequest): OpenedProposal {
  const existing = findProposal(deps.state(), request.dedupeKey);
  if (existing !== undefined) return { interactionId: existing.interactionId, created: false };
  const interactionId = deps.ids.mint("interaction");
  const { contextRefs, pluginContext, ...rest } = request;
  const draft: ProposedInputDraft = {
    type: "proposed_input",
    ...rest,
    ...(contextRefs === undefined ? {} : { contextRefs: contextRefs.map((ref) => ({ ...ref })) }),
    ...(pluginContext === undefined ? {} : { pluginContext: { ...pluginContext } }),
  };
  deps.append({ kind: "interaction.opened", payload: { interactionId, requester, draft }, source: sourceOf(requester) });
  return { interactionId, created: true };
}

function pendingOrThrow(deps: ProposalDeps, interactionId: string): ProposalItem {
  const item = pendingProposal(deps.state(), interactionId);
  if (item === undefined) throw new BatonError("not_pending", `suggestion ${interactionId} is no longer pending`);
  return item;
}

export async function submitProposal(deps: ProposalDeps, interactionId: string, choice: ProposalChoice = {}): Promise<SubmitOutcome> {
  const item = pendingOrThrow(deps, interactionId);
  const text = choice.text ?? item.draft.text;
  if (text.trim() === "") throw new BatonError("usage", "The suggestion is empty; nothing was sent");
  const ref = choice.targetId ?? item.draft.targetId;
  let targetId: TargetId;
  try {
    if (ref === undefined) throw new BatonError("target_unknown", "the suggestion names no target; pick one");
    targetId = deps.resolveTarget(ref);
  } catch (error) {
    deps.append({
      kind: "_baton_notice",
      payload: { level: "warning", title: "The suggestion was not sent; its text is back in the composer", detail: describeError(error) },
      source: BATON_SOURCE,
    });
    throw error;
  }
  const messageId = deps.ids.mint("message");
  const edited = text !== item.draft.text;
  const resolved = deps.append({
    kind: "interaction.resolved",
    payload: { interactionId, resolution: { outcome: "submitted", messageId, targetId, ...(edited ? { edited: true } : {}) } },
    source: { type: "user" },
  });
  await deps.sync();
  return deps.submit(targetId, text, { messageId, parentEventId: resolved.eventId });
}

export function dismissProposal(deps: ProposalDeps, interactionId: string): void {
  pendingOrThrow(deps, interactionId);
  deps.append({ kind: "interaction.resolved", payload: { interactionId, resolution: { outcome: "dismissed" } }, source: { type: "user" } });
}

/** The requester takes its suggestion back (its basis moved on): resolved `cancelled {requester}`. */
export function withdrawProposal(deps: ProposalDeps, interactionId: string): boolean {
  const item = pendingProposal(deps.state(), interactionId);
  if (item === undefined) return false;
  const requester = item.requester.type === "plugin" ? ({ type: "plugin", pluginInstanceId: item.requester.pluginInstanceId } as const) : ({ type: "baton" } as const);
  deps.append({ kind: "interaction.resolved", payload: { interactionId, resolution: { outcome: "cancelled", reason: "requester" } }, source: sourceOf(requester) });
  return true;
}

/** The Controller's proposal desk: the one way proposals are opened, submitted, dismissed and withdrawn. */
export class Proposals {
  constructor(private readonly deps: ProposalDeps) {}

  /** Open a suggestion (deduplicated by its key); it shows as a card and never makes the session require action. */
  open(requester: ProposalRequester, request: ProposalRequest): OpenedProposal {
    return openProposal(this.deps, requester, request);
  }

  /** Send it (as is, or the user's edit / target); resolves with the prompt's outcome. */
  submit(interactionId: string, choice?: ProposalChoice): Promise<SubmitOutcome> {
    return submitProposal(this.deps, interactionId, choice);
  }

  dismiss(interactionId: string): void {
    dismissProposal(this.deps, interactionId);
  }

  withdraw(interactionId: string): boolean {
    return withdrawProposal(this.deps, interactionId);
  }

  pending(): readonly ProposalItem[] {
    return selectPendingProposals(this.deps.state());
  }
}
