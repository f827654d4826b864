import type { ReactNode } from "react";
import { useChat } from "../context.ts";
import type { QueuedInput } from "../types.ts";

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length < text.length ? `${line} …` : line;
}

/** Inputs waiting for the running turn, newest last, each tagged with its target. */
export function QueuedList(props: { readonly queued: readonly QueuedInput[] }): ReactNode {
  const { theme } = useChat();
  if (props.queued.length === 0) return null;
  return (
    <box flexDirection="column" flexShrink={0} paddingLeft={1} paddingRight={1}>
      {props.queued.map((q) => (
        <text key={q.id} wrapMode="none">
          <span fg={theme.muted}>{"⏸ queued"}</span>
          {q.target === undefined ? null : <span fg={theme.accent}>{` → ${q.target}`}</span>}
          <span fg={theme.muted}>{": "}</span>
          <span fg={theme.text}>{firstLine(q.text)}</span>
        </text>
      ))}
    </box>
  );
}
