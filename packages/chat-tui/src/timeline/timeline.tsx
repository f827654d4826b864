import { memo, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { TextAttributes, type ScrollBoxRenderable } from "@opentui/core";
import { useRenderer, useTerminalDimensions } from "@opentui/react";
import { useChat } from "../context.ts";
import { isCtrl, isPlainKey, KeyLayer, useKeyLayer } from "../keys/key-layers.tsx";
import type { TimelineHeader, TimelineItem } from "../types.ts";
import { useChatState } from "../use-chat-state.ts";
import { TimelineEntry } from "./timeline-item.tsx";
import { LIVE_BLOCK_CHARS, TimelineViewContext, type TimelineView } from "./timeline-view.ts";
import { tailWindow, WINDOW_MIN_ROWS, WINDOW_SCREENS } from "./window-rows.ts";

export interface TimelineProps {
  /** Items rendered at most at first; PageUp at the top loads this many more. */
  readonly windowSize: number;
  /** `TimelineView.liveBlockChars` (default `LIVE_BLOCK_CHARS`). */
  readonly liveBlockChars?: number;
}

function Header(props: { readonly header: TimelineHeader }): ReactNode {
  const { theme } = useChat();
  return (
    <box flexDirection="column" flexShrink={0} marginBottom={1}>
      <text fg={theme.accent} attributes={TextAttributes.BOLD}>
        {props.header.title}
      </text>
      {props.header.hint === undefined ? null : <text fg={theme.muted}>{props.header.hint}</text>}
    </box>
  );
}

/**
 * False until the renderer has drawn its first frame (#18: show the frame before anything not needed for it):
 * the first frame renders one screen of rows, the window grows to its few screens right after it.
 */
function useFirstFrameDrawn(): boolean {
  const renderer = useRenderer();
  const [drawn, setDrawn] = useState(false);
  useEffect(() => {
    if (drawn) return;
    const onFrame = (): void => setDrawn(true);
    renderer.once("frame", onFrame);
    return () => void renderer.off("frame", onFrame);
  }, [renderer, drawn]);
  return drawn;
}

/** The marker above the window: items not shown, and entries the host has not mapped yet (`older`). */
export function earlierMarker(earlier: number, older: number): string {
  const items = `${earlier} earlier item${earlier === 1 ? "" : "s"}`;
  const entries = `${older} older entr${older === 1 ? "y" : "ies"}`;
  const what = older === 0 ? items : earlier === 0 ? entries : `${items} and ${entries}`;
  return `↑ ${what} (PageUp to load more)`;
}

/**
 * The transcript: a sticky-bottom scrollbox over the last `windowSize` items, and no more than a few screens of
 * rows of them (`window-rows.ts`; older ones are summarised by an "↑ N earlier items" marker). Ctrl+O toggles expansion of clipped blocks; PageUp/PageDown scroll. A host
 * that maps a long history windowed says how many entries it left out (`older`); when the window needs more
 * items than the host gave, the view asks for them (`loadEarlier`) and shows them when they arrive.
 */
export const Timeline = memo(function Timeline(props: TimelineProps): ReactNode {
  const { store, theme, emit } = useChat();
  const state = useChatState(store, "timeline");
  const { width, height } = useTerminalDimensions();
  const [expanded, setExpanded] = useState(false);
  /** PageUp presses at the top: each shows one window more. */
  const [pages, setPages] = useState(0);
  const scroll = useRef<ScrollBoxRenderable>(null);

  const showThoughts = state.showThoughts !== false;
  const items = useMemo<readonly TimelineItem[]>(
    () => (showThoughts ? state.items : state.items.filter((i) => i.kind !== "thought")),
    [state.items, showThoughts],
  );
  const windowSize = props.windowSize * (1 + pages);
  const drawn = useFirstFrameDrawn();
  const windowRows = (drawn ? Math.max(WINDOW_MIN_ROWS, WINDOW_SCREENS * height) : height) * (1 + pages);
  const tail = useMemo(() => tailWindow(items, windowSize, windowRows, Math.max(10, width - 4)), [items, windowSize, windowRows, width]);
  const visible = tail.start === 0 ? items : items.slice(tail.start);
  const earlier = tail.start;
  const older = state.older ?? 0;
  // Everything the host gave is shown and the window has room: ask for older history (after the first frame,
  // which shows what the host mapped first).
  useEffect(() => {
    if (drawn && older > 0 && !tail.full) emit({ type: "loadEarlier", items: windowSize });
  }, [drawn, older, tail, windowSize, emit]);

  const liveBlockChars = props.liveBlockChars ?? LIVE_BLOCK_CHARS;
  const view = useMemo<TimelineView>(
    () => ({ expanded, width: Math.max(10, width - 4), previewRows: 5, liveBlockChars }),
    [expanded, width, liveBlockChars],
  );

  useKeyLayer(KeyLayer.surface, (key) => {
    if (isCtrl(key, "o")) {
      setExpanded((e) => !e);
      return "consume";
    }
    const box = scroll.current;
    if (box === null) return "pass";
    if (isPlainKey(key, "pageup")) {
      if (box.scrollTop <= 0 && (earlier > 0 || older > 0)) setPages((n) => n + 1);
      else box.scrollBy(-1 / 2, "viewport");
      return "consume";
    }
    if (isPlainKey(key, "pagedown")) {
      box.scrollBy(1 / 2, "viewport");
      return "consume";
    }
    return "pass";
  });

  return (
    <TimelineViewContext.Provider value={view}>
      <scrollbox
        ref={scroll}
        flexGrow={1}
        flexShrink={1}
        stickyScroll={true}
        stickyStart="bottom"
        viewportCulling={true}
        paddingLeft={1}
        paddingRight={1}
      >
        {state.header === undefined ? null : <Header header={state.header} />}
        {earlier > 0 || older > 0 ? (
          <text fg={theme.muted} attributes={TextAttributes.DIM} flexShrink={0}>
            {earlierMarker(earlier, older)}
          </text>
        ) : null}
        {visible.map((item, i) => (
          <TimelineEntry key={item.id} item={item} first={i === 0 && earlier === 0 && older === 0} />
        ))}
      </scrollbox>
    </TimelineViewContext.Provider>
  );
});
