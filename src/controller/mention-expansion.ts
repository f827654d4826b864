/** Applying @-reference expansion (CTX-07) to a prompt's text blocks. */
import { expandMentions, parseMentions } from "../context/mentions.ts";
import type { ContextProviderRegistry } from "../context/providers.ts";
import type { PromptBlock } from "../event/content.ts";

/** `untyped`: the parts of the prompt the user did not type (pasted or piped); references only there stay text. */
export function hasMentions(blocks: readonly PromptBlock[], untyped: readonly string[] = []): boolean {
  return blocks.some((block) => {
    if (block.type !== "text") return false;
    const found = parseMentions(block.text, untyped);
    return found.references.length > 0 || found.legacy.length > 0;
  });
}

/** Expand the first text block that has references; the others stay as typed. */
export async function expandBlocks(
  blocks: readonly PromptBlock[],
  providers: ContextProviderRegistry,
  budgetChars: number,
  untyped: readonly string[] = [],
): Promise<readonly PromptBlock[]> {
  const out: PromptBlock[] = [];
  let done = false;
  for (const block of blocks) {
    if (done || block.type !== "text") {
      out.push(block);
      continue;
    }
    const expansion = await expandMentions(block.text, providers, budgetChars, untyped);
    done = expansion.expanded;
    out.push(expansion.expanded ? { ...block, text: expansion.text } : block);
  }
  return out;
}
