import { createContext, useContext } from "react";

/** Timeline items rendered at first (PageUp at the top shows this many more); hosts that map windowed use it too. */
export const DEFAULT_TIMELINE_WINDOW = 100;

/** Per-timeline display settings shared by all items (changes re-render items; items are memoised otherwise). */
export interface TimelineView {
  /** Ctrl+O: show clipped blocks in full. */
  readonly expanded: boolean;
  /** Columns available to item bodies. */
  readonly width: number;
  /** Visual rows of a clipped preview. */
  readonly previewRows: number;
  /** A streaming message's live markdown splits off its last block once it is longer (`agent-markdown.tsx`). */
  readonly liveBlockChars: number;
}

/** The default of `TimelineView.liveBlockChars`. */
export const LIVE_BLOCK_CHARS = 2048;

export const TimelineViewContext = createContext<TimelineView>({ expanded: false, width: 80, previewRows: 5, liveBlockChars: LIVE_BLOCK_CHARS });

export function useTimelineView(): TimelineView {
  return useContext(TimelineViewContext);
}
