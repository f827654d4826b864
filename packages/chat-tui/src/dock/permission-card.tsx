import { useState, type ReactNode } from "react";
import { useTerminalDimensions } from "@opentui/react";
import { useChat } from "../context.ts";
import { isPlainKey, isPrintable, KeyLayer, useKeyLayer } from "../keys/key-layers.tsx";
import type { PermissionCard } from "../types.ts";
import { DiffView } from "../timeline/diff-view.tsx";
import { CardFrame, digitIndex, escResponseOf, OptionRow } from "./card-frame.tsx";

/** Rows the card keeps for everything but its diffs (frame, title, options, hint) and the composer below. */
const CARD_CHROME_ROWS = 12;

/** Numbered options from the data: 1..9 selects, ↑/↓ + Enter, Esc sends the card's Esc response. */
export function PermissionCardView(props: {
  readonly card: PermissionCard;
  readonly active: boolean;
  readonly pending: number;
}): ReactNode {
  const { emit } = useChat();
  const { height } = useTerminalDimensions();
  const { card } = props;
  const [cursor, setCursor] = useState(0);
  const count = card.options.length;
  const diffs = card.diffs ?? [];
  // The change is shown before the decision, fitted to the screen; the transcript's tool block has it in full.
  const diffRows = Math.max(3, Math.floor((height - CARD_CHROME_ROWS - count) / Math.max(1, diffs.length)) - 1);

  const choose = (index: number): void => {
    const option = card.options[index];
    if (option !== undefined) emit({ type: "resolveInteraction", id: card.id, response: { outcome: "selected", optionId: option.id } });
  };

  useKeyLayer(KeyLayer.modal, (key) => {
    if (!props.active) return "pass";
    const digit = digitIndex(key.name, key.ctrl, key.meta);
    if (digit !== null) {
      if (digit < count) choose(digit);
      return "consume";
    }
    if (isPlainKey(key, "up")) {
      setCursor((c) => (c - 1 + count) % Math.max(1, count));
      return "consume";
    }
    if (isPlainKey(key, "down")) {
      setCursor((c) => (c + 1) % Math.max(1, count));
      return "consume";
    }
    if (isPlainKey(key, "return")) {
      choose(cursor);
      return "consume";
    }
    if (isPlainKey(key, "escape")) {
      emit({ type: "resolveInteraction", id: card.id, response: escResponseOf(card) });
      return "consume";
    }
    return isPrintable(key) || isPlainKey(key, "tab") || key.name === "backspace" ? "consume" : "pass";
  });

  return (
    <CardFrame card={card} hint="1-9 or ↑↓ Enter choose" pending={props.pending}>
      {diffs.map((diff, i) => (
        <DiffView
          key={`diff-${i}`}
          op={diff.op}
          path={diff.path}
          {...(diff.oldPath === undefined ? {} : { oldPath: diff.oldPath })}
          {...(diff.patch === undefined ? {} : { patch: diff.patch })}
          maxRows={diffRows}
          moreHint="(in full in the transcript)"
        />
      ))}
      {card.options.map((option, i) => (
        <OptionRow
          key={option.id}
          index={i}
          label={option.label}
          {...(option.hint === undefined ? {} : { hint: option.hint })}
          active={i === cursor}
        />
      ))}
    </CardFrame>
  );
}
