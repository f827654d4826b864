/**
 * `/rewind` (issue 19): pick a turn → the diff between now and that turn's file checkpoint, shown with the
 * unified diff view → confirm → the files are restored and the screen moves to the new (forked) session.
 * Refused when a file changed outside any agent turn since; the message names it. Idle only.
 */
import { describeError } from "../shared/errors.ts";
import type { PickerItem, Tone } from "chat-tui";
import type { LocalDraft } from "./local-draft.ts";
import type { RewindPreviewView, SessionOpenChoice, TuiSession } from "./session-port.ts";

/** What the flow needs of the TUI host (a port, so the flow does not import the host that calls it). */
export interface RewindHost {
  readonly session: Pick<TuiSession, "rewind" | "sessionId">;
  isBusy(): boolean;
  toast(text: string, tone?: Tone, ms?: number): void;
  openPicker(title: string, select: (itemId: string) => void, items?: readonly PickerItem[]): unknown;
  addLocal(item: LocalDraft): void;
  switchSession(choice: SessionOpenChoice): Promise<void>;
}

const BUSY = "Wait for the current turn to finish (Esc interrupts it) before rewinding";
const CONFIRM = "rewind";
const CANCEL = "cancel";

export function startRewind(host: RewindHost): void {
  const rewind = host.session.rewind;
  if (rewind === undefined) {
    host.toast("Rewind is not available for this session", "warning");
    return;
  }
  if (host.isBusy()) {
    host.toast(BUSY, "warning");
    return;
  }
  const points = rewind.points();
  if (points.length === 0) {
    host.toast("Nothing to rewind to yet: a file checkpoint is taken before each turn (in a git worktree)", "info", 6000);
    return;
  }
  host.openPicker(
    "Rewind the files and the conversation to…",
    (pointId) => void showPreview(host, pointId),
    points.map((point) => ({ id: point.id, label: point.label, detail: point.detail })),
  );
}

async function showPreview(host: RewindHost, pointId: string): Promise<void> {
  const rewind = host.session.rewind;
  if (rewind === undefined) return;
  const sessionId = host.session.sessionId;
  host.toast("Comparing the files with that checkpoint…", "info");
  let preview: RewindPreviewView;
  try {
    preview = await rewind.preview(pointId);
  } catch (error) {
    host.toast(describeError(error), "error");
    return;
  }
  if (host.session.sessionId !== sessionId) return;
  if (preview.refused !== undefined) {
    host.addLocal({ kind: "error", message: `Rewind refused: ${preview.refused}` });
    return;
  }
  const count = preview.files.length;
  host.addLocal({
    kind: "tool",
    title: `Rewind ${preview.label}: ${count === 0 ? "no file changes" : `${count} file${count === 1 ? "" : "s"} would change`}`,
    status: "pending",
    content: preview.files.map((file) => ({ type: "diff" as const, op: file.op, path: file.path, patch: file.patch })),
  });
  host.openPicker(`Rewind ${preview.label}?`, (choice) => void (choice === CONFIRM ? perform(host, preview) : host.toast("Rewind cancelled; nothing changed", "info")), [
    { id: CONFIRM, label: count === 0 ? "Rewind the conversation (no file changes)" : `Rewind: restore ${count} file${count === 1 ? "" : "s"} and continue in a new session`, detail: "the current session is kept as it is" },
    { id: CANCEL, label: "Cancel", detail: "change nothing" },
  ]);
}

async function perform(host: RewindHost, preview: RewindPreviewView): Promise<void> {
  const rewind = host.session.rewind;
  if (rewind === undefined) return;
  if (host.isBusy()) {
    host.toast(BUSY, "warning");
    return;
  }
  let done: { newSessionId: string; summary: string };
  try {
    done = await rewind.perform(preview);
  } catch (error) {
    host.toast(describeError(error), "error");
    return;
  }
  await host.switchSession({ kind: "id", id: done.newSessionId });
  host.toast(done.summary, "success", 8000);
}
