/**
 * Screenshots of the real UI for the docs: a tmux pane captured with colours (`capture-pane -e`), its ANSI text
 * laid out as SVG cells (24-bit, 256 and 16 colours, bold/dim/italic/underline/strike/reverse; box and block
 * characters drawn as shapes so they join), and the SVG turned into PNG by `rsvg-convert` (Debian:
 * librsvg2-bin). Used by scripts/screenshots.ts and scripts/screenshots-loops.ts; tests do not use it.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Tmux } from "../tests/support/tmux.ts";

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

export function parseScreen(ansi: string, cols: number, rows: number): Cell[][] {
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

export function toSvg(grid: Cell[][], title: string): string {
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

/** Capture the pane with colours and write `<out>/<name>.png` (through an SVG, removed after). */
export function shoot(t: Tmux, options: { readonly out: string; readonly name: string; readonly title: string; readonly cols: number; readonly rows: number }): string {
  const svg = toSvg(parseScreen(t.capture({ escapes: true }), options.cols, options.rows), options.title);
  const svgPath = path.join(options.out, `${options.name}.svg`);
  const pngPath = path.join(options.out, `${options.name}.png`);
  fs.writeFileSync(svgPath, svg);
  const result = spawnSync("rsvg-convert", ["-o", pngPath, svgPath], { encoding: "utf8" });
  fs.rmSync(svgPath);
  if (result.status !== 0) throw new Error(`rsvg-convert failed: ${result.stderr}`);
  return pngPath;
}

/** Throws unless tmux and rsvg-convert are on PATH. */
export function checkTools(): void {
  for (const tool of ["tmux", "rsvg-convert"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) throw new Error(`${tool} is missing (Debian: apt-get install tmux librsvg2-bin)`);
  }
}
