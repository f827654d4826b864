/** What `Controller.submit` takes besides the target and the prompt blocks. */
import type { ContextAttachment } from "../event/content.ts";
import type { Provenance } from "./proposals.ts";

export interface SubmitOptions {
  /** What the user typed before @-expansion; defaults to the text of the blocks. */
  readonly displayText?: string;
  /** The proposed plan this prompt implements (`/implement-plan`). */
  readonly implementsPlan?: string;
  /**
   * Parts of the prompt the user did not type: pasted into the composer or read from a pipe. `@session:`
   * references found only there are not expanded (a piped file must not pull another session's history in).
   */
  readonly untyped?: readonly string[];
  /** A submitted proposal's prompt: its messageId and the resolution it links to (never steered). */
  readonly provenance?: Provenance;
  /** Context delivered with the turn as snapshots (a submitted proposal's `contextRefs`), besides what `@` references name. */
  readonly context?: readonly ContextAttachment[];
}
