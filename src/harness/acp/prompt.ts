/** Baton prompt blocks → ACP content blocks (the adapter has refused the types the agent did not advertise). */
import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import type { PromptBlock } from "../../event/content.ts";
import { assertNever } from "../../shared/assert.ts";

export function toAcpBlocks(blocks: readonly PromptBlock[]): ContentBlock[] {
  return blocks.map((block): ContentBlock => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "image":
        return { type: "image", mimeType: block.mimeType, data: block.data ?? "", ...(block.uri !== undefined ? { uri: block.uri } : {}) };
      case "audio":
        return { type: "audio", mimeType: block.mimeType, data: block.data };
      case "resource": {
        const { uri, mimeType, text, blob } = block.resource;
        const resource = text !== undefined ? { uri, text, ...(mimeType !== undefined ? { mimeType } : {}) } : { uri, blob: blob ?? "", ...(mimeType !== undefined ? { mimeType } : {}) };
        return { type: "resource", resource };
      }
      case "resource_link":
        return {
          type: "resource_link",
          uri: block.uri,
          name: block.name,
          ...(block.mimeType !== undefined ? { mimeType: block.mimeType } : {}),
          ...(block.description !== undefined ? { description: block.description } : {}),
        };
      default:
        return assertNever(block, "prompt block");
    }
  });
}
