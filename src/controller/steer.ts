/**
 * Steering (IN-05): a prompt for the target of the active driven turn goes to that turn when the harness
 * takes it; a rejection or failure degrades to exactly one queued follow-up.
 */
import type { PromptInputRecord, SubmitOutcome } from "../input/input.ts";
import type { InputQueue } from "../input/queue.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import type { IdSource, TargetId } from "../shared/ids.ts";
import type { HarnessBinding } from "./binding.ts";
import type { AppendFn } from "./pipeline.ts";
import type { TurnRecord } from "./turn-record.ts";

export interface SteerDeps {
  readonly driven: TurnRecord | undefined;
  readonly bindings: { get(targetId: TargetId): HarnessBinding | undefined };
  readonly ids: IdSource;
  readonly append: AppendFn;
  readonly queue: InputQueue;
  /** With `turnId` the notice is about that turn only (the TUI drops it when the turn ends). */
  readonly notify: (level: "info" | "warning", text: string, turnId?: string) => void;
}

/** IN-05 preconditions: nothing queued, an active driven prompt turn of the same target, harness ready. */
export function canSteer(deps: SteerDeps, targetId: TargetId): boolean {
  const active = deps.driven;
  if (deps.queue.length > 0 || !active || !active.input || active.compact || active.finalized || active.phase !== "dispatched") return false;
  return active.targetId === targetId && deps.bindings.get(targetId)?.handle !== undefined;
}

/** Resolves the steer's outcome when it was accepted; undefined means "queue it". */
export async function trySteer(deps: SteerDeps, submission: PromptInputRecord["submission"]): Promise<SubmitOutcome | undefined> {
  const active = deps.driven;
  const binding = deps.bindings.get(submission.targetId);
  if (!canSteer(deps, submission.targetId) || !active || !binding?.handle) return undefined;
  const messageId = deps.ids.mint("message");
  let reason: string;
  try {
    const result = await binding.adapter.sendTurn(binding.handle, { turnId: active.turnId, messageId, blocks: submission.blocks });
    if (result.accepted && result.effective === "steer") {
      deps.append({
        kind: "user_message",
        payload: { messageId, content: [...submission.blocks], delivery: "steer" },
        source: { type: "user" },
        ...(active.admissionEventId !== undefined ? { parentEventId: active.admissionEventId } : {}),
        turnId: active.turnId,
        harnessTargetId: submission.targetId,
      });
      // The turn may have ended while the harness was taking the steer: it shares that turn's fate (IN-07).
      if (active.finalized) return "interrupted";
      active.steers.push(messageId);
      // About this turn only: the hint goes when the turn ends (#11.15).
      deps.notify("info", `steering ${submission.targetId} — applies at the next safe point`, active.turnId);
      const record: PromptInputRecord = { messageId, turnId: active.turnId, submission, state: "accepted_steer", delivery: "prompt" };
      return await deps.queue.attach(record);
    }
    if (result.accepted) {
      throw new BatonError("contract_violation", `${submission.targetId} started a new turn while one was active`);
    }
    reason = result.reason ?? "the harness cannot take it mid-turn";
  } catch (error) {
    if (error instanceof BatonError && error.code === "contract_violation") throw error;
    reason = describeError(error);
  }
  deps.notify("info", `queued as a follow-up (${reason})`);
  return undefined;
}
