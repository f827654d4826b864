import type { InteractionResponse } from "./types.ts";

/** Everything the view reports upward. The caller decides what each intent means. */
export type ChatIntent =
  /** `pasted`: what was pasted into the draft since it was last empty (the rest was typed). */
  | { readonly type: "submit"; readonly text: string; readonly pasted?: readonly string[] }
  | { readonly type: "command"; readonly name: string; readonly args: string }
  /** Esc with nothing else to close. */
  | { readonly type: "cancel" }
  | { readonly type: "cycleMode" }
  | { readonly type: "exit" }
  /** Ctrl+C once: the draft was cleared (`cleared`) or was already empty; a second press within 1.5 s exits. */
  | { readonly type: "clearDraft"; readonly cleared: boolean }
  /** ↑ on an empty composer while inputs are queued: the latest queued input. */
  | { readonly type: "recall"; readonly id: string }
  /** Enter on an empty composer while queued inputs are paused: send them. */
  | { readonly type: "resumeQueue" }
  | { readonly type: "resolveInteraction"; readonly id: string; readonly response: InteractionResponse }
  | { readonly type: "pickerSelect"; readonly id: string; readonly itemId: string }
  | { readonly type: "pickerCancel"; readonly id: string }
  | { readonly type: "pickerQuery"; readonly id: string; readonly query: string }
  /** Esc on the sidecar overlay. */
  | { readonly type: "dismissSidecar" }
  /** A `composer.draft` with mode "ifEmpty" arrived while the user had a draft. */
  | { readonly type: "draftRejected"; readonly id: string }
  /**
   * The view needs history the host has not mapped (`timeline.older` > 0): at least `items` timeline items
   * (PageUp at the top), or without `items` one more window of them (↑ reaching the oldest prompt it has).
   */
  | { readonly type: "loadEarlier"; readonly items?: number };

export type ChatIntentType = ChatIntent["type"];

export type IntentHandler = (intent: ChatIntent) => void;
