/**
 * What a user message looks like to people (CTX-04): `<baton-context>` expansions and `<baton-sync>`
 * catch-up blocks are stored for audit but stripped from transcript display, previews, input history and
 * turn summaries, so context is never re-injected recursively.
 */
import { textOf, type ContentBlock } from "../event/content.ts";

const INJECTED_BLOCK = /<baton-(context|sync)\b[^>]*>[\s\S]*?<\/baton-\1>[ \t]*(?:\r?\n)*/g;

export function stripInjectedContext(text: string): string {
  if (!text.includes("<baton-")) return text;
  const stripped = text.replace(INJECTED_BLOCK, "");
  return stripped === text ? text : stripped.trim();
}

/** The visible text of a user message: its text blocks joined, injected context removed. */
export function displayUserText(blocks: readonly ContentBlock[]): string {
  return stripInjectedContext(textOf(blocks));
}
