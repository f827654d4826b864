/**
 * The Input family (architecture §1): stimuli entering Baton. Prompts carry their identity from the
 * moment they are queued (IN-01): the messageId is the input identity, the turnId is fixed then too.
 */
import type { ContextAttachment, PromptBlock } from "../event/content.ts";
import type { InteractionResolution } from "../event/interaction-types.ts";
import type { EventId, MessageId, TargetId, TurnId } from "../shared/ids.ts";

export type InputSource = { readonly type: "user" } | { readonly type: "plugin"; readonly pluginInstanceId: string };

export interface PromptSubmission {
  readonly kind: "prompt";
  readonly source: InputSource;
  readonly targetId: TargetId;
  readonly blocks: readonly PromptBlock[];
  /** What the user typed, before any @-expansion (previews, history). */
  readonly displayText: string;
  /** The proposed plan this prompt implements (linked once admitted). */
  readonly implementsPlan?: string;
  /** The event this prompt came from (a submitted proposal's resolution), stamped on its user_message. */
  readonly parentEventId?: EventId;
  /** Plugin Resources it references, delivered as context snapshots with the turn. */
  readonly context?: readonly ContextAttachment[];
}

export interface InteractionAnswer {
  readonly kind: "interaction";
  readonly interactionId: string;
  readonly resolution: InteractionResolution;
}

/**
 * IN-02: queued → admitted → finalized | interrupted; queued → recalled | dropped; accepted_steer → finalized |
 * interrupted. An input found still queued when a session is opened is `paused` until the user sends
 * (→ queued), edits (→ recalled) or drops it: it is never sent by itself.
 */
export type InputState = "queued" | "paused" | "admitted" | "accepted_steer" | "finalized" | "interrupted" | "recalled" | "dropped";

export type SubmitOutcome = "completed" | "recalled" | "interrupted" | "failed";

export interface PromptInputRecord {
  readonly messageId: MessageId;
  readonly turnId: TurnId;
  readonly submission: PromptSubmission;
  state: InputState;
  readonly delivery: "prompt" | "follow_up";
  /** A control turn (TURN-10 compaction) carries no user message. */
  readonly control?: "compact";
  /**
   * The input waited and its queueing was recorded (`_baton_input_queued` holds its content): its admission
   * refers to that copy instead of storing the prompt again.
   */
  durable?: boolean;
  /** The `_baton_input_queued` event of a durable input: what its admission, recall or drop points at. */
  queuedEventId?: EventId;
}
