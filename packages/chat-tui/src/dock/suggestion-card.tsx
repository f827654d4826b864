import type { ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useChat } from "../context.ts";
import { isPlainKey, isPrintable, KeyLayer, useKeyLayer } from "../keys/key-layers.tsx";
import { SUGGESTION_EDIT, SUGGESTION_SEND, SUGGESTION_TARGET, type SuggestionCard } from "../types.ts";
import { CardFrame, escResponseOf } from "./card-frame.tsx";

/** Lines of the suggested text shown on the card (the rest is one "…" line; `e` shows it all in the editor). */
const MAX_TEXT_LINES = 6;

/** A suggested next input (TUI-09): Enter sends it, `e` edits it in the composer, `t` picks its target, Esc dismisses it. */
export function SuggestionCardView(props: {
  readonly card: SuggestionCard;
  readonly active: boolean;
  readonly pending: number;
}): ReactNode {
  const { emit, theme } = useChat();
  const { card } = props;
  const lines = card.text.split("\n");
  const shown = lines.length > MAX_TEXT_LINES ? [...lines.slice(0, MAX_TEXT_LINES), `… (${lines.length - MAX_TEXT_LINES} more lines)`] : lines;

  useKeyLayer(KeyLayer.modal, (key) => {
    if (!props.active) return "pass";
    if (isPlainKey(key, "return")) {
      emit({ type: "resolveInteraction", id: card.id, response: { outcome: "selected", optionId: SUGGESTION_SEND } });
      return "consume";
    }
    if (isPlainKey(key, "e")) {
      emit({ type: "resolveInteraction", id: card.id, response: { outcome: "selected", optionId: SUGGESTION_EDIT } });
      return "consume";
    }
    if (isPlainKey(key, "t")) {
      emit({ type: "resolveInteraction", id: card.id, response: { outcome: "selected", optionId: SUGGESTION_TARGET } });
      return "consume";
    }
    if (isPlainKey(key, "escape")) {
      emit({ type: "resolveInteraction", id: card.id, response: escResponseOf(card) });
      return "consume";
    }
    return isPrintable(key) || isPlainKey(key, "tab") || key.name === "backspace" ? "consume" : "pass";
  });

  const to = card.target === undefined ? "" : ` · to ${card.target}`;
  return (
    <CardFrame card={{ ...card, escLabel: card.escLabel ?? "dismiss" }} hint={`Enter send${to} · e edit · t target`} pending={props.pending}>
      <text fg={theme.muted}>{`Suggested by ${card.requester}`}</text>
      {shown.map((line, i) => (
        <text key={`line-${i}`} fg={theme.text} attributes={i >= MAX_TEXT_LINES ? TextAttributes.DIM : 0}>
          {line === "" ? " " : line}
        </text>
      ))}
    </CardFrame>
  );
}
