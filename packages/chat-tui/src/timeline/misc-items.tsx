import type { ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useChat } from "../context.ts";
import { toneColor } from "../theme.ts";
import type { ErrorItem, NoticeItem, PlanEntry, PlanItem, ReviewItem } from "../types.ts";
import { planEntryLook } from "./status.ts";

export function PlanEntries(props: { readonly entries: readonly PlanEntry[] }): ReactNode {
  const { theme } = useChat();
  return (
    <box flexDirection="column">
      {props.entries.map((entry, i) => {
        const look = planEntryLook(theme, entry.status);
        const done = entry.status === "completed";
        return (
          <text key={i}>
            <span fg={look.color}>{`${look.icon} `}</span>
            <span fg={done ? theme.muted : theme.text} attributes={done ? TextAttributes.STRIKETHROUGH : 0}>
              {entry.text}
            </span>
          </text>
        );
      })}
    </box>
  );
}

export function PlanBlock(props: { readonly item: PlanItem }): ReactNode {
  const { theme } = useChat();
  const done = props.item.entries.filter((e) => e.status === "completed").length;
  return (
    <box flexDirection="column">
      <text>
        <span fg={theme.accent}>{"▤ "}</span>
        <span fg={theme.text} attributes={TextAttributes.BOLD}>
          {props.item.title ?? "Plan"}
        </span>
        <span fg={theme.muted}>{` ${done}/${props.item.entries.length}`}</span>
      </text>
      <box paddingLeft={2}>
        <PlanEntries entries={props.item.entries} />
      </box>
    </box>
  );
}

const NOTICE_ICON = { info: "ℹ", success: "✓", warning: "⚠", error: "✗" } as const;

export function Notice(props: { readonly item: NoticeItem }): ReactNode {
  const { theme } = useChat();
  const { item } = props;
  const color = toneColor(theme, item.tone);
  return (
    <text>
      <span fg={color}>{`${NOTICE_ICON[item.tone]} `}</span>
      <span fg={item.tone === "info" ? theme.muted : color}>{item.title}</span>
      {item.detail === undefined ? null : <span fg={theme.muted}>{` · ${item.detail}`}</span>}
    </text>
  );
}

export function ErrorBlock(props: { readonly item: ErrorItem }): ReactNode {
  const { theme } = useChat();
  const { item } = props;
  return (
    <box flexDirection="column" border={["left"]} borderColor={theme.error} paddingLeft={1}>
      <text fg={theme.error} attributes={TextAttributes.BOLD}>
        {item.code === undefined ? "Error" : `Error: ${item.code}`}
      </text>
      <text fg={theme.text}>{item.message}</text>
    </box>
  );
}

function decisionColor(props: { readonly decision: string }, theme: ReturnType<typeof useChat>["theme"]): string {
  switch (props.decision) {
    case "approved":
      return theme.success;
    case "denied":
      return theme.error;
    default:
      return theme.warning;
  }
}

/** Receipt of an approval review: what was asked and what was decided. */
export function ReviewReceipt(props: { readonly item: ReviewItem }): ReactNode {
  const { theme } = useChat();
  const { item } = props;
  const color = decisionColor(item, theme);
  return (
    <box flexDirection="column">
      <text>
        <span fg={color}>{"⚖ "}</span>
        <span fg={theme.text}>{item.title}</span>
        <span fg={theme.muted}>{" → "}</span>
        <span fg={color} attributes={TextAttributes.BOLD}>
          {item.decision}
        </span>
        {item.author === undefined ? null : <span fg={theme.muted}>{` · ${item.author}`}</span>}
      </text>
      {item.detail === undefined ? null : (
        <box paddingLeft={2}>
          <text fg={theme.muted}>{item.detail}</text>
        </box>
      )}
    </box>
  );
}
