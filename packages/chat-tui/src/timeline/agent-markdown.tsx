/**
 * An agent message's markdown (#18): while it streams, its finished part is frozen in markdowns that never change
 * again and only the tail is a live markdown, so a publication re-renders the tail alone
 * (`markdown/stream-segments.ts` says where it may split and why the frame stays the same). It splits when the
 * tail's last block (what each publication draws again) passes `TimelineView.liveBlockChars`. A message that is not
 * streaming when it mounts is one markdown, as is a streamed one whose text stops extending what was frozen.
 *
 * While the message streams, the live markdown takes the text a publication added in a task of its own
 * (`useTextInOwnTask`). OpenTUI re-lexes and re-styles the tail when its content changes (≈ 1.5–2 ms, more in a
 * cold process); inside the publication's commit that came on top of React's own work and the unmounting of items
 * that scrolled out of the window, in one stretch of the main thread (`bench/markdown-stall.tsx`). Apart, a key or
 * a timer runs between the two. The screen is one task behind the publication at most.
 */
import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import type { MarkdownRenderable } from "@opentui/core";
import { useChat } from "../context.ts";
import { keepBlockText } from "../markdown/block-text.ts";
import { cutParseState } from "../markdown/paragraph-pieces.ts";
import { finishedPart, type FinishedPart } from "../markdown/stream-segments.ts";
import { drawBeforeHighlight } from "../markdown/unstyled-blocks.ts";
import { useTimelineView } from "./timeline-view.ts";

interface Segment {
  readonly content: string;
  readonly gap: number;
}

interface Split {
  /** The frozen segments, in order; `frozen` is their text (a prefix of the message's). */
  segments: readonly Segment[];
  frozen: string;
  /** The text the live markdown was last given, and the finished part its last update found in it. */
  live: string;
  pending: FinishedPart | undefined;
  streaming: boolean;
  liveBlockChars: number;
}

/**
 * `text`, except that while `ownTask` is on, a text that extends the one drawn reaches the caller in a render of its
 * own, scheduled after the task that made the change (`setImmediate`: before the next timers and input). Any other
 * change (a freeze cuts the live text, a rewrite, the end of streaming) is drawn at once, so the frame never shows
 * a text twice or out of order.
 */
export function useTextInOwnTask(text: string, ownTask: boolean): string {
  const [shown, setShown] = useState(text);
  const later = ownTask && text !== shown && text.startsWith(shown);
  useEffect(() => {
    if (shown === text) return;
    if (!later) {
      // Drawn from `text` already: keep `shown` current for the next extension.
      setShown(text);
      return;
    }
    const handle = setImmediate(() => setShown(text));
    return () => clearImmediate(handle);
  }, [text, shown, later]);
  return later ? shown : text;
}

function Markdown(props: {
  readonly content: string;
  readonly gap: number;
  /** Take content changes in a task of their own (the live markdown while its message streams). */
  readonly ownTask?: boolean;
  readonly onParsed?: (md: MarkdownRenderable) => void;
}): ReactNode {
  const { theme, syntaxStyle, treeSitterClient } = useChat();
  const parsed = useRef<MarkdownRenderable>(null);
  const { onParsed } = props;
  const content = useTextInOwnTask(props.content, props.ownTask === true);
  // After each content update: the next one re-lexes two paragraph pieces, not a whole long paragraph; blocks
  // updated in place draw what new ones draw; code blocks not highlighted yet draw their text, not blank rows.
  useLayoutEffect(() => {
    cutParseState(parsed.current);
    keepBlockText(parsed.current);
    drawBeforeHighlight(parsed.current);
    if (parsed.current !== null) onParsed?.(parsed.current);
  }, [content, onParsed]);
  return (
    <markdown
      ref={parsed}
      content={content}
      syntaxStyle={syntaxStyle}
      fg={theme.text}
      conceal={true}
      // Streaming mode draws text before highlighting finishes; kept on so finished messages never blank.
      streaming={true}
      {...(props.gap === 0 ? {} : { marginBottom: props.gap })}
      {...(treeSitterClient === undefined ? {} : { treeSitterClient })}
    />
  );
}

/** A finished segment: its props never change, so it is never rendered again. */
const FrozenMarkdown = memo(function FrozenMarkdown(props: Segment): ReactNode {
  return <Markdown content={props.content} gap={props.gap} />;
});

export function AgentMarkdown(props: { readonly text: string; readonly streaming: boolean }): ReactNode {
  const { liveBlockChars } = useTimelineView();
  const split = useRef<Split>({ segments: [], frozen: "", live: "", pending: undefined, streaming: props.streaming, liveBlockChars });
  const state = split.current;
  const { text } = props;
  state.streaming = props.streaming;
  state.liveBlockChars = liveBlockChars;
  if (!text.startsWith(state.frozen)) {
    state.segments = [];
    state.frozen = "";
  } else if (state.pending !== undefined && text.startsWith(state.live, state.frozen.length)) {
    // Freeze what the live markdown's last update found finished (the text still extends what it was found in).
    const content = state.live.slice(0, state.pending.length);
    state.segments = [...state.segments, { content, gap: state.pending.gap }];
    state.frozen += content;
  }
  state.pending = undefined;
  state.live = text.slice(state.frozen.length);
  const onParsed = useCallback((md: MarkdownRenderable): void => {
    const current = split.current;
    // Only a long last block is worth a split: freezing creates the frozen part's renderables (and highlights)
    // again, once; a short one costs each publication little.
    const last = md._blockStates.at(-1);
    const long = last !== undefined && last.token.type === "paragraph" && last.tokenRaw.length > current.liveBlockChars;
    current.pending = current.streaming && long && md.content === current.live ? finishedPart(md._parseState?.tokens ?? []) : undefined;
  }, []);
  return (
    <>
      {state.segments.map((segment, i) => (
        <FrozenMarkdown key={i} content={segment.content} gap={segment.gap} />
      ))}
      <Markdown key="live" content={state.live} gap={0} ownTask={props.streaming} onParsed={onParsed} />
    </>
  );
}
