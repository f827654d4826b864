import { useRef, useState, type ReactNode } from "react";
import { TextAttributes, type InputRenderable } from "@opentui/core";
import { useChat } from "../context.ts";
import { isPlainKey, isPrintable, KeyLayer, useKeyLayer } from "../keys/key-layers.tsx";
import type { QuestionAnswer, QuestionCard } from "../types.ts";
import { CardFrame, digitIndex, escResponseOf, OptionRow } from "./card-frame.tsx";

interface Progress {
  readonly index: number;
  readonly answers: Readonly<Record<string, QuestionAnswer>>;
}

/**
 * Questions answered one after another. Single-select: 1..9 or ↑/↓ + Enter. Multi-select: Space (or 1..9)
 * toggles, Enter confirms. "Other…" opens a free-text line (Enter keeps it, Esc leaves it). Esc otherwise
 * sends the card's Esc response.
 */
export function QuestionCardView(props: {
  readonly card: QuestionCard;
  readonly active: boolean;
  readonly pending: number;
}): ReactNode {
  const { emit, theme } = useChat();
  const { card } = props;
  const [progress, setProgress] = useState<Progress>({ index: 0, answers: {} });
  const [cursor, setCursor] = useState(0);
  const [toggled, setToggled] = useState<ReadonlySet<string>>(new Set());
  const [editing, setEditing] = useState(false);
  const [other, setOther] = useState("");
  const input = useRef<InputRenderable>(null);

  const question = card.questions[progress.index];
  const multi = question?.multiSelect === true;
  const rowCount = (question?.options.length ?? 0) + (question?.allowOther === true ? 1 : 0);
  const otherRow = question?.allowOther === true ? (question.options.length) : -1;

  const finish = (answer: QuestionAnswer): void => {
    if (question === undefined) return;
    const answers = { ...progress.answers, [question.id]: answer };
    setCursor(0);
    setToggled(new Set());
    setOther("");
    setEditing(false);
    if (progress.index + 1 < card.questions.length) {
      setProgress({ index: progress.index + 1, answers });
      return;
    }
    emit({ type: "resolveInteraction", id: card.id, response: { outcome: "answered", answers } });
  };

  const toggle = (optionId: string): void => {
    setToggled((prev) => {
      const next = new Set(prev);
      if (next.has(optionId)) next.delete(optionId);
      else next.add(optionId);
      return next;
    });
  };

  const otherAnswer = (text: string): QuestionAnswer => {
    const selected = multi ? [...toggled] : [];
    return text.trim() === "" ? { selected } : { selected, other: text.trim() };
  };

  const activate = (row: number): void => {
    if (question === undefined) return;
    if (row === otherRow) {
      setEditing(true);
      return;
    }
    const option = question.options[row];
    if (option === undefined) return;
    if (multi) toggle(option.id);
    else finish({ selected: [option.id] });
  };

  useKeyLayer(KeyLayer.modal, (key) => {
    if (!props.active || question === undefined) return "pass";
    if (editing) {
      if (isPlainKey(key, "escape")) {
        setEditing(false);
        return "consume";
      }
      if (isPlainKey(key, "return")) {
        const text = input.current?.value ?? other;
        if (multi) {
          setOther(text);
          setEditing(false);
        } else {
          finish(otherAnswer(text));
        }
        return "consume";
      }
      if (isPlainKey(key, "up") || isPlainKey(key, "down") || isPlainKey(key, "tab")) return "consume";
      return key.ctrl || key.meta ? "pass" : "editor";
    }
    const digit = digitIndex(key.name, key.ctrl, key.meta);
    if (digit !== null) {
      if (digit < rowCount) {
        setCursor(digit);
        activate(digit);
      }
      return "consume";
    }
    if (isPlainKey(key, "up")) {
      setCursor((c) => (c - 1 + rowCount) % Math.max(1, rowCount));
      return "consume";
    }
    if (isPlainKey(key, "down")) {
      setCursor((c) => (c + 1) % Math.max(1, rowCount));
      return "consume";
    }
    if (multi && key.name === "space" && !key.ctrl && !key.meta) {
      activate(cursor);
      return "consume";
    }
    if (isPlainKey(key, "return")) {
      if (cursor === otherRow && !multi) activate(cursor);
      else if (multi && cursor === otherRow && other === "") activate(cursor);
      else if (multi) finish(otherAnswer(other));
      else activate(cursor);
      return "consume";
    }
    if (isPlainKey(key, "escape")) {
      emit({ type: "resolveInteraction", id: card.id, response: escResponseOf(card) });
      return "consume";
    }
    return isPrintable(key) || isPlainKey(key, "tab") || key.name === "backspace" ? "consume" : "pass";
  });

  if (question === undefined) return null;
  const steps = card.questions.length > 1 ? ` (${progress.index + 1}/${card.questions.length})` : "";
  const hint = multi ? "Space toggle · Enter confirm" : "1-9 or ↑↓ Enter choose";
  return (
    <CardFrame card={card} hint={hint} pending={props.pending}>
      <text fg={theme.text} attributes={TextAttributes.BOLD}>
        {`${question.header === undefined ? "" : `[${question.header}] `}${question.question}${steps}`}
      </text>
      {question.options.map((option, i) => (
        <OptionRow
          key={option.id}
          index={i}
          label={option.label}
          {...(option.description === undefined ? {} : { hint: option.description })}
          active={i === cursor}
          {...(multi ? { mark: toggled.has(option.id) ? "[x]" : "[ ]" } : {})}
        />
      ))}
      {question.allowOther === true ? (
        editing ? (
          <box flexDirection="row" height={1}>
            <text fg={theme.accent} flexShrink={0}>{`❯ ${otherRow + 1}. Other: `}</text>
            <input
              ref={input}
              focused={true}
              flexGrow={1}
              value={other}
              placeholder="type your answer, Enter to keep"
              textColor={theme.text}
              focusedTextColor={theme.text}
              placeholderColor={theme.muted}
              onInput={setOther}
            />
          </box>
        ) : (
          <OptionRow
            index={otherRow}
            label={other === "" ? "Other…" : `Other: ${other}`}
            active={cursor === otherRow}
            {...(multi ? { mark: other === "" ? "[ ]" : "[x]" } : {})}
          />
        )
      ) : null}
    </CardFrame>
  );
}
