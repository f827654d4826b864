/** Baton prompt blocks as Codex wire input: turn/start|steer `input`, and thread/inject_items for catch-up context. */
import type { PromptBlock } from "../../event/content.ts";
import type { UserInput } from "./protocol/v2/UserInput";

export function toUserInput(blocks: readonly PromptBlock[]): UserInput[] {
  const out: UserInput[] = [];
  for (const block of blocks) if (block.type === "text") out.push({ type: "text", text: block.text, text_elements: [] });
  return out;
}

/**
 * Catch-up context as Responses API items for `thread/inject_items` (sync_context): one plain user message
 * in the thread's model-visible history, before the next prompt. `user`, not `developer`: relayed text is
 * another agent's words and gets no more authority than the user's own.
 */
export function contextItems(blocks: readonly PromptBlock[]): { type: "message"; role: "user"; content: { type: "input_text"; text: string }[] }[] {
  const text = blocks.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  return text === "" ? [] : [{ type: "message", role: "user", content: [{ type: "input_text", text }] }];
}
