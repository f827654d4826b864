/** Clipping of long block bodies by visual rows (VIEW-04). Pure. */

export interface ClipResult {
  readonly lines: readonly string[];
  /** Logical lines hidden below the preview. */
  readonly hidden: number;
}

/** Visual rows a line occupies when wrapped at `width` columns. */
export function visualRows(line: string, width: number): number {
  if (width <= 0) return 1;
  const w = Bun.stringWidth(line);
  return Math.max(1, Math.ceil(w / width));
}

/**
 * Keeps leading lines until `maxRows` visual rows are used. When something is hidden, one row is left for
 * the "… +N lines" marker. `expanded` returns everything.
 */
export function clipLines(lines: readonly string[], maxRows: number, width: number, expanded: boolean): ClipResult {
  if (expanded) return { lines, hidden: 0 };
  let rows = 0;
  for (const line of lines) rows += visualRows(line, width);
  if (rows <= maxRows) return { lines, hidden: 0 };
  const budget = Math.max(1, maxRows - 1);
  const kept: string[] = [];
  rows = 0;
  for (const line of lines) {
    const r = visualRows(line, width);
    if (rows + r > budget && kept.length > 0) break;
    kept.push(line);
    rows += r;
  }
  return { lines: kept, hidden: lines.length - kept.length };
}

export function splitLines(text: string): string[] {
  const trimmed = text.endsWith("\n") ? text.slice(0, -1) : text;
  return trimmed.split(/\r?\n/);
}

export function hiddenMarker(hidden: number): string {
  return `… +${hidden} line${hidden === 1 ? "" : "s"} (ctrl+o to expand)`;
}
