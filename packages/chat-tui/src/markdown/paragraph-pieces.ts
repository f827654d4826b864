/**
 * Long paragraphs in OpenTUI's markdown parse state, cut into pieces (#18).
 *
 * OpenTUI's `<markdown>` re-lexes the last two tokens of its previous parse, plus whatever was appended, at every
 * content update (`parseMarkdownIncremental`). A streamed answer that is one long paragraph is therefore lexed
 * whole at every publication, and marked's setext-heading regex leaves JSC's regex JIT on a paragraph over ≈ 5 KB
 * (45–75 ms per lex). Cutting the parse state's paragraph tokens into pieces of at most `PARAGRAPH_PIECE_CHARS`
 * bounds what the next update re-lexes to two pieces plus the new text.
 *
 * Why the screen stays the same: in the default ("coalesced") block mode OpenTUI draws every run of consecutive
 * tokens that are not code, table, blockquote or hr from the concatenation of their raw text alone (one block,
 * highlighted as a whole), so pieces whose raws concatenate to the paragraph's draw the same block. What could
 * differ is what the next update lexes from a cut: the rest of the paragraph, lexed on its own, where OpenTUI
 * would lex the whole paragraph. A cut is made only after a space and before an ASCII letter (such a text starts
 * a paragraph: no list, heading, quote, fence, indented code, html, definition or hr), in a line that has no `|`
 * and does not start with a fence or `<` (so the line cannot become a fence, an html block or a many-column table
 * header once its end arrives). The lines before the cut hold a letter-bearing line after them, so nothing later
 * changes what they are. One thing can still differ: the cut's line may become the header of a one-column table
 * when a delimiter row (`:--`) follows it; OpenTUI then lexes a table from the cut, not from the paragraph's start.
 * After each update the re-lexed text is checked: when it does not start as a paragraph where it continues a cut
 * one, the paragraph's pieces are put back together and OpenTUI parses again from the paragraph's start, as it
 * would have. Tested differentially against the unchanged renderable (tests/tui/chat-tui-markdown-stream.test.tsx).
 *
 * Relies on OpenTUI 0.5.8's markdown internals (pinned exactly): the public `_parseState` and the private
 * `updateBlocks`.
 */
import type { MarkdownRenderable } from "@opentui/core";

type ParseState = NonNullable<MarkdownRenderable["_parseState"]>;
type Token = ParseState["tokens"][number];

/** The longest paragraph piece kept in the parse state: the next update lexes at most two of them again. */
export const PARAGRAPH_PIECE_CHARS = 1024;

const LETTER = /[A-Za-z]/;

