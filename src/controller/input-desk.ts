/**
 * The durable side of the driven-input queue (issue 12.1, seed kernel §7 "Input family"): a prompt that has
 * to wait is recorded the moment it is queued (`_baton_input_queued`, its one stored copy), its admission is
 * its user message (which refers to that copy), and leaving the queue otherwise is recorded too (recalled,
 * dropped, a control turn admitted). What a previous process left queued comes back paused — shown, never
 * sent by itself — until the user sends, edits or drops it.
 */
import type { PromptBlock } from "../event/content.ts";
import type { PromptInputRecord, SubmitOutcome } from "../input/input.ts";
import type { InputQueue } from "../input/queue.ts";
import type { InputExit } from "../event/kinds.ts";
import type { ProjectionState } from "../projection/index.ts";
import type { EventId } from "../shared/ids.ts";
import type { AppendFn } from "./pipeline.ts";

/** The text of prompt blocks, the way `submit` derives a display text when none is given. */
function textOf(blocks: readonly PromptBlock[]): string {
  return blocks.map((block) => (block.type === "text" ? block.text : "")).join("");
}

export class InputDesk {
  constructor(private readonly deps: { readonly append: AppendFn; readonly queue: InputQueue }) {}

  /** Queue `record`. One that has to wait (`waits`) is on disk before this returns; a failed write refuses it. */
  enqueue(record: PromptInputRecord, waits: boolean): Promise<SubmitOutcome> {
    if (waits) {
      const { submission } = record;
      const queued = this.deps.append({
        kind: "_baton_input_queued",
        payload: {
          messageId: record.messageId,
          turnId: record.turnId,
          targetId: submission.targetId,
          content: [...submission.blocks],
          // what the user typed, when it differs from the prompt (@-mentions expanded); else the content says it
          ...(submission.displayText !== textOf(submission.blocks) ? { displayText: submission.displayText } : {}),
          ...(submission.implementsPlan ? { implementsPlan: submission.implementsPlan } : {}),
          ...(record.control ? { control: record.control } : {}),
          // The context it carries is part of what was queued: a restored paused input sends it too.
          ...(submission.context !== undefined && submission.context.length > 0 ? { context: submission.context.map((c) => ({ token: c.token, source: { ...c.source }, text: c.text })) } : {}),
        },
        source: submission.source.type === "plugin" ? { type: "plugin", pluginInstanceId: submission.source.pluginInstanceId } : { type: "user" },
        harnessTargetId: submission.targetId,
        ...(submission.parentEventId === undefined ? {} : { parentEventId: submission.parentEventId }),
      });
      record.durable = true;
      record.queuedEventId = queued.eventId;
    }
    return this.deps.queue.enqueue(record);
  }

  /** IN-06: the latest input that has not started goes back to the composer. */
  recall(): PromptInputRecord | undefined {
    return this.leave(this.deps.queue.recallLatest(), "recalled");
  }

  /** The latest paused input is dropped (Esc on a paused queue). */
  dropPaused(): PromptInputRecord | undefined {
    return this.leave(this.deps.queue.dropLatestPaused(), "dropped");
  }

  /** A control input (no user message) that waited: its admission is recorded explicitly (a failure throws). */
  admitted(record: PromptInputRecord): EventId | undefined {
    return record.durable && record.control ? this.exit(record, "admitted") : undefined;
  }

  /** Inputs the ledger still shows queued (a previous process stopped first): paused, in their order. */
  restore(state: ProjectionState): number {
    const records = state.queuedInputs.map(
      (input): PromptInputRecord => ({
        messageId: input.messageId,
        turnId: input.turnId,
        submission: {
          kind: "prompt",
          source: { type: "user" },
          targetId: input.targetId,
          blocks: input.content,
          displayText: input.displayText ?? textOf(input.content),
          ...(input.implementsPlan !== null ? { implementsPlan: input.implementsPlan } : {}),
          ...(input.context.length > 0 ? { context: input.context } : {}),
        },
        state: "paused",
        delivery: input.control === null ? "follow_up" : "prompt",
        ...(input.control !== null ? { control: input.control } : {}),
        durable: true,
        ...(input.eventId !== null ? { queuedEventId: input.eventId } : {}),
      }),
    );
    this.deps.queue.restorePaused(records);
    return records.length;
  }

  /** The user sends the paused inputs (Enter): they join the queue first; one promise per input. */
  resume(): Promise<SubmitOutcome>[] {
    return this.deps.queue.resumePaused();
  }

  /** A failed write here has already stopped the session (the storage guard said so): the text stays with the user. */
  private leave(record: PromptInputRecord | undefined, how: "recalled" | "dropped"): PromptInputRecord | undefined {
    try {
      if (record?.durable) this.exit(record, how);
    } catch {
      // reported by the storage guard; reopening shows the input paused again rather than losing it
    }
    return record;
  }

  private exit(record: PromptInputRecord, state: InputExit): EventId {
    return this.deps.append({
      kind: "_baton_input_update",
      payload: { messageId: record.messageId, state },
      source: { type: "user" },
      ...(record.queuedEventId !== undefined ? { parentEventId: record.queuedEventId } : {}),
      harnessTargetId: record.submission.targetId,
    }).eventId;
  }
}
