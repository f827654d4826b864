import type { ReactNode } from "react";
import { useChat } from "../context.ts";
import type { QueuedInput } from "../types.ts";

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length < text.length ? `${line} …` : line;
}

export const PAUSED_HINT = "paused after recovery: Enter to send, ↑ to edit, Esc to drop";

/** Inputs waiting for the running turn (or, paused, for the user), newest last, each tagged with its target. */
export function QueuedList(props: { readonly queued: readonly QueuedInput[] }): ReactNode {
  const { theme } = useChat();
  if (props.queued.length === 0) return null;
  const paused = props.queued.some((q) => q.paused === true);
  return (
    <box flexDirection="column" flexShrink={0} paddingLeft={1} paddingRight={1}>
      {paused ? (
        <text wrapMode="none">
          <span fg={theme.warning}>{PAUSED_HINT}</span>
        </text>
      ) : null}
      {props.queued.map((q) => (
        <text key={q.id} wrapMode="none">
          <span fg={theme.muted}>{q.paused === true ? "⏸ paused" : "⏸ queued"}</span>
          {q.target === undefined ? null : <span fg={theme.accent}>{` → ${q.target}`}</span>}
          <span fg={theme.muted}>{": "}</span>
          <span fg={theme.text}>{firstLine(q.text)}</span>
        </text>
      ))}
    </box>
  );
}
