/**
 * Admission (IN-03, TURN-10): the user message (none for a control turn) and `running` are appended the
 * moment an input is dequeued — before the harness is even open — then the link to a plan it implements.
 */
import type { PromptInputRecord } from "../input/input.ts";
import type { AppendFn } from "./pipeline.ts";
import type { TurnRecord } from "./turn-record.ts";

export function appendAdmission(append: AppendFn, turn: TurnRecord, record: PromptInputRecord): void {
  if (!turn.compact) {
    append({
      kind: "user_message",
      payload: { messageId: record.messageId, content: [...record.submission.blocks], delivery: record.delivery },
      source: { type: "user" },
      turnId: turn.turnId,
      harnessTargetId: turn.targetId,
    });
  }
  append({
    kind: "state_update",
    payload: { state: "running" },
    source: { type: "baton" },
    turnId: turn.turnId,
    harnessTargetId: turn.targetId,
  });
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
