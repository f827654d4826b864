/**
 * What a user message looks like to people (CTX-04): the `<baton-context>` and `<baton-sync>` blocks Baton
 * put in front of the typed text are stored for audit but stripped from transcript display, previews, input
 * history and turn summaries, so context is never re-injected recursively. Marker-like text the user typed
 * stays (Baton's blocks escape what they carry, see shared/context-markers.ts).
 */
import { textOf, type ContentBlock } from "../event/content.ts";
import { stripLeadingBlocks } from "../shared/context-markers.ts";

export function stripInjectedContext(text: string): string {
  return stripLeadingBlocks(text);
}

/** The visible text of a user message: its text blocks joined, injected context removed. */
export function displayUserText(blocks: readonly ContentBlock[]): string {
  return stripInjectedContext(textOf(blocks));
}
