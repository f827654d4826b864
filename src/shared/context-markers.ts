/**
 * Baton's own context markers: `<baton-sync>` (the hand-over of other agents' turns) and `<baton-context>`
 * (what an @-reference pulled in). A block is written only by `fenceBlock`, which escapes every marker-like
 * tag in the text it carries: what an agent, a tool or another session wrote can neither close Baton's
 * block early nor open one of its own. So the first `</baton-sync>` after `<baton-sync>` is always Baton's.
 */

export type MarkerTag = "baton-sync" | "baton-context";

// `<` of anything a reader could take for a Baton marker: `<baton-`, `</baton-`, any case, spaces inside.
const MARKER_LIKE = /<(?=\s*\/?\s*baton-)/gi;

/** `text` with every marker-like tag's `<` written as `&lt;` (readable, and never a marker). */
export function escapeMarkers(text: string): string {
  return text.replace(MARKER_LIKE, "&lt;");
}

/** `body` inside a `tag` block, escaped so that it cannot end or forge one. */
export function fenceBlock(tag: MarkerTag, body: string): string {
  return `<${tag}>\n${escapeMarkers(body)}\n</${tag}>`;
}

// Baton puts its blocks in front of what the user typed; only those leading blocks are injected context.
const LEADING_BLOCKS = /^\s*(?:<(baton-sync|baton-context)>[\s\S]*?<\/\1>\s*)+/;

/** `text` without the blocks Baton put in front of it (what the user typed stays, markers included). */
export function stripLeadingBlocks(text: string): string {
  if (!text.includes("<baton-")) return text;
  const stripped = text.replace(LEADING_BLOCKS, "");
  return stripped === text ? text : stripped.trim();
}
