/**
 * Agent text rendered as markdown keeps every character that is not markup (#11.10): with tree-sitter's
 * highlighting applied (not only the first, unhighlighted draw), for examples and for arbitrary text.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { MARKDOWN_INLINE_PARSER } from "../../packages/chat-tui/src/markdown/parsers.ts";
import { highlightedFrame, mountChat, type Mounted } from "./chat-tui-setup.tsx";

let mounted: Mounted;
let serial = 0;

beforeAll(async () => {
  mounted = await mountChat({ width: 200, height: 60 });
});
afterAll(async () => {
  await mounted.destroy();
});


/** Renders `text` as one agent message and waits until every markdown block has its highlighting. */
async function rendered(text: string): Promise<string> {
  serial += 1;
  await mounted.commit({ timeline: { items: [{ kind: "agent", id: `a${serial}`, author: "agent", text }] } });
  const lines = (await highlightedFrame(mounted)).split("\n");
  const start = lines.findIndex((l) => l.includes("● agent"));
  const end = lines.findIndex((l, i) => i > start && l.startsWith("╭"));
  expect(start).toBeGreaterThanOrEqual(0);
  return lines
    .slice(start + 1, end)
    .map((l) => l.trimEnd())
    .join("\n")
    .replace(/\n+$/, "");
}

/** Markup characters (and the decorations drawn for them), ignored on both sides along with whitespace. */
const MARKUP = /[\s*_`~#>\\|+\-│─]/g;
const visible = (s: string): string => s.replace(MARKUP, "");

test("brackets that are not links survive highlighting: a[0], [x], [Codex], reference-style pairs", async () => {
  const out = await rendered("a[0] and [x] and [Codex] and [a][b] and [c][]");
  expect(out).toContain("a[0] and [x] and [Codex] and [a][b] and [c][]");
});

test("brackets survive in lists, quotes, headings and emphasis", async () => {
  const out = await rendered("# Head [h]\n\n- item [1]\n1. one [2]\n\n> quote [q]\n\n**b[2]** and *i[3]*");
  for (const piece of ["Head [h]", "item [1]", "one [2]", "quote [q]", "b[2] and i[3]"]) expect(out).toContain(piece);
});

test("markup is still concealed: links show label (url), images alt (url), escapes their character", async () => {
  const out = await rendered("see [docs](http://x.test/a) and ![logo](l.png) and \\[not a link\\] and `a[1]` and ![ref]");
  expect(out).toContain("see docs (http://x.test/a) and logo (l.png) and [not a link] and a[1] and ![ref]");
});

// Lines of prose start with a letter or `[` so that no block construct (list, quote, table, fence, heading)
// starts by accident; `&` is left out (entities are decoded on purpose) and so is `](` (an inline link drops
// its brackets on purpose; the next property covers links).
const PROSE = [..."abcdefxyzABC0123456789 []{}()<>!?.,:;'\"/=@$%^+|*_~#`\\-"];
const line = fc
  .tuple(fc.constantFrom(..."abcxyzAB["), fc.array(fc.constantFrom(...PROSE), { maxLength: 40 }))
  .map(([first, rest]) => first + rest.join(""));
const prose = fc.array(line, { minLength: 1, maxLength: 6 }).map((ls) => ls.join("\n")).filter((t) => !t.includes("]("));

test("property: for arbitrary prose, the rendered characters minus markup equal the source minus markup", async () => {
  await fc.assert(
    fc.asyncProperty(prose, async (text) => {
      expect(visible(await rendered(text))).toBe(visible(text));
    }),
    { numRuns: Number(process.env.MD_RUNS ?? 120) },
  );
}, 600_000);

const WORD = [..."abcxyz0189.,:/[]{}"];
const word = fc.array(fc.constantFrom(...WORD), { minLength: 1, maxLength: 8 }).map((cs) => cs.join(""));
const plainWord = word.filter((w) => !w.includes("[") && !w.includes("]"));
const segment = fc.oneof(
  word.map((w) => ({ source: w, expected: w })),
  fc.tuple(plainWord, plainWord).map(([label, url]) => ({ source: `[${label}](${url})`, expected: `${label}(${url})` })),
);

test("property: inline links lose exactly their brackets, nothing else", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 8 }), async (segments) => {
      const text = segments.map((s) => s.source).join(" ");
      const expected = segments.map((s) => s.expected).join("");
      expect(visible(await rendered(`x ${text}`))).toBe(visible(`x${expected}`));
    }),
    { numRuns: Number(process.env.MD_RUNS ?? 80) },
  );
}, 600_000);

test("the query is derived from OpenTUI's pinned markdown_inline query and uses its grammar", () => {
  // When @opentui/core changes its query, re-derive packages/chat-tui/src/markdown/inline-highlights.scm.
  const upstream = fileURLToPath(new URL("./assets/markdown_inline/highlights.scm", import.meta.resolve("@opentui/core")));
  const digest = createHash("sha256").update(readFileSync(upstream)).digest("hex");
  expect(digest).toBe("ca9a109ddd21c5ffdc6b84f00c0a4b2eeb55ae36a0b8eeb9b02348269c5acd22");
  expect(existsSync(MARKDOWN_INLINE_PARSER.wasm)).toBe(true);
  for (const query of MARKDOWN_INLINE_PARSER.queries.highlights) expect(existsSync(query)).toBe(true);
});
