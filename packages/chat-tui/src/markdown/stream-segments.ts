/**
 * Where a streamed answer's markdown can be split into a finished part and a live tail (#18).
 *
 * OpenTUI's `<markdown>` draws every run of consecutive tokens that are not code, table, blockquote or hr as one
 * block (one CodeRenderable over their raw text), and at every content update it re-creates that trailing block's
 * styled text, sets it, highlights it and wraps it again. An answer without code blocks is one such run, so every
 * publication costs the whole answer. The chat view therefore freezes what is finished in markdowns of their own
 * that never change again, and only the tail is a live markdown (`timeline/agent-markdown.tsx`).
 *
 * The split must not change the frame: the finished part and the tail, each drawn on its own with `gap` blank rows
 * between them, draw what the whole text draws. That holds at a boundary after a token L that nothing later can
 * change, at a blank line, with a token N after it whose kind is settled (a token follows it), because then
 * - marked lexes the two parts as it lexes them in the whole text (a blank line after a final token ends every
 *   construct it could continue; nothing crosses it);
 * - the render blocks are the whole text's, except at the boundary: where L and N are both ordinary markdown, the
 *   whole text draws L, the blank line and N in one block, the parts draw them in two with the blank rows between
 *   (`gap`) as a margin; where either is drawn on its own (code, table, quote, hr) the whole text puts a margin
 *   between them that the parts get as `gap`; tree-sitter highlights L and N as separate blocks either way.
 * L is final when it is a paragraph, an ATX heading, a table, a blockquote, an hr or a closed fenced code block
 * followed by a blank line: a list (an indented line after the blank continues it), an indented code block (so
 * does one), html and anything else end no split. A paragraph over `LONG_PARAGRAPH_CHARS` ends none either: the
 * finished part is lexed once when it is frozen, and marked's setext regex is slow on such paragraphs
 * (`paragraph-pieces.ts`). Tested differentially against the whole text (tests/tui/chat-tui-markdown-segments).
 *
 * Relies on OpenTUI 0.5.8's markdown block rules (pinned exactly) and on the parse state's tokens (`_parseState`).
 */
import type { MarkdownRenderable } from "@opentui/core";

type Token = NonNullable<MarkdownRenderable["_parseState"]>["tokens"][number];

/** A paragraph longer than this is not frozen (its one lex when frozen would stall; see above). */
export const LONG_PARAGRAPH_CHARS = 4096;

export interface FinishedPart {
  /** Characters of the text that are finished (a prefix that ends at a blank line). */
  readonly length: number;
  /** Blank rows between the finished part and the rest. */
  readonly gap: number;
}

const SEPARATE = new Set(["code", "table", "blockquote", "hr"]);
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

function trailingNewlines(raw: string): number {
  let n = 0;
  while (n < raw.length && raw[raw.length - 1 - n] === "\n") n++;
  return n;
}

function newlines(raw: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i++) if (raw.charCodeAt(i) === 10) n++;
  return n;
}

function closedFence(raw: string): boolean {
  const open = FENCE.exec(raw);
  if (open === null) return false;
  const lines = raw.trimEnd().split("\n");
  const last = (lines.at(-1) ?? "").trim();
  const fence = open[1] as string;
  return lines.length >= 2 && last.length >= fence.length && last.startsWith(fence) && [...last].every((c) => c === fence[0]);
}

/** Blank rows between the finished part ending with `last` (and `space`, if any) and a next token `next`. */
function gapAfter(last: Token, space: Token | undefined, next: Token): number | undefined {
  if (SEPARATE.has(last.type)) {
    if (last.type === "code" && !closedFence(last.raw)) return undefined;
    if (last.type === "table" && trailingNewlines(last.raw) < 2) return undefined;
    if (space === undefined && last.type !== "table") return undefined;
    return 1;
  }
  if (last.type === "paragraph") {
    if (space === undefined || trailingNewlines(last.raw) > 0) return undefined;
    return SEPARATE.has(next.type) ? 1 : newlines(space.raw) - 1;
  }
  if (last.type === "heading") {
    // A heading keeps its blank lines in its raw; OpenTUI draws one of them as a row of the block (it cuts a
    // block's trailing newlines to one), the others only when more markdown follows in the same block.
    const trailing = trailingNewlines(last.raw);
    if (space !== undefined || trailing < 2 || !last.raw.startsWith("#") && !/^ {1,3}#/.test(last.raw)) return undefined;
    return SEPARATE.has(next.type) ? 0 : trailing - 2;
  }
  return undefined;
}

/**
 * The longest finished prefix of the text `tokens` were lexed from (tokens of OpenTUI's parse state, long
 * paragraphs possibly in pieces), or undefined when no boundary qualifies.
 */
export function finishedPart(tokens: readonly Token[]): FinishedPart | undefined {
  let found: FinishedPart | undefined;
  let offset = 0;
  let paragraphRun = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    offset += token.raw.length;
    paragraphRun = token.type === "paragraph" ? paragraphRun + token.raw.length : 0;
    if (paragraphRun > LONG_PARAGRAPH_CHARS) continue;
    const space = tokens[i + 1]?.type === "space" ? tokens[i + 1] : undefined;
    const at = i + (space === undefined ? 1 : 2);
    const next = tokens[at];
    // N decides the gap, so N must be final too: something follows it (its first line is complete).
    if (next === undefined || next.type === "space" || at + 1 >= tokens.length) continue;
    // A paragraph in pieces: only its last piece ends it.
    if (token.type === "paragraph" && space === undefined) continue;
    const gap = gapAfter(token, space, next);
    if (gap !== undefined && gap >= 0) found = { length: offset + (space?.raw.length ?? 0), gap };
  }
  return found;
}
