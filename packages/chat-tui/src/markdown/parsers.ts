import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { addDefaultParsers, getTreeSitterClient, type FiletypeParserOptions, type TreeSitterClient } from "@opentui/core";

/**
 * chat-tui's markdown_inline parser: OpenTUI's grammar with chat-tui's highlight query, which conceals only
 * markup (`./inline-highlights.scm` says what differs from OpenTUI's own query and why).
 */
export const MARKDOWN_INLINE_PARSER: FiletypeParserOptions = {
  filetype: "markdown_inline",
  queries: { highlights: [fileURLToPath(new URL("./inline-highlights.scm", import.meta.url))] },
  // The grammar itself is OpenTUI's (pinned exactly); only the query is ours. Found next to the package's entry
  // with createRequire: Baton's prebuilt start is bytecode, which Bun cannot make of `import.meta.resolve`.
  wasm: path.join(path.dirname(createRequire(import.meta.url).resolve("@opentui/core")), "assets/markdown_inline/tree-sitter-markdown_inline.wasm"),
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
