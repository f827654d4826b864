/**
 * Regenerates the README screenshots of the real UI: runs `baton` (bin/baton.cjs) in a private tmux server with
 * the real Codex and Claude Code against the project's mock model servers, captures the pane with colours
 * (`capture-pane -e`), turns the ANSI text into SVG and the SVG into PNG with `rsvg-convert`.
 *
 *   node_modules/.bin/bun scripts/screenshots.ts [outDir]     (default docs/images)
 *
 * Needs tmux and rsvg-convert (Debian: `apt-get install tmux librsvg2-bin`) and the DejaVu Sans Mono font.
 * Tests do not use this script.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeClaudeEnv } from "../tests/support/claude-env.ts";
import { makeCodexHome } from "../tests/support/codex-home.ts";
import { startMockAnthropic } from "../tests/support/mock-anthropic/client.ts";
import { reply } from "../tests/support/mock-anthropic/script.ts";
import { startMockResponses } from "../tests/support/mock-responses/index.ts";
import { Tmux } from "../tests/support/tmux.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "docs/images"));
const COLS = 110;
const ROWS = 34;

// ---------------------------------------------------------------------------------------------------------
// ANSI (tmux capture-pane -e) → SVG

interface Style {
  fg: string | undefined;
  bg: string | undefined;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  strike: boolean;
  reverse: boolean;
}

const BASE16 = ["#1b1e26", "#bf616a", "#a3be8c", "#ebcb8b", "#81a1c1", "#b48ead", "#88c0d0", "#e5e9f0", "#4c566a", "#bf616a", "#a3be8c", "#ebcb8b", "#81a1c1", "#b48ead", "#8fbcbb", "#eceff4"];

function color256(n: number): string {
  if (n < 16) return BASE16[n] ?? "#d8dee9";
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v},${v},${v})`;
  }
  const i = n - 16;
  const steps = [0, 95, 135, 175, 215, 255];
  return `rgb(${steps[Math.floor(i / 36)]},${steps[Math.floor(i / 6) % 6]},${steps[i % 6]})`;
}

const fresh = (): Style => ({ fg: undefined, bg: undefined, bold: false, dim: false, italic: false, underline: false, strike: false, reverse: false });

function applySgr(style: Style, params: number[]): void {
  for (let i = 0; i < params.length; i++) {
    const p = params[i] ?? 0;
    if (p === 0) Object.assign(style, fresh());
    else if (p === 1) style.bold = true;
    else if (p === 2) style.dim = true;
    else if (p === 3) style.italic = true;
    else if (p === 4) style.underline = true;
    else if (p === 7) style.reverse = true;
    else if (p === 9) style.strike = true;
    else if (p === 22) style.bold = style.dim = false;
    else if (p === 23) style.italic = false;
    else if (p === 24) style.underline = false;
    else if (p === 27) style.reverse = false;
    else if (p === 29) style.strike = false;
    else if (p >= 30 && p <= 37) style.fg = color256(p - 30);
    else if (p >= 90 && p <= 97) style.fg = color256(p - 90 + 8);
    else if (p === 39) style.fg = undefined;
    else if (p >= 40 && p <= 47) style.bg = color256(p - 40);
    else if (p >= 100 && p <= 107) style.bg = color256(p - 100 + 8);
    else if (p === 49) style.bg = undefined;
    else if (p === 38 || p === 48) {
      const mode = params[i + 1];
      let value: string | undefined;
      if (mode === 5) {
        value = color256(params[i + 2] ?? 0);
        i += 2;
      } else if (mode === 2) {
        value = `rgb(${params[i + 2] ?? 0},${params[i + 3] ?? 0},${params[i + 4] ?? 0})`;
        i += 4;
      }
      if (p === 38) style.fg = value;
      else style.bg = value;
    }
  }
}

interface Cell {
  readonly ch: string;
  readonly style: Style;
}

function parseScreen(ansi: string, cols: number, rows: number): Cell[][] {
  const style = fresh();
  const lines = ansi.replace(/\n$/, "").split("\n");
  const grid: Cell[][] = [];
  for (let r = 0; r < rows; r++) {
    const row: Cell[] = [];
    const line = lines[r] ?? "";
    for (let i = 0; i < line.length; ) {
      if (line[i] === "\u001b" && line[i + 1] === "[") {
        const end = line.slice(i + 2).search(/[A-Za-z]/);
        if (end < 0) break;
        const body = line.slice(i + 2, i + 2 + end);
        if (line[i + 2 + end] === "m") applySgr(style, body === "" ? [0] : body.split(";").map(Number));
        i += end + 3;
        continue;
      }
      const cp = line.codePointAt(i) ?? 32;
      const ch = String.fromCodePoint(cp);
      i += ch.length;
      if (row.length < cols) row.push({ ch, style: { ...style } });
    }
    while (row.length < cols) row.push({ ch: " ", style: { ...style } });
    grid.push(row);
  }
  return grid;
}

const escapeXml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Cell-relative rectangles [x, y, width, height] for line and block characters. */
const LINE = 1 / 9;
const SHAPES: Readonly<Record<string, readonly [number, number, number, number]>> = {
  "│": [0.5 - LINE / 2, 0, LINE, 1],
  "─": [0, 0.5 - 0.5 / 19, 1, 1 / 19],
  "█": [0, 0, 1, 1],
  "▄": [0, 0.5, 1, 0.5],
  "▀": [0, 0, 1, 0.5],
};
/** Glyphs the installed monospace font lacks, drawn as a close relative. */
const SUBSTITUTES: Readonly<Record<string, string>> = { "⏵": "▸" };

