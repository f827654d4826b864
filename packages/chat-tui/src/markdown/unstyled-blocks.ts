/**
 * Code blocks and quotes drawn as plain text until their first highlight arrives (#18).
 *
 * In streaming mode OpenTUI's `<markdown>` creates a fenced code block's CodeRenderable with
 * `drawUnstyledText: false` (and a blockquote's content the same way): the block takes its rows at once but
 * draws nothing in them until tree-sitter answers, and when more lines arrive before that answer they wait for
 * it too. A code block streamed in therefore showed blank rows for as long as its highlighting took (the first
 * use of a language loads its grammar first). Prose blocks do not have this: OpenTUI gives them a marked-styled
 * text to draw before highlighting.
 *
 * After each content update, every CodeRenderable under the markdown that has not been highlighted yet is told
 * to draw its text unstyled (its public `drawUnstyledText`); once a highlight has arrived, OpenTUI's own
 * streaming behaviour takes over again (it keeps the highlighted text on screen until the next highlight, and
 * resets `drawUnstyledText` itself at the block's next update). What is drawn once highlighted does not change.
 *
 * Relies on OpenTUI 0.5.8's CodeRenderable internals (pinned exactly): the private `_lastHighlights`, which a
 * streaming CodeRenderable fills with its last non-empty highlight.
 */
import { CodeRenderable, type MarkdownRenderable, type Renderable } from "@opentui/core";

interface HighlightState {
  readonly _lastHighlights: readonly unknown[];
}

/** The text each not yet highlighted block was last seen with (what its text buffer holds). */
const shown = new WeakMap<CodeRenderable, string>();

function visit(node: Renderable): void {
  if (!(node instanceof CodeRenderable)) {
    for (const child of node.getChildren()) visit(child);
    return;
  }
  if ((node as unknown as HighlightState)._lastHighlights.length > 0) {
    shown.delete(node);
    return;
  }
  if (!node.drawUnstyledText) {
    node.drawUnstyledText = true;
    // OpenTUI's update set the new text while drawUnstyledText was off, which leaves the text buffer (and the
    // block's height) at the old text: set it again now that it is drawn.
    const text = node.content;
    const before = shown.get(node);
    if (before !== undefined && before !== text) {
      node.content = "";
      node.content = text;
    }
  }
  shown.set(node, node.content);
}

/** Makes every not yet highlighted block of `renderable` draw its text unstyled (call after each update). */
export function drawBeforeHighlight(renderable: MarkdownRenderable | null): void {
  if (renderable === null || renderable.isDestroyed) return;
  for (const state of renderable._blockStates) visit(state.renderable);
}