/** A line may hold a cut: no `|` in it, and it does not start (after its indent) with a fence or `<`. */
function cuttable(line: string): boolean {
  return !line.includes("|") && !/^\s*[`~<]/.test(line);
}

/**
 * A line a table's delimiter row could be (`:--`, `--- | :-:`): only `-`, `:`, `|` and spaces, with a `-`. The line
 * above one is not cut: the piece after the cut is lexed again as a document of its own, where the rest of that
 * line and this row make a table (one column needs no pipe), though in the paragraph they did not. marked ends a
 * paragraph before such a row, so the row is often the first line of the token after it (`after`).
 */
const DELIMITER_ROW = /^ {0,3}[-:| ]*-[-:| ]*$/;

function lineAt(text: string, start: number): string {
  const end = text.indexOf("\n", start);
  return text.slice(start, end < 0 ? text.length : end);
}

/**
 * Where `raw` may be cut: after a space, before an ASCII letter, not at a line start, in a cuttable line that is
 * not above a possible delimiter row. `after` is the text that follows `raw` (the next token's).
 */
function cutPoints(raw: string, after: string): number[] {
  const points: number[] = [];
  let lineStart = 0;
  while (lineStart < raw.length) {
    const newline = raw.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? raw.length : newline;
    const next = newline < 0 || newline + 1 >= raw.length ? lineAt(after, 0) : lineAt(raw, newline + 1);
    if (cuttable(raw.slice(lineStart, lineEnd)) && !DELIMITER_ROW.test(next)) {
      for (let p = lineStart + 1; p < lineEnd; p++) if (raw.charCodeAt(p - 1) === 32 && LETTER.test(raw[p] as string)) points.push(p);
    }
    lineStart = lineEnd + 1;
  }
  return points;
}

/** The cuts of `raw` into pieces of at most `max` chars where its cut points allow (a longer piece where not). */
export function paragraphCuts(raw: string, max: number, after = ""): number[] {
  const points = cutPoints(raw, after);
  const cuts: number[] = [];
  let start = 0;
  let i = 0;
  while (raw.length - start > max) {
    // The last point within `max` of the piece's start, else the first one after it.
    let best = -1;
    for (; i < points.length && (points[i] as number) <= start + max; i++) best = points[i] as number;
    if (best < 0 && i < points.length) best = points[i++] as number;
    if (best < 0) break;
    cuts.push(best);
    start = best;
  }
  return cuts;
}

/** Each piece made here → the paragraph it came from (the same object for all of its pieces). */
const pieceOf = new WeakMap<object, object>();
/** The tokens last given to a renderable (to tell what OpenTUI kept from what it lexed again). */
const given = new WeakMap<MarkdownRenderable, readonly Token[]>();

function piece(raw: string, paragraph: object): Token {
  const token = { type: "paragraph", raw, text: raw, tokens: [] } as unknown as Token;
  pieceOf.set(token, paragraph);
  return token;
}

/**
 * The tokens with every top-level paragraph longer than `max` cut into pieces; undefined when none is. Pieces keep
 * the paragraph's place and type, and their raws concatenate to its raw. A paragraph that is already in pieces is
 * left as it is (its last pieces are what OpenTUI lexed again, and they are cut as a paragraph of their own).
 */
export function cutLongParagraphs(tokens: readonly Token[], max = PARAGRAPH_PIECE_CHARS): Token[] | undefined {
  let out: Token[] | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    const cuts = token.type === "paragraph" && token.raw.length > max ? paragraphCuts(token.raw, max, tokens[i + 1]?.raw ?? "") : [];
    if (cuts.length === 0) {
      out?.push(token);
      continue;
    }
    out ??= tokens.slice(0, i);
    // A long paragraph OpenTUI lexed again right after pieces of a cut one is the rest of that paragraph.
    const previous = i > 0 ? pieceOf.get(tokens[i - 1] as object) : undefined;
    const paragraph = previous ?? token;
    let from = 0;
    for (const cut of cuts) {
      out.push(piece(token.raw.slice(from, cut), paragraph));
      from = cut;
    }
    out.push(piece(token.raw.slice(from), paragraph));
  }
  return out;
}

interface Reparse {
  updateBlocks(): void;
}

/**
 * After `renderable` parsed its content: checks what it lexed again from inside a cut paragraph (and, if that is
 * not the paragraph's rest, parses again from the paragraph's start), then cuts its long paragraphs.
 */
export function cutParseState(renderable: MarkdownRenderable | null, max = PARAGRAPH_PIECE_CHARS): void {
  const state = renderable?._parseState;
  if (renderable == null || state == null) return;
  const before = given.get(renderable);
  if (before !== undefined) {
    let kept = 0;
    while (kept < state.tokens.length && kept < before.length && state.tokens[kept] === before[kept]) kept++;
    const paragraph = kept > 0 ? pieceOf.get(before[kept - 1] as object) : undefined;
    const relexed = state.tokens[kept];
    if (paragraph !== undefined && kept < before.length && pieceOf.get(before[kept] as object) === paragraph && relexed !== undefined && relexed.type !== "paragraph") {
      let first = kept - 1;
      while (first > 0 && pieceOf.get(state.tokens[first - 1] as object) === paragraph) first--;
      given.delete(renderable);
      // Keep what precedes the paragraph: OpenTUI lexes from there (less its two unstable tokens), as it would have.
      renderable._parseState = { ...state, tokens: state.tokens.slice(0, first) };
      (renderable as unknown as Reparse).updateBlocks();
      return cutParseState(renderable, max);
    }
  }
  const tokens = cutLongParagraphs(state.tokens, max);
  if (tokens !== undefined) renderable._parseState = { ...state, tokens };
  given.set(renderable, renderable._parseState?.tokens ?? []);
}
