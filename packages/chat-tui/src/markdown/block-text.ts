/**
 * A markdown block updated in place draws the text a new block draws (#18).
 *
 * OpenTUI 0.5.8's `<markdown>` (coalesced block mode) gives a new block of ordinary markdown its raw text with one
 * trailing newline kept (`normalizeMarkdownBlockRaw`), and counts that newline as the blank row before a code
 * block, table, quote or rule that follows (no margin then). A block it updates in place instead gets the raw with
 * every trailing newline cut (`getTopLevelBlockRaw`), so once highlighted that blank row is gone: a heading
 * streamed in just before a code block or a table ended up with no blank row under it, while the same text mounted
 * at once had one, and which blocks were new and which updated decided the frame. After each update this gives
 * every such block the text a new block gets.
 *
 * Relies on OpenTUI 0.5.8's markdown internals (pinned exactly): the block states (`_blockStates`), whose token
 * holds the block's normalized raw.
 */
import { CodeRenderable, type MarkdownRenderable } from "@opentui/core";

/** Sets each ordinary-markdown block of `renderable` to the text a new block would have (call after each update). */
export function keepBlockText(renderable: MarkdownRenderable | null): void {
  if (renderable === null || renderable.isDestroyed) return;
  for (const state of renderable._blockStates) {
    const block = state.renderable;
    if (state.token.type !== "paragraph" || !(block instanceof CodeRenderable)) continue;
    if (block.content !== state.token.raw && state.token.raw.startsWith(block.content)) block.content = state.token.raw;
  }
}