const DEFAULT_FG = "#d8dee9";
const DEFAULT_BG = "#1b1e26";
const CELL_W = 9;
const CELL_H = 19;
const FONT = 15;
const PAD = 16;
const BAR = 30;

function toSvg(grid: Cell[][], title: string): string {
  const width = grid[0]!.length * CELL_W + PAD * 2;
  const height = grid.length * CELL_H + PAD * 2 + BAR;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans Mono, monospace" font-size="${FONT}">`,
    `<rect x="0" y="0" width="${width}" height="${height}" rx="10" fill="${DEFAULT_BG}" stroke="#3b4252"/>`,
    `<rect x="0" y="0" width="${width}" height="${BAR}" rx="10" fill="#2e3440"/><rect x="0" y="${BAR - 10}" width="${width}" height="10" fill="#2e3440"/>`,
    ...["#bf616a", "#ebcb8b", "#a3be8c"].map((c, i) => `<circle cx="${20 + i * 20}" cy="${BAR / 2}" r="6" fill="${c}"/>`),
    `<text x="${width / 2}" y="${BAR / 2 + 5}" fill="#9aa3b5" font-family="DejaVu Sans Mono" font-size="13" text-anchor="middle">${escapeXml(title)}</text>`,
  ];
  grid.forEach((row, r) => {
    const y = BAR + PAD + r * CELL_H;
    for (let c = 0; c < row.length; ) {
      const cell = row[c]!;
      const bg = cell.style.reverse ? (cell.style.fg ?? DEFAULT_FG) : cell.style.bg;
      let end = c + 1;
      while (end < row.length && (row[end]!.style.reverse ? (row[end]!.style.fg ?? DEFAULT_FG) : row[end]!.style.bg) === bg) end++;
      if (bg !== undefined && bg !== DEFAULT_BG) out.push(`<rect x="${PAD + c * CELL_W}" y="${y}" width="${(end - c) * CELL_W}" height="${CELL_H}" fill="${bg}"/>`);
      c = end;
    }
    for (let c = 0; c < row.length; ) {
      const cell = row[c]!;
      if (cell.ch === " ") {
        c++;
        continue;
      }
      const shape = SHAPES[cell.ch];
      if (shape !== undefined) {
        // Lines and blocks are drawn as shapes so they join across cells and rows without font gaps.
        const fill = cell.style.fg ?? DEFAULT_FG;
        const x = PAD + c * CELL_W;
        const [dx, dy, w, h] = shape;
        out.push(`<rect x="${x + dx * CELL_W}" y="${y + dy * CELL_H}" width="${w * CELL_W}" height="${h * CELL_H}" fill="${fill}"${cell.style.dim ? ` opacity="0.6"` : ""}/>`);
        c++;
        continue;
      }
      const key = JSON.stringify(cell.style);
      let end = c + 1;
      while (end < row.length && row[end]!.ch !== " " && SHAPES[row[end]!.ch] === undefined && JSON.stringify(row[end]!.style) === key) end++;
      const text = row.slice(c, end).map((x) => SUBSTITUTES[x.ch] ?? x.ch).join("");
      const s = cell.style;
      const fill = s.reverse ? (s.bg ?? DEFAULT_BG) : (s.fg ?? DEFAULT_FG);
      const attrs = [
        `x="${PAD + c * CELL_W}"`,
        `y="${y + CELL_H - 5}"`,
        `fill="${fill}"`,
        `textLength="${(end - c) * CELL_W}"`,
        `lengthAdjust="spacingAndGlyphs"`,
        s.bold ? `font-weight="bold"` : "",
        s.italic ? `font-style="italic"` : "",
        s.dim ? `opacity="0.6"` : "",
        s.underline || s.strike ? `text-decoration="${s.underline ? "underline" : "line-through"}"` : "",
      ].filter((a) => a !== "");
      out.push(`<text ${attrs.join(" ")} xml:space="preserve">${escapeXml(text)}</text>`);
      c = end;
    }
  });
  out.push("</svg>");
  return out.join("\n");
}

