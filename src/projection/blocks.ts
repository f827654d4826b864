/** Content block appends for streamed chunks: adjacent text merges into one block. */
import type { ContentBlock } from "../event/content.ts";

function textOfBlock(block: ContentBlock): string | undefined {
  return block.type === "text" && typeof block["text"] === "string" ? block["text"] : undefined;
}

/**
 * Append one streamed block. Text following text extends the last block (O(size of this message), and a
 * 10k-chunk stream stays one block); an empty text chunk changes nothing and returns `content` itself.
 */
export function appendBlock(content: readonly ContentBlock[], block: ContentBlock): readonly ContentBlock[] {
  const added = textOfBlock(block);
  if (added === "") return content;
  const last = content[content.length - 1];
  if (added !== undefined && last !== undefined) {
    const previous = textOfBlock(last);
    if (previous !== undefined) {
      const next = content.slice();
      next[next.length - 1] = { ...last, text: previous + added };
      return next;
    }
  }
  return [...content, block];
}
