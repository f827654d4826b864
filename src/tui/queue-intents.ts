/**
 * What the keys do to the queue of driven inputs (IN-06, issue 12.1): ↑ on an empty composer takes the latest
 * queued input back into the composer; inputs restored paused after Baton stopped are sent by Enter on an
 * empty composer and dropped (the latest) by Esc when no turn runs. The host owns the draft and the toasts;
 * this file owns the wording.
 */
import type { Controller } from "../controller/controller.ts";
import { isStorageFailure } from "../controller/storage-guard.ts";
import { describeError } from "../shared/errors.ts";
import type { TargetId } from "../shared/ids.ts";

export interface QueueHost {
  readonly controller: Controller;
  /** Put `text` in the composer, talking to `targetId`. */
  editDraft(text: string, targetId: TargetId): void;
  toast(text: string, tone: "info" | "warning"): void;
}

/** “first 40 characters…” of a queued input, for toasts. */
export function quoted(text: string): string {
  return `“${text.length > 40 ? `${text.slice(0, 39)}…` : text}”`;
}

/** ↑: the latest queued input back into the composer (recorded; it will not be sent). */
export function recallQueued(host: QueueHost): void {
  const recalled = host.controller.recall();
  if (recalled === undefined) return;
  host.editDraft(recalled.text, recalled.targetId);
  host.toast(`Recalled queued message ${quoted(recalled.text)}`, "info");
}

/** Enter on an empty composer with a paused queue: send the paused inputs, in their order. */
export function resumePaused(host: QueueHost): void {
  let outcomes: Promise<unknown>[];
  try {
    outcomes = host.controller.resumePaused();
  } catch (error) {
    host.toast(refusalText(host.controller, error), "warning");
    return;
  }
  host.toast(outcomes.length === 1 ? "Sending the paused message" : `Sending ${outcomes.length} paused messages`, "info");
  for (const outcome of outcomes) outcome.catch((error: unknown) => host.toast(refusalText(host.controller, error), "warning"));
}

/**
 * Esc: with no driven turn running and a paused queue, the latest paused input is dropped (recorded, never
 * sent). Returns false when Esc means something else (interrupting the turn).
 */
export function dropPaused(host: QueueHost): boolean {
  if (host.controller.activeDrivenTurn() !== undefined) return false;
  const dropped = host.controller.dropPaused();
  if (dropped === undefined) return false;
  host.toast(`Dropped queued message ${quoted(dropped.text)}`, "info");
  return true;
}

/** Esc (drop the latest paused input, else interrupt the turn), ↑ (recall) and Enter on an empty composer (send the paused). */
export function queueIntent(host: QueueHost, intent: "cancel" | "recall" | "resumeQueue"): void {
  if (intent === "recall") recallQueued(host);
  else if (intent === "resumeQueue") resumePaused(host);
  else if (!dropPaused(host)) host.controller.interrupt();
}

/** How a refused prompt reads: after a failed write was said once on the timeline, just "not sent". */
export function refusalText(controller: Controller, error: unknown): string {
  return controller.storage.failure && isStorageFailure(error) ? "Not sent: this session stopped recording (see above)" : describeError(error);
}
