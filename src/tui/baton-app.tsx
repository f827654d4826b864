/** The Baton screen: chat-tui's ChatApp fed by a TuiHost, coloured per target from the harness definitions. */
import { useMemo, type ReactNode } from "react";
import { ChatApp, createTheme, type ChatSurface, type ChatTheme, type NowFn } from "chat-tui";
import type { TuiHost } from "./tui-host.ts";
import type { TargetLook } from "./targets.ts";

/** Author colours come from each target's definition (`color`), keyed by target id. */
export function batonTheme(lookOf: (targetId: string | null) => TargetLook): ChatTheme {
  return createTheme({ authorColor: (key) => lookOf(key).color });
}

export interface BatonAppProps {
  readonly host: TuiHost;
  readonly now?: NowFn;
  readonly timelineWindow?: number;
  readonly onSurfaceRender?: (surface: ChatSurface) => void;
}

export function BatonApp(props: BatonAppProps): ReactNode {
  const { host } = props;
  const theme = useMemo(() => batonTheme(host.lookOf), [host]);
  return (
    <ChatApp
      store={host.store}
      onIntent={host.handle}
      commands={host.commands}
      theme={theme}
      onMentionQuery={host.mentionQuery}
      {...(props.now === undefined ? {} : { now: props.now })}
      timelineWindow={props.timelineWindow ?? host.timelineWindow}
      {...(props.onSurfaceRender === undefined ? {} : { onSurfaceRender: props.onSurfaceRender })}
    />
  );
}
