import type { ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useChat } from "../context.ts";
import { authorAccent } from "../theme.ts";
import type { InteractionCard } from "../types.ts";

const CANCELLED = { outcome: "cancelled" } as const;

/** Response a card sends on Esc. */
export function escResponseOf(card: InteractionCard): NonNullable<InteractionCard["escResponse"]> {
  return card.escResponse ?? CANCELLED;
}

/** Border, title, description and key-hint footer shared by all cards. */
export function CardFrame(props: {
  readonly card: InteractionCard;
  readonly hint: string;
  readonly pending: number;
  readonly children: ReactNode;
}): ReactNode {
  const { theme } = useChat();
  const { card } = props;
  const accent = authorAccent(theme, card.authorKey, theme.warning);
  const title = card.author === undefined ? card.title : `${card.title} · ${card.author}`;
  return (
    <box
      flexDirection="column"
      flexShrink={0}
      border={true}
      borderStyle="rounded"
      borderColor={accent}
      paddingLeft={1}
      paddingRight={1}
    >
      <text fg={accent} attributes={TextAttributes.BOLD}>
        {title}
      </text>
      {card.description === undefined ? null : <text fg={theme.text}>{card.description}</text>}
      {props.children}
      <text fg={theme.muted} attributes={TextAttributes.DIM}>
        {`${props.hint} · Esc ${card.escLabel ?? "cancel"}${props.pending > 0 ? ` · +${props.pending} pending` : ""}`}
      </text>
    </box>
  );
}

/** One selectable row: cursor marker, number, label, optional hint. */
export function OptionRow(props: {
  readonly index: number;
  readonly label: string;
  readonly hint?: string;
  readonly active: boolean;
  readonly mark?: string;
}): ReactNode {
  const { theme } = useChat();
  return (
    <text>
      <span fg={props.active ? theme.accent : theme.muted}>{props.active ? "❯ " : "  "}</span>
      {props.mark === undefined ? null : <span fg={theme.accent}>{`${props.mark} `}</span>}
      <span fg={theme.muted}>{`${props.index + 1}. `}</span>
      <span fg={props.active ? theme.selectedFg : theme.text} attributes={props.active ? TextAttributes.BOLD : 0}>
        {props.label}
      </span>
      {props.hint === undefined ? null : <span fg={theme.muted}>{`  ${props.hint}`}</span>}
    </text>
  );
}

/** Digit key 1..9 as a zero-based index, else null. */
export function digitIndex(name: string, ctrl: boolean, meta: boolean): number | null {
  if (ctrl || meta || !/^[1-9]$/.test(name)) return null;
  return Number(name) - 1;
}
