import { memo, useEffect, useRef, useState, type ReactNode } from "react";
import { TextAttributes, type InputRenderable } from "@opentui/core";
import { useTerminalDimensions } from "@opentui/react";
import { useChat } from "../context.ts";
import { isPlainKey, KeyLayer, useKeyLayer } from "../keys/key-layers.tsx";
import type { PickerItem, PickerState } from "../types.ts";
import { useChatState } from "../use-chat-state.ts";

const MAX_ROWS = 10;

/** Case-insensitive match of every space-separated word against label + detail. */
export function filterPickerItems(items: readonly PickerItem[], query: string): readonly PickerItem[] {
  const words = query.toLowerCase().split(/\s+/).filter((w) => w !== "");
  if (words.length === 0) return items;
  return items.filter((item) => {
    const hay = `${item.label} ${item.detail ?? ""}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

function PickerBody(props: { readonly picker: PickerState }): ReactNode {
  const { theme, emit } = useChat();
  const { picker } = props;
  const { width, height } = useTerminalDimensions();
  const [query, setQuery] = useState(picker.query ?? "");
  const [cursor, setCursorState] = useState(() => Math.max(0, picker.items.findIndex((i) => i.current === true)));
  // Keys that arrive in one burst run before React re-renders: they read and move this ref, not the state.
  const cursorRef = useRef(cursor);
  const setCursor = (next: number): void => {
    cursorRef.current = next;
    setCursorState(next);
  };
  const input = useRef<InputRenderable>(null);
  // A remote picker's rows answer an earlier query until the app fills it again: Enter meanwhile is held and
  // chooses the first row of the answer (never a row of the list the user typed past).
  const remote = picker.filter === "remote";
  const typedPast = useRef(false);
  const heldEnter = useRef(false);

  const items = picker.filter === "remote" ? picker.items : filterPickerItems(picker.items, query);
  const selected = Math.min(cursor, Math.max(0, items.length - 1));
  const rows = Math.max(1, Math.min(MAX_ROWS, height - 8));
  const top = Math.max(0, Math.min(selected - rows + 1, items.length - rows));
  const shown = items.slice(Math.max(0, top), Math.max(0, top) + rows);

  const onQuery = (value: string): void => {
    setQuery(value);
    setCursor(0);
    if (remote) typedPast.current = true;
    emit({ type: "pickerQuery", id: picker.id, query: value });
  };

  // Every fill is a new picker state: once one is not loading, the rows answer the query typed so far.
  useEffect(() => {
    if (!remote || picker.loading === true) return;
    typedPast.current = false;
    if (!heldEnter.current) return;
    heldEnter.current = false;
    const item = picker.items[Math.min(cursorRef.current, Math.max(0, picker.items.length - 1))];
    if (item !== undefined) emit({ type: "pickerSelect", id: picker.id, itemId: item.id });
    // Only a new fill (a new picker state) counts, not a re-render.
  }, [picker]);

  useKeyLayer(KeyLayer.picker, (key) => {
    if (isPlainKey(key, "escape")) {
      const current = input.current?.value ?? query;
      if (current !== "") {
        if (input.current !== null) input.current.value = "";
        onQuery("");
      } else {
        emit({ type: "pickerCancel", id: picker.id });
      }
      return "consume";
    }
    // The rows the user sees after this burst's keys: a filter typed in the same burst as Enter has reached
    // the input (the editor took each character) but not yet `query`, which waits for React's next render.
    const live = remote ? items : filterPickerItems(picker.items, input.current?.value ?? query);
    const last = Math.max(0, live.length - 1);
    const current = Math.min(cursorRef.current, last);
    if (isPlainKey(key, "up")) {
      heldEnter.current = false;
      setCursor(Math.max(0, current - 1));
      return "consume";
    }
    if (isPlainKey(key, "down")) {
      heldEnter.current = false;
      setCursor(Math.min(last, current + 1));
      return "consume";
    }
    if (isPlainKey(key, "return")) {
      if (remote && (typedPast.current || picker.loading === true)) {
        heldEnter.current = true;
        return "consume";
      }
      const item = live[current];
      if (item !== undefined) emit({ type: "pickerSelect", id: picker.id, itemId: item.id });
      return "consume";
    }
    if (isPlainKey(key, "tab")) return "consume";
    return key.ctrl || key.meta ? "pass" : "editor";
  });

  const boxWidth = Math.max(20, Math.min(72, width - 4));
  return (
    <box
      position="absolute"
      zIndex={100}
      top={1}
      left={Math.max(0, Math.floor((width - boxWidth) / 2))}
      width={boxWidth}
      flexDirection="column"
      border={true}
      borderStyle="rounded"
      borderColor={theme.borderActive}
      backgroundColor={theme.selectedBg}
      title={` ${picker.title} `}
      paddingLeft={1}
      paddingRight={1}
    >
      <box flexDirection="row" height={1} flexShrink={0}>
        <text fg={theme.accent} flexShrink={0}>
          {"⌕ "}
        </text>
        <input
          ref={input}
          focused={true}
          flexGrow={1}
          value={picker.query ?? ""}
          placeholder={picker.placeholder ?? "type to filter"}
          textColor={theme.text}
          focusedTextColor={theme.text}
          placeholderColor={theme.muted}
          onInput={onQuery}
        />
      </box>
      {picker.loading === true ? <text fg={theme.muted}>{"loading…"}</text> : null}
      {items.length === 0 && picker.loading !== true ? <text fg={theme.muted}>{"no matches"}</text> : null}
      {shown.map((item, i) => {
        const active = top + i === selected;
        return (
          <text key={item.id} wrapMode="none">
            <span fg={active ? theme.accent : theme.muted}>{active ? "❯ " : "  "}</span>
            <span fg={active ? theme.selectedFg : theme.text} attributes={active ? TextAttributes.BOLD : 0}>
              {item.label}
            </span>
            {item.current === true ? <span fg={theme.success}>{" ✓"}</span> : null}
            {item.detail === undefined ? null : <span fg={theme.muted}>{`  ${item.detail}`}</span>}
          </text>
        );
      })}
      <text fg={theme.muted} attributes={TextAttributes.DIM}>
        {`↑↓ move · Enter select · Esc ${query === "" ? "close" : "clear"}${items.length > rows ? ` · ${items.length} items` : ""}`}
      </text>
    </box>
  );
}

/** Generic list picker with a filter line, drawn over the timeline while `composer.picker` is set. */
export const PickerOverlay = memo(function PickerOverlay(): ReactNode {
  const { store } = useChat();
  const picker = useChatState(store, "composer").picker;
  if (picker === undefined) return null;
  return <PickerBody key={picker.id} picker={picker} />;
});
