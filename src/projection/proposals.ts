/**
 * Proposals (plugins.md §4): `proposed_input` interactions. They are ordinary interactions in the ledger —
 * no side store — so cards, the footer count and dedupe all read the projection.
 */
import type { ProposedInputDraft } from "../event/interaction-types.ts";
import { memoOn } from "./memo.ts";
import type { InteractionItem, ProjectionState } from "./state.ts";
import { loopInteractions } from "./interactions.ts";
import { tableGet, type Table } from "./table.ts";

export type ProposalItem = InteractionItem & { readonly draft: ProposedInputDraft };

export function isProposal(item: InteractionItem): item is ProposalItem {
  return item.draft.type === "proposed_input";
}

const pendingProposalsFrom = memoOn(
  (input: { ids: readonly string[]; interactions: Table<InteractionItem> }) => [input.ids, input.interactions] as const,
  (ids, interactions): readonly ProposalItem[] => {
    const out: ProposalItem[] = [];
    for (const id of ids) {
      const item = tableGet(interactions, id);
      if (item !== undefined && isProposal(item)) out.push(item);
    }
    return out;
  },
);

/** Pending proposals in the order they opened. */
export function selectPendingProposals(state: ProjectionState): readonly ProposalItem[] {
  return pendingProposalsFrom({ ids: state.pendingInteractionIds, interactions: state.interactions });
}

/** The proposal (pending or resolved) holding `dedupeKey`, if any: such a key is never proposed again. */
export function findProposal(state: ProjectionState, dedupeKey: string): ProposalItem | undefined {
  for (const item of loopInteractions(state)) {
    if (isProposal(item) && item.draft.dedupeKey === dedupeKey) return item;
  }
  return undefined;
}

/** A pending proposal by id, else undefined (unknown, resolved, or another kind). */
export function pendingProposal(state: ProjectionState, interactionId: string): ProposalItem | undefined {
  const item = tableGet(state.interactions, interactionId);
  return item !== undefined && item.status === "pending" && isProposal(item) ? item : undefined;
}
