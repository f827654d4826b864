/**
 * What the keys do to a suggestion card (TUI-09, plugins.md §4): Enter sends it as it is, `e` loads it into an
 * empty composer (the card hides while the user edits; the next message sent — to whichever target the user
 * picked — is the suggestion), `t` opens a picker of the configured targets (the choice shows on the card and
 * is where Enter, or `e`'s composer, sends it), Esc dismisses it for good. Whenever a send fails, its text goes
 * back into the composer: nothing is lost.
 */
import type { Controller } from "../controller/controller.ts";
import { pendingProposal, type ProposalItem } from "../projection/index.ts";
import { describeError } from "../shared/errors.ts";
import { SUGGESTION_EDIT, SUGGESTION_SEND, SUGGESTION_TARGET, type InteractionResponse, type PickerItem } from "chat-tui";
import { targetIdOf, type TargetId } from "../shared/ids.ts";

export const CLEAR_COMPOSER_FIRST = "Clear the composer before using this suggestion";

export interface ProposalHost {
  readonly controller: Controller;
  /** The composer's current target. */
  readonly target: TargetId;
  /** Put `text` in the composer (only if it is empty, when `ifEmpty`), talking to `targetId`; returns the draft id. */
  editDraft(text: string, targetId: TargetId, mode?: "ifEmpty"): string;
  toast(text: string, tone: "info" | "warning" | "error"): void;
  publish(): void;
  /** Open the host's picker; `select` runs with the chosen item's id. */
  openPicker(title: string, select: (itemId: string) => void, items?: readonly PickerItem[]): unknown;
}

export const PICK_TARGET_TITLE = "Send the suggestion to";

export class ProposalEditor {
  private editing: { readonly interactionId: string; readonly draftId: string } | undefined;
  private chosen: ReadonlyMap<string, TargetId> = new Map();

  constructor(private readonly host: ProposalHost) {}

  /** The card hidden while its text is in the composer. */
  get hidden(): string | undefined {
    return this.editing?.interactionId;
  }

  /** Targets the user picked with `t`, by interaction id (a new map on every change). */
  get targets(): ReadonlyMap<string, TargetId> {
    return this.chosen;
  }

  async respond(item: ProposalItem, response: InteractionResponse): Promise<void> {
    const { controller } = this.host;
    const wanted = this.chosen.get(item.interactionId) ?? item.draft.targetId;
    if (response.outcome === "selected" && response.optionId === SUGGESTION_SEND) {
      return this.send(item.interactionId, item.draft.text, wanted ?? this.host.target, item.draft.text);
    }
    if (response.outcome === "selected" && response.optionId === SUGGESTION_TARGET) return this.pickTarget(item.interactionId, wanted ?? this.host.target);
    if (response.outcome === "selected" && response.optionId === SUGGESTION_EDIT) {
      const targetId = wanted !== undefined && controller.targets().has(wanted) ? wanted : this.host.target;
      this.editing = { interactionId: item.interactionId, draftId: this.host.editDraft(item.draft.text, targetId, "ifEmpty") };
      this.host.publish();
      return;
    }
    try {
      controller.proposals.dismiss(item.interactionId);
    } catch (error) {
      this.host.toast(describeError(error), "warning");
    }
    this.host.publish();
  }

  /** A message sent while a suggestion is being edited is that suggestion (edited, to the chosen target). */
  takeSubmit(targetId: TargetId, text: string): boolean {
    const editing = this.editing;
    if (editing === undefined) return false;
    this.editing = undefined;
    if (pendingProposal(this.host.controller.state, editing.interactionId) === undefined) return false;
    void this.send(editing.interactionId, text, targetId, text);
    return true;
  }

  /** The composer refused the text (the user has a draft): the card comes back. */
  rejected(draftId: string): boolean {
    if (this.editing?.draftId !== draftId) return false;
    this.editing = undefined;
    this.host.toast(CLEAR_COMPOSER_FIRST, "warning");
    return true;
  }

  /** The user cleared the composer while editing: the card comes back. */
  cancelEdit(): void {
    if (this.editing === undefined) return;
    this.editing = undefined;
    this.host.publish();
  }

  reset(): void {
    this.editing = undefined;
    this.chosen = new Map();
  }

  /** The configured targets, the current one marked; the choice is kept for this card only. */
  private pickTarget(interactionId: string, current: string): void {
    const items: PickerItem[] = this.host.controller
      .targets()
      .list()
      .map((t) => ({ id: t.id, label: t.label, ...(t.label === t.id ? {} : { detail: `/${t.id}` }), ...(t.id === current ? { current: true } : {}) }));
    this.host.openPicker(PICK_TARGET_TITLE, (targetId) => {
      if (pendingProposal(this.host.controller.state, interactionId) === undefined) return;
      this.chosen = new Map([...this.chosen, [interactionId, targetIdOf(targetId)]]);
      this.host.publish();
    }, items);
  }

  private async send(interactionId: string, text: string, targetId: string, restore: string): Promise<void> {
    const { controller } = this.host;
    if (this.chosen.has(interactionId)) this.chosen = new Map([...this.chosen].filter(([id]) => id !== interactionId));
    const submitted = controller.proposals.submit(interactionId, { text, targetId });
    this.host.publish();
    try {
      await submitted;
    } catch (error) {
      this.host.toast(describeError(error), "error");
      // Still pending (the target was refused): editing it again; already resolved: the text as a plain draft.
      const draftId = this.host.editDraft(restore, this.host.target);
      if (pendingProposal(controller.state, interactionId) !== undefined) this.editing = { interactionId, draftId };
    }
    this.host.publish();
  }
}
