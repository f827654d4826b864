import type { ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useChat } from "../context.ts";
import type { Completion } from "./use-completion.ts";

/** Candidate list shown above the editor; mention candidates are grouped under their group name. */
export function CompletionPopup(props: { readonly completion: Completion; readonly selected: number }): ReactNode {
  const { theme } = useChat();
  const { completion } = props;
  if (completion.candidates.length === 0) {
    return completion.loading ? (
      <text fg={theme.muted} attributes={TextAttributes.DIM} flexShrink={0}>
        {"  searching…"}
      </text>
    ) : null;
  }
  const labelWidth = Math.max(...completion.candidates.map((c) => Bun.stringWidth(c.label)));
  const rows: ReactNode[] = [];
  let group: string | undefined;
  completion.candidates.forEach((c, i) => {
    if (c.group !== undefined && c.group !== group) {
      group = c.group;
      rows.push(
        <text key={`g:${c.group}`} fg={theme.muted} attributes={TextAttributes.BOLD}>
          {`  ${c.group}`}
        </text>,
      );
    }
    const active = i === props.selected;
    rows.push(
      <text key={c.key}>
        <span fg={active ? theme.accent : theme.muted}>{active ? "❯ " : "  "}</span>
        <span fg={active ? theme.selectedFg : theme.text} attributes={active ? TextAttributes.BOLD : 0}>
          {c.label + " ".repeat(Math.max(0, labelWidth - Bun.stringWidth(c.label)))}
        </span>
        {c.detail === undefined ? null : <span fg={theme.muted}>{`  ${c.detail}`}</span>}
      </text>,
    );
  });
  return (
    <box flexDirection="column" flexShrink={0} paddingLeft={1}>
      {rows}
    </box>
  );
}
