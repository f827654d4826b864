/**
 * Re-adoption (NAT-07), the pure part: does the native history still continue what Baton holds, and
 * from which native turn on is it new? Turns Baton imported are checked by the recorded boundary
 * digest; turns Baton itself ran on this native session since the last import are checked by the
 * user's text (their events were recorded live, so only the prompt is comparable).
 */
import type { PromptBlock } from "../event/content.ts";
import { boundaryHolds, type HistoryBoundary } from "../harness/history-boundary.ts";
import type { NativeTurn } from "../harness/inspector.ts";
import { displayUserText, stripInjectedContext } from "../projection/index.ts";

/** A turn Baton ran on the adopted native session after the last import. */
export interface BatonTurnView {
  readonly turnId: string;
  readonly userText: string;
  /** True when the turn produced agent text or tool calls. */
  readonly hasOutput: boolean;
  readonly stopReason: string | undefined;
  /** Messages steered into the turn; a harness may record each as a prompt of its own (Claude Code does). */
  readonly steers?: readonly string[];
}

export type ReconcileResult =
  | { readonly kind: "append"; readonly from: number }
  | { readonly kind: "diverged"; readonly reason: string }
  | { readonly kind: "ahead"; readonly reason: string };

export function comparableText(text: string): string {
  return text.normalize("NFC").replace(/\s+/g, " ").trim();
}

export function promptText(prompt: readonly PromptBlock[]): string {
  return comparableText(displayUserText(prompt));
}

function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);
}

/** A Baton turn that never reached the harness (failed before any output) may be missing natively. */
function mayBeMissing(turn: BatonTurnView): boolean {
  return !turn.hasOutput && turn.stopReason !== "end_turn";
}

export function reconcileNative(native: readonly NativeTurn[], recorded: HistoryBoundary | undefined, batonSince: readonly BatonTurnView[]): ReconcileResult {
  const imported = recorded?.turnCount ?? 0;
  if (recorded !== undefined && !boundaryHolds(native, recorded)) {
    return {
      kind: "diverged",
      reason:
        native.length < imported
          ? `the native session now has ${native.length} turns, but Baton imported ${imported}`
          : `the first ${imported} turns of the native session are no longer what Baton imported`,
    };
  }
  let next = imported;
  for (const turn of batonSince) {
    const wanted = comparableText(stripInjectedContext(turn.userText));
    const candidate = native[next];
    if (candidate !== undefined && promptText(candidate.prompt) === wanted) {
      next++;
      for (const steer of turn.steers ?? []) {
        const recorded = native[next];
        if (recorded !== undefined && promptText(recorded.prompt) === comparableText(stripInjectedContext(steer))) next++;
      }
      continue;
    }
    if (mayBeMissing(turn)) continue;
    if (candidate === undefined) {
      return { kind: "ahead", reason: `Baton has a turn (${quote(wanted)}) that the native session does not have` };
    }
    return {
      kind: "diverged",
      reason: `turn ${next + 1} differs: Baton has ${quote(wanted)}, the native session ${quote(promptText(candidate.prompt))}`,
    };
  }
  return { kind: "append", from: next };
}
