import { Profiler, useEffect, useMemo, useRef, type ReactNode } from "react";
import type { TreeSitterClient } from "@opentui/core";
import { ActivityLine } from "./activity/activity-line.tsx";
import { Composer } from "./composer/composer.tsx";
import { ChatContext, useChat, type ChatContextValue, type ComposerHandle, type NowFn } from "./context.ts";
import { Footer } from "./footer/footer.tsx";
import type { ChatIntent, IntentHandler } from "./intents.ts";
import { isCtrl, isPlainKey, KeyLayer, KeyLayerProvider, useKeyLayer } from "./keys/key-layers.tsx";
import { createMarkdownStyle } from "./markdown-style.ts";
import { installMarkdownParsers } from "./markdown/parsers.ts";
import { PickerOverlay } from "./picker/picker-overlay.tsx";
import { Sidecar } from "./sidecar/sidecar.tsx";
import type { ChatStore } from "./store.ts";
import { defaultTheme, type ChatTheme } from "./theme.ts";
import { PinnedPlan } from "./timeline/pinned-plan.tsx";
import { Timeline } from "./timeline/timeline.tsx";
import { DEFAULT_TIMELINE_WINDOW } from "./timeline/timeline-view.ts";
import type { ChatCommand, MentionQuery } from "./types.ts";

/** Surfaces reported to `onSurfaceRender` (a React Profiler per surface). */
export type ChatSurface = "timeline" | "activity" | "composer" | "footer" | "sidecar" | "picker";

export interface ChatAppProps {
  readonly store: ChatStore;
  readonly onIntent: IntentHandler;
  readonly commands: readonly ChatCommand[];
  readonly theme?: ChatTheme;
  readonly onMentionQuery?: MentionQuery;
  /** Clock for elapsed timers and the Ctrl+C double-press window. Defaults to `Date.now`. */
  readonly now?: NowFn;
  /** Tree-sitter client for markdown highlighting. Defaults to OpenTUI's shared client. */
  readonly treeSitterClient?: TreeSitterClient;
  /** Timeline items rendered at first (older ones load with PageUp). Defaults to 100. */
  readonly timelineWindow?: number;
  /** A streaming message's markdown freezes what is finished once its last block is longer (default 2048). */
  readonly liveBlockChars?: number;
  /** Called whenever a surface re-rendered (for instrumentation and tests). */
  readonly onSurfaceRender?: (surface: ChatSurface) => void;
}

const EXIT_WINDOW_MS = 1500;

function GlobalKeys(props: { readonly busy: () => boolean }): null {
  const { emit, now, composer } = useChat();
  const lastCtrlC = useRef(Number.NEGATIVE_INFINITY);

  useKeyLayer(KeyLayer.system, (key) => {
    if (!isCtrl(key, "c")) return "pass";
    const t = now();
    if (t - lastCtrlC.current <= EXIT_WINDOW_MS) {
      lastCtrlC.current = Number.NEGATIVE_INFINITY;
      emit({ type: "exit" });
      return "consume";
    }
    lastCtrlC.current = t;
    emit({ type: "clearDraft", cleared: composer.current?.clear() === true });
    return "consume";
  });

  useKeyLayer(KeyLayer.application, (key) => {
    if (isPlainKey(key, "escape")) {
      emit({ type: "cancel" });
      return "consume";
    }
    if (key.name === "tab" && key.shift && !key.ctrl && !key.meta) {
      emit({ type: "cycleMode" });
      return "consume";
    }
    if (isCtrl(key, "d") && (composer.current?.text() ?? "") === "" && !props.busy()) {
      emit({ type: "exit" });
      return "consume";
    }
    return "pass";
  });
  return null;
}

function Surface(props: {
  readonly id: ChatSurface;
  readonly onRender: ((surface: ChatSurface) => void) | undefined;
  readonly children: ReactNode;
}): ReactNode {
  const { onRender } = props;
  if (onRender === undefined) return props.children;
  return (
    <Profiler id={props.id} onRender={() => onRender(props.id)}>
      {props.children}
    </Profiler>
  );
}

/**
 * The chat screen: timeline, pinned plan, activity line, composer (queue, dock, editor), footer, sidecar and
 * picker overlay. Attributes come from `store`; everything the user decides goes to `onIntent`.
 */
export function ChatApp(props: ChatAppProps): ReactNode {
  const theme = props.theme ?? defaultTheme;
  const intentRef = useRef(props.onIntent);
  intentRef.current = props.onIntent;
  const composer = useRef<ComposerHandle | null>(null);
  const syntaxStyle = useMemo(() => createMarkdownStyle(theme), [theme]);
  // Before any markdown renders: inline markdown must conceal markup only, never the agent's text.
  useMemo(() => installMarkdownParsers(props.treeSitterClient), [props.treeSitterClient]);
  useEffect(() => () => syntaxStyle.destroy(), [syntaxStyle]);

  const value = useMemo<ChatContextValue>(
    () => ({
      store: props.store,
      theme,
      emit: (intent: ChatIntent) => intentRef.current(intent),
      now: props.now ?? Date.now,
      syntaxStyle,
      treeSitterClient: props.treeSitterClient,
      composer,
    }),
    [props.store, theme, props.now, syntaxStyle, props.treeSitterClient],
  );
  const store = props.store;
  const busy = useMemo(() => () => store.get("composer").busy === true, [store]);
  const onRender = props.onSurfaceRender;

  return (
    <ChatContext.Provider value={value}>
      <KeyLayerProvider>
        <GlobalKeys busy={busy} />
        <box flexDirection="row" width="100%" height="100%">
          <box flexDirection="column" flexGrow={1} flexShrink={1}>
            <Surface id="timeline" onRender={onRender}>
              <Timeline windowSize={props.timelineWindow ?? DEFAULT_TIMELINE_WINDOW} {...(props.liveBlockChars === undefined ? {} : { liveBlockChars: props.liveBlockChars })} />
              <PinnedPlan />
            </Surface>
            <Surface id="activity" onRender={onRender}>
              <ActivityLine />
            </Surface>
            <Surface id="composer" onRender={onRender}>
              <Composer
                commands={props.commands}
                {...(props.onMentionQuery === undefined ? {} : { onMentionQuery: props.onMentionQuery })}
              />
            </Surface>
            <Surface id="footer" onRender={onRender}>
              <Footer />
            </Surface>
          </box>
          <Surface id="sidecar" onRender={onRender}>
            <Sidecar />
          </Surface>
          <Surface id="picker" onRender={onRender}>
            <PickerOverlay />
          </Surface>
        </box>
      </KeyLayerProvider>
    </ChatContext.Provider>
  );
}
