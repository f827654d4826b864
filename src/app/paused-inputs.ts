/**
 * What the line-oriented surfaces say about inputs restored paused after Baton stopped (issue 12.1): they
 * are listed, never sent by themselves. `repl`: an empty line sends them, `/edit` takes the latest back,
 * `/drop` drops the latest. `exec` runs only its own prompt and says how to deal with them.
 */
import type { Controller } from "../controller/controller.ts";

const PREVIEW = 60;

function preview(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > PREVIEW ? `${line.slice(0, PREVIEW - 1)}…` : line.length < text.length ? `${line} …` : line;
}

export function pausedOf(controller: Controller): { text: string; targetId: string }[] {
  return controller.queued().filter((q) => q.paused).map((q) => ({ text: q.text, targetId: q.targetId }));
}

/** The repl's listing (empty when nothing is paused). */
export function pausedListing(controller: Controller): string {
  const paused = pausedOf(controller);
  if (paused.length === 0) return "";
  const lines = paused.map((q, index) => `  ${index + 1}) → ${q.targetId}: ${preview(q.text)}\n`).join("");
  return `paused after recovery: ${paused.length} queued prompt${paused.length === 1 ? " was" : "s were"} not sent\n${lines}an empty line sends ${paused.length === 1 ? "it" : "them"}, /edit takes the latest back, /drop drops the latest\n`;
}

/** exec's one line (undefined when nothing is paused): they stay queued for the next interactive run. */
export function pausedNote(controller: Controller, sessionId: string): string | undefined {
  const count = pausedOf(controller).length;
  if (count === 0) return undefined;
  const what = count === 1 ? "1 prompt queued before Baton stopped is" : `${count} prompts queued before Baton stopped are`;
  return `${what} paused and not sent; open the session to send or drop ${count === 1 ? "it" : "them"}: baton -s ${sessionId}`;
}

/** A repl line about the paused queue, handled here (true), or an ordinary line (false). */
export async function pausedCommand(controller: Controller, line: string, write: (text: string) => void): Promise<boolean> {
  if (pausedOf(controller).length === 0) return false;
  if (line === "") {
    const outcomes = await Promise.allSettled(controller.resumePaused());
    write(`— paused prompts sent (${outcomes.map((o) => (o.status === "fulfilled" ? o.value : "failed")).join(", ")})\n`);
    return true;
  }
  if (line === "/edit") {
    const recalled = controller.recall();
    if (recalled) write(`taken back, not sent (→ ${recalled.targetId}):\n${recalled.text}\n`);
    return true;
  }
  if (line === "/drop") {
    const dropped = controller.dropPaused();
    if (dropped) write(`dropped: ${preview(dropped.text)}\n`);
    return true;
  }
  return false;
}
