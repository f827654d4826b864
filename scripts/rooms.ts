/**
 * The rooms of src/ and packages/ with their size, for #13's closing figures: one row a room (files, lines,
 * the largest file), rooms as tests/unit/architecture.test.ts names them (`harness/<name>` for a concrete
 * adapter, `plugin/runner`, `packages/<name>`, else the first folder under src/). Lines are newline counts.
 *
 *   bun scripts/rooms.ts            # the table, largest room first
 */
import { readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dir, "..");

/** The .ts/.tsx files below `dir`, as paths relative to the repository root. */
function sourcesUnder(dir: string): string[] {
  return [...new Bun.Glob("**/*.{ts,tsx}").scanSync({ cwd: path.join(root, dir) })].map((file) => path.join(dir, file));
}

function roomOf(rel: readonly string[]): string {
  if (rel[0] === "packages") return `packages/${rel[1] ?? ""}`;
  if (rel[1] === "harness" && rel.length > 3) return `harness/${rel[2]}`;
  if (rel[1] === "plugin" && rel[2] === "runner" && rel.length > 3) return "plugin/runner";
  return rel[1] ?? "?";
}

interface Room {
  files: number;
  lines: number;
  largest: { file: string; lines: number };
}

const rooms = new Map<string, Room>();
for (const file of [...sourcesUnder("src"), ...sourcesUnder("packages")]) {
  const rel = file.split(path.sep);
  if (rel.includes("node_modules") || rel.join("/").startsWith("src/harness/codex/protocol/")) continue;
  const lines = readFileSync(path.join(root, file), "utf8").split("\n").length - 1;
  const room = roomOf(rel);
  const entry = rooms.get(room) ?? { files: 0, lines: 0, largest: { file: "", lines: -1 } };
  entry.files++;
  entry.lines += lines;
  if (lines > entry.largest.lines) entry.largest = { file: rel.join("/"), lines };
  rooms.set(room, entry);
}

const rows = [...rooms].sort((a, b) => b[1].lines - a[1].lines);
const width = Math.max(...rows.map(([name]) => name.length));
let files = 0;
let lines = 0;
for (const [name, room] of rows) {
  files += room.files;
  lines += room.lines;
  process.stdout.write(`${name.padEnd(width)}  ${String(room.files).padStart(3)} files  ${String(room.lines).padStart(6)} lines  largest ${room.largest.file} (${room.largest.lines})\n`);
}
process.stdout.write(`${"total".padEnd(width)}  ${String(files).padStart(3)} files  ${String(lines).padStart(6)} lines  (src/harness/codex/protocol/ is generated and left out)\n`);
