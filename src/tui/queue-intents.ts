/**
 * What the keys do to the queue of driven inputs (IN-06): ↑ on an empty composer takes the latest queued
 * input back into the composer. The host owns the draft and the toasts; this file owns the wording.
 */
import type { Controller } from "../controller/controller.ts";
import { isStorageFailure } from "../controller/storage-guard.ts";
import { describeError } from "../shared/errors.ts";

export interface QueueHost {
  readonly controller: Controller;
  /** Put `text` in the composer, talking to `targetId`. */
  editDraft(text: string, targetId: string): void;
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

/** How a refused prompt reads: after a failed write was said once on the timeline, just "not sent". */
export function refusalText(controller: Controller, error: unknown): string {
  return controller.storage.failure && isStorageFailure(error) ? "Not sent: this session stopped recording (see above)" : describeError(error);
}
