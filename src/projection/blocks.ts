/** Content block appends for streamed chunks: adjacent text merges into one block. */
import type { ContentBlock } from "../event/content.ts";
import { appended, editable, fresh } from "./draft.ts";

function textOfBlock(block: ContentBlock): string | undefined {
  return block.type === "text" && typeof block["text"] === "string" ? block["text"] : undefined;
}

/**
 * Append one streamed block. Text following text extends the last block (a 10k-chunk stream stays one
 * block; the engine concatenates strings lazily, as ropes); an empty text chunk changes nothing and returns
 * `content` itself. Inside a draft the array and block it created are extended in place.
 */
/** Whether appending `block` changes nothing (an empty text chunk). */
export function appendsNothing(block: ContentBlock): boolean {
  return textOfBlock(block) === "";
}

export function appendBlock(content: readonly ContentBlock[], block: ContentBlock): readonly ContentBlock[] {
  const added = textOfBlock(block);
  if (added === "") return content;
  const last = content[content.length - 1];
  if (added !== undefined && last !== undefined) {
    const previous = textOfBlock(last);
    if (previous !== undefined) {
      const next = editable(content) as ContentBlock[];
      const merged = editable(last) as ContentBlock & { text: string };
      merged.text = previous + added;
      next[next.length - 1] = merged;
      return next;
    }
  }
  // A text block that starts a run is the draft's own copy, so the next chunk can extend it in place (a load's
  // stream tail, `stream-tail.ts`, takes over from the first chunk of a message, not the second).
  return appended(content, added === undefined ? block : fresh({ ...block }));
}
