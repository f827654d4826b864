/**
 * What a session waits for from the user (#20.2), from its projection alone: pending approvals and questions
 * (a turn's, or one outside any turn), pending proposals, and — for a session nobody has open — the card its
 * last turn was waiting on when Baton exited (cancelled by the shutdown, or by recovery after a crash, with no
 * turn after it). The inbox lists sessions by it; nothing here asks a live process.
 */
import type { InteractionDraft } from "../event/interaction-types.ts";
import { assertNever } from "../shared/assert.ts";
import type { InteractionItem, ProjectionState } from "./state.ts";
import { selectPendingInteractions } from "./selectors.ts";
import { tableGet } from "./table.ts";
import { lastSummary } from "./turn-summaries.ts";
import type { TargetId } from "../shared/ids.ts";

export type WaitKind = "approval" | "question" | "suggestion";

export interface WaitItem {
  readonly kind: WaitKind;
  readonly interactionId: string;
  readonly title: string | null;
  readonly turnId: string | null;
  readonly harnessTargetId: TargetId | null;
  readonly openedAt: string;
}

export interface Waiting {
  /** Pending now (in the ledger), in the order they opened. */
  readonly pending: readonly WaitItem[];
  /** The card the last turn waited on when Baton exited (resolved `shutdown` or `recovery`), if nothing ran after it. */
  readonly exitedWhile: WaitItem | undefined;
}

export function waitKindOf(draft: InteractionDraft): WaitKind {
  switch (draft.type) {
    case "proposed_input":
      return "suggestion";
    case "question":
      return "question";
    case "permission":
    case "hook_trust":
      return "approval";
    default:
      return assertNever(draft);
  }
}

function titleOf(draft: InteractionDraft): string | null {
  const title = (draft as { readonly title?: unknown }).title;
  return typeof title === "string" && title !== "" ? title : null;
}

function itemOf(item: InteractionItem): WaitItem {
  return { kind: waitKindOf(item.draft), interactionId: item.interactionId, title: titleOf(item.draft), turnId: item.turnId, harnessTargetId: item.harnessTargetId, openedAt: item.openedAt };
}

/** The newest turn-bound card, if Baton's exit (or recovery from a crash) cancelled it and its turn is the session's last. */
function exitedWhileWaiting(state: ProjectionState): WaitItem | undefined {
  const newest = state.lastTurnCardId === null ? undefined : tableGet(state.interactions, state.lastTurnCardId);
  const resolution = newest?.resolution;
  if (newest === undefined || resolution?.outcome !== "cancelled" || (resolution.reason !== "shutdown" && resolution.reason !== "recovery")) return undefined;
  const last = lastSummary(state);
  if (last !== undefined && last.turnId !== newest.turnId && last.seq > newest.openedSeq) return undefined;
  return itemOf(newest);
}

/** What the session waits for; undefined when nothing. */
export function selectWaiting(state: ProjectionState): Waiting | undefined {
  const pending = selectPendingInteractions(state).map(itemOf);
  const exitedWhile = pending.length === 0 ? exitedWhileWaiting(state) : undefined;
  return pending.length === 0 && exitedWhile === undefined ? undefined : { pending, exitedWhile };
}
