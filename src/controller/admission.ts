/**
 * Admission (IN-03, TURN-10): the user message (none for a control turn) and `running` are appended the
 * moment an input is dequeued — before the harness is even open — then the link to a plan it implements.
 * Provenance (ATT-01): the user message of an input that waited points at its queueing; the event that
 * admitted the turn is kept on the turn record for the attempt's events to point at.
 */
import type { ContextAttachment, PromptBlock } from "../event/content.ts";
import type { PromptInputRecord, PromptSubmission } from "../input/input.ts";
import type { EventId, IdSource, MessageId, TargetId } from "../shared/ids.ts";
import type { AppendFn } from "./pipeline.ts";
import type { TurnRecord } from "./turn-record.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

export function appendAdmission(append: AppendFn, turn: TurnRecord, record: PromptInputRecord, admitted: (record: PromptInputRecord) => EventId | undefined): void {
  if (!turn.compact) {
    // A prompt that waited was stored when it was queued: its user message refers to that copy by messageId.
    const message = append({
      kind: "user_message",
      payload: { messageId: record.messageId, ...(record.durable ? {} : { content: [...record.submission.blocks] }), delivery: record.delivery },
      source: { type: "user" },
      // Its queueing if it waited (that event points at the proposal it came from), else where it came from.
      ...(record.queuedEventId !== undefined ? { parentEventId: record.queuedEventId } : record.submission.parentEventId !== undefined ? { parentEventId: record.submission.parentEventId } : {}),
      turnId: turn.turnId,
      harnessTargetId: turn.targetId,
    });
    turn.admissionEventId = message.eventId;
    turn.firstSeq = message.seq;
  } else {
    const admission = admitted(record);
    if (admission !== undefined) turn.admissionEventId = admission;
  }
  const running = append({
    kind: "state_update",
    payload: { state: "running" },
    source: BATON_SOURCE,
    ...(turn.admissionEventId !== undefined ? { parentEventId: turn.admissionEventId } : {}),
    turnId: turn.turnId,
    harnessTargetId: turn.targetId,
  });
  turn.admissionEventId ??= running.eventId;
  const planId = record.submission.implementsPlan;
  if (planId) {
    append({
      kind: "proposed_plan_implementation_started",
      payload: { planId, implementationTurnId: turn.turnId },
      source: { type: "user" },
      turnId: turn.turnId,
      harnessTargetId: turn.targetId,
    });
  }
}

/** A prompt input with its identity fixed now (IN-01): its messageId and the turnId it will run as. */
export function promptRecord(ids: IdSource, submission: PromptSubmission, delivery: "prompt" | "follow_up", messageId?: MessageId): PromptInputRecord {
  return { messageId: messageId ?? ids.mint("message"), turnId: ids.mint("turn"), submission, state: "queued", delivery };
}

/** A compaction control turn's input (TURN-10): no user message, just a turn. */
export function compactRecord(ids: IdSource, targetId: TargetId): PromptInputRecord {
  const submission: PromptSubmission = { kind: "prompt", source: { type: "user" }, targetId, blocks: [], displayText: "/compact" };
  return { ...promptRecord(ids, submission, "prompt"), control: "compact" };
}

export function promptSubmission(targetId: TargetId, blocks: readonly PromptBlock[], displayText: string, implementsPlan?: string, context: readonly ContextAttachment[] = []): PromptSubmission {
  return { kind: "prompt", source: { type: "user" }, targetId, blocks, displayText, ...(implementsPlan ? { implementsPlan } : {}), ...(context.length > 0 ? { context } : {}) };
}

/** What the user gets back of an input taken out of the queue (recalled or dropped). */
export function inputView(record: PromptInputRecord | undefined): { text: string; targetId: TargetId } | undefined {
  return record ? { text: record.submission.displayText, targetId: record.submission.targetId } : undefined;
}