function shoot(t: Tmux, name: string, title: string): void {
  const svg = toSvg(parseScreen(t.capture({ escapes: true }), COLS, ROWS), title);
  const svgPath = path.join(OUT, `${name}.svg`);
  fs.writeFileSync(svgPath, svg);
  const result = spawnSync("rsvg-convert", ["-o", path.join(OUT, `${name}.png`), svgPath], { encoding: "utf8" });
  fs.rmSync(svgPath);
  if (result.status !== 0) throw new Error(`rsvg-convert failed: ${result.stderr}`);
  process.stdout.write(`wrote ${path.relative(ROOT, path.join(OUT, `${name}.png`))}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// The scenes

async function main(): Promise<void> {
  for (const tool of ["tmux", "rsvg-convert"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) throw new Error(`${tool} is missing (Debian: apt-get install tmux librsvg2-bin)`);
  }
  fs.mkdirSync(OUT, { recursive: true });
  const [codexMock, claudeMock] = await Promise.all([startMockResponses(), startMockAnthropic()]);
  const codex = makeCodexHome({ baseUrl: codexMock.baseUrl, approvalPolicy: "on-request", sandboxMode: "read-only" });
  const claude = makeClaudeEnv({ baseUrl: claudeMock.url });
  fs.writeFileSync(path.join(claude.cwd, "parser.ts"), "export function parse(input: string): string[] {\n  return input.split(',');\n}\n");
  let t: Tmux | undefined;
  try {
    await codexMock.script([
      { kind: "exec", cmd: "grep -n split parser.ts", escalate: true, justification: "Look at how parse() splits its input" },
      {
        kind: "text",
        text: "The parser splits on commas but keeps **surrounding spaces**, so `parse(\"a, b\")` returns `[\"a\", \" b\"]`.\n\nI suggest:\n\n1. trim each field\n2. add a test for empty input\n\n```ts\nreturn input.split(\",\").map((s) => s.trim());\n```",
        chunkSize: 12,
        delayMs: 20,
      },
    ]);
    await claudeMock.script(
      reply.text(
        "I read what Codex found. Agreed on trimming; one more edge case: a **trailing comma** should not yield an empty field.\n\n- `parse(\"a,b,\")` → `[\"a\", \"b\"]`\n- `parse(\"\")` → `[]`\n\nShall I write both tests?",
        { chunkSize: 10, chunkDelayMs: 15, match: { lastUserIncludes: "review" } },
      ),
      reply.tool("TodoWrite", {
        todos: [
          { content: "Trim fields in parse()", status: "completed", activeForm: "Trimming fields" },
          { content: "Drop the empty trailing field", status: "in_progress", activeForm: "Dropping the trailing field" },
          { content: "Test empty input and trailing commas", status: "pending", activeForm: "Testing" },
        ],
      }, { match: { lastUserIncludes: "plan the fix" } }),
      reply.text("Working through the plan: trimming is done, now handling the trailing comma case so that `parse(\"a,b,\")` returns two fields…".repeat(3), {
        chunkSize: 4,
        chunkDelayMs: 120,
        match: { hasToolResult: true },
      }),
    );
    t = Tmux.start({
      command: ["node", path.join(ROOT, "bin/baton.cjs"), "--agent", "codex"],
      env: { ...claude.env, CODEX_HOME: codex.env["CODEX_HOME"]!, MOCK_API_KEY: "mock-key", TERM: "screen-256color", COLORTERM: "truecolor", LANG: "C.UTF-8" },
      cwd: claude.cwd,
      width: COLS,
      height: ROWS,
    });
    await t.waitFor(/baton · session bs_\w+/);
    t.type("why does parse() keep spaces? look at parser.ts first");
    t.keys("Enter");
    await t.waitFor("1. Allow once", 30_000);
    await Bun.sleep(300);
    shoot(t, "tui-approval", "baton — Codex asks before running a command");
    t.keys("1");
    await t.waitFor("trim each field", 30_000);
    await t.waitFor(/codex · \S+ · idle|codex · idle/, 30_000);
    t.type("/claude review what codex found");
    t.keys("Enter");
    await t.waitFor("Shall I write both tests?", 30_000);
    await t.waitFor(/claude · \S+ · idle|claude · idle/, 30_000);
    await Bun.sleep(300);
    shoot(t, "tui-switch", "baton — /claude picks up where Codex left off");
    t.type("/model");
    t.keys("Enter");
    await t.waitFor("Claude Code model", 15_000);
    await Bun.sleep(300);
    shoot(t, "tui-model-picker", "baton — /model");
    t.keys("Escape");
    await Bun.sleep(200);
    t.keys("BTab");
    await t.waitFor("plan mode (shift+tab to cycle)");
    t.type("plan the fix for trailing commas");
    t.keys("Enter");
    await t.waitFor("Working through the plan", 30_000);
    await Bun.sleep(1200);
    shoot(t, "tui-plan", "baton — plan mode, a pinned plan and a streaming answer");
    t.keys("Escape");
    await Bun.sleep(500);
  } finally {
    t?.kill();
    await Promise.all([codexMock.stop(), claudeMock.stop()]);
    codex.cleanup();
    claude.cleanup();
  }
}

await main();
