import { fileURLToPath } from "node:url";
import { addDefaultParsers, getTreeSitterClient, type FiletypeParserOptions, type TreeSitterClient } from "@opentui/core";

/**
 * chat-tui's markdown_inline parser: OpenTUI's grammar with chat-tui's highlight query, which conceals only
 * markup (`./inline-highlights.scm` says what differs from OpenTUI's own query and why).
 */
export const MARKDOWN_INLINE_PARSER: FiletypeParserOptions = {
  filetype: "markdown_inline",
  queries: { highlights: [fileURLToPath(new URL("./inline-highlights.scm", import.meta.url))] },
  // The grammar itself is OpenTUI's (pinned exactly); only the query is ours.
  wasm: fileURLToPath(new URL("./assets/markdown_inline/tree-sitter-markdown_inline.wasm", import.meta.resolve("@opentui/core"))),
};

const installed = new WeakSet<TreeSitterClient>();

/**
 * Makes `client` (default: OpenTUI's shared client) highlight inline markdown with chat-tui's query. Registers
 * it as a default parser for clients that have not started yet and sends it to an already running one. No
 * I/O here: the tree-sitter worker reads the files.
 */
export function installMarkdownParsers(client: TreeSitterClient | undefined): void {
  addDefaultParsers([MARKDOWN_INLINE_PARSER]);
  const target = client ?? getTreeSitterClient();
  if (installed.has(target)) return;
  installed.add(target);
  if (target.isInitialized()) target.addFiletypeParser(MARKDOWN_INLINE_PARSER);
}
