/** Unified diff → numbered display rows. Pure. */

export type DiffRowKind = "add" | "remove" | "context" | "hunk" | "meta";

export interface DiffRow {
  readonly kind: DiffRowKind;
  /** Line number in the old file (remove/context rows). */
  readonly oldLine?: number;
  /** Line number in the new file (add/context rows). */
  readonly newLine?: number;
  readonly text: string;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/;
/** A hunk whose position is not known (an edit shown before it is applied): rows get no line numbers. */
const BARE_HUNK = /^@@ @@(.*)$/;

export function parseUnifiedDiff(patch: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  let numbered = true;
  let inHunk = false;
  for (const raw of patch.replace(/\n$/, "").split(/\r?\n/)) {
    const hunk = HUNK.exec(raw);
    if (hunk !== null) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      numbered = true;
      inHunk = true;
      rows.push({ kind: "hunk", text: raw });
      continue;
    }
    const bare = BARE_HUNK.exec(raw);
    if (bare !== null) {
      numbered = false;
      inHunk = true;
      rows.push({ kind: "hunk", text: bare[1]?.trim() || "…" });
      continue;
    }
    if (!inHunk || raw.startsWith("\\")) {
      if (raw.startsWith("---") || raw.startsWith("+++") || raw.startsWith("diff ") || raw.startsWith("index ")) {
        continue;
      }
      rows.push({ kind: "meta", text: raw });
      continue;
    }
    const sign = raw[0];
    const text = raw.slice(1);
    if (!numbered) rows.push({ kind: sign === "+" ? "add" : sign === "-" ? "remove" : "context", text });
    else if (sign === "+") rows.push({ kind: "add", newLine: newLine++, text });
    else if (sign === "-") rows.push({ kind: "remove", oldLine: oldLine++, text });
    else rows.push({ kind: "context", oldLine: oldLine++, newLine: newLine++, text });
  }
  return rows;
}

/** Width of the line-number gutter for a set of rows. */
export function gutterWidth(rows: readonly DiffRow[]): number {
  let max = 0;
  for (const row of rows) max = Math.max(max, row.oldLine ?? 0, row.newLine ?? 0);
  return Math.max(2, String(max).length);
}

export function diffStats(rows: readonly DiffRow[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const row of rows) {
    if (row.kind === "add") added++;
    else if (row.kind === "remove") removed++;
  }
  return { added, removed };
}
