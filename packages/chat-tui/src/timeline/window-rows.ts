/**
 * How much of the transcript the view renders (#18). Every rendered item is a renderable whose creation does its
 * work (a markdown message is parsed then, however far above the viewport it sits), so the window is bounded by
 * rows as well as by items: from the end, items until either `maxItems` or `maxRows` estimated rows. The estimate
 * errs low (markdown structure, tool output and cards count as little as they can take), so a window of a few
 * screens always fills the screen. Pure.
 */
import type { TimelineItem } from "../types.ts";
import { visualRows } from "./clip.ts";

/** Rows of the window at least, and per terminal row (a window is several screens). */
export const WINDOW_MIN_ROWS = 200;
export const WINDOW_SCREENS = 5;

function textRows(text: string, width: number): number {
  let rows = 0;
  let from = 0;
  for (;;) {
    const end = text.indexOf("\n", from);
    rows += visualRows(end < 0 ? text.slice(from) : text.slice(from, end), width);
    if (end < 0) return rows;
    from = end + 1;
  }
}

/** A low estimate of the rows an item takes at `width` columns, with its top margin. */
export function estimateRows(item: TimelineItem, width: number): number {
  switch (item.kind) {
    case "user":
      return 1 + textRows(item.text, Math.max(1, width - 2));
    case "agent":
      return 2 + textRows(item.text, Math.max(1, width - 2));
    default:
      return 2;
  }
}

export interface TailWindow {
  /** Index of the first item rendered. */
  readonly start: number;
  /** A bound stopped the window (false: it holds every item and still has room). */
  readonly full: boolean;
}

/** The last items of `items` within `maxItems` items and `maxRows` estimated rows (at least one item). */
export function tailWindow(items: readonly TimelineItem[], maxItems: number, maxRows: number, width: number): TailWindow {
  let rows = 0;
  let start = items.length;
  while (start > 0) {
    if (items.length - start >= maxItems || rows >= maxRows) return { start, full: true };
    start--;
    rows += estimateRows(items[start] as TimelineItem, width);
  }
  return { start: 0, full: items.length >= maxItems || rows >= maxRows };
}
