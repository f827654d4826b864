import { memo, useEffect, useState, type ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useChat } from "../context.ts";
import { authorAccent, toneColor } from "../theme.ts";
import type { ActivityItem } from "../types.ts";
import { useChatState } from "../use-chat-state.ts";
import { formatElapsed, spinnerFrame } from "./elapsed.ts";

function ActivityRow(props: { readonly item: ActivityItem; readonly now: number }): ReactNode {
  const { theme } = useChat();
  const { item } = props;
  const running = item.startedAt !== undefined;
  const elapsed = running ? props.now - (item.startedAt ?? props.now) : 0;
  const color = item.tone === undefined ? authorAccent(theme, item.authorKey, theme.accent) : toneColor(theme, item.tone);
  return (
    <text>
      <span fg={color}>{running ? `${spinnerFrame(elapsed)} ` : "· "}</span>
      {item.author === undefined ? null : <span fg={color}>{`${item.author} · `}</span>}
      <span fg={theme.text}>{item.label}</span>
      {running ? <span fg={theme.muted}>{` (${formatElapsed(elapsed)})`}</span> : null}
      {item.hint === undefined ? null : (
        <span fg={theme.muted} attributes={TextAttributes.DIM}>
          {`  ${item.hint}`}
        </span>
      )}
    </text>
  );
}

/** Run status rows: spinner, label, elapsed time ticking locally once a second, hint. */
export const ActivityLine = memo(function ActivityLine(): ReactNode {
  const { store, now } = useChat();
  const items = useChatState(store, "activity").items ?? [];
  const ticking = items.some((i) => i.startedAt !== undefined);
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!ticking) return;
    const handle = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(handle);
  }, [ticking]);
  if (items.length === 0) return null;
  const t = now();
  return (
    <box flexDirection="column" flexShrink={0} paddingLeft={1} paddingRight={1}>
      {items.map((item) => (
        <ActivityRow key={item.id} item={item} now={t} />
      ))}
    </box>
  );
});
