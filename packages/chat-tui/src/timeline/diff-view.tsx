import { useMemo, type ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useChat } from "../context.ts";
import type { ChatTheme } from "../theme.ts";
import type { DiffOp } from "../types.ts";
import { diffStats, gutterWidth, parseUnifiedDiff, type DiffRow } from "./diff-lines.ts";

export interface DiffViewProps {
  readonly op: DiffOp;
  readonly path: string;
  readonly oldPath?: string;
  readonly patch?: string;
  /** Show at most this many diff rows, then how many more there are (the timeline shows diffs in full). */
  readonly maxRows?: number;
  /** Said after the count of rows left out. */
  readonly moreHint?: string;
}

function opTitle(op: DiffOp, path: string, oldPath: string | undefined): string {
  switch (op) {
    case "add":
      return `Add ${path}`;
    case "modify":
      return `Update ${path}`;
    case "delete":
      return `Delete ${path}`;
    case "move":
      return `Move ${oldPath ?? "?"} → ${path}`;
  }
}

function rowColor(theme: ChatTheme, row: DiffRow): string {
  switch (row.kind) {
    case "add":
      return theme.diffAdd;
    case "remove":
      return theme.diffRemove;
    case "hunk":
      return theme.diffHunk;
    case "context":
      return theme.text;
    case "meta":
      return theme.muted;
  }
}

function sign(row: DiffRow): string {
  switch (row.kind) {
    case "add":
      return "+";
    case "remove":
      return "-";
    case "context":
      return " ";
    case "hunk":
    case "meta":
      return "";
  }
}

/**
 * A file change with old/new line numbers and +/- colouring: in full (the timeline), or its first `maxRows`
 * rows (an approval card). Without a patch only the title shows: no made-up "+0 -0".
 */
export function DiffView(props: DiffViewProps): ReactNode {
  const { theme } = useChat();
  const rows = useMemo(() => (props.patch === undefined ? [] : parseUnifiedDiff(props.patch)), [props.patch]);
  const width = gutterWidth(rows);
  const stats = diffStats(rows);
  const blank = " ".repeat(width);
  const limit = props.maxRows === undefined || rows.length <= props.maxRows ? rows.length : Math.max(1, props.maxRows - 1);
  const shown = limit === rows.length ? rows : rows.slice(0, limit);
  return (
    <box flexDirection="column">
      <text>
        <span fg={theme.text} attributes={TextAttributes.BOLD}>
          {opTitle(props.op, props.path, props.oldPath)}
        </span>
        {props.patch === undefined ? null : <span fg={theme.diffAdd}>{` +${stats.added}`}</span>}
        {props.patch === undefined ? null : <span fg={theme.diffRemove}>{` -${stats.removed}`}</span>}
      </text>
      {shown.map((row, i) => {
        const color = rowColor(theme, row);
        if (row.kind === "hunk" || row.kind === "meta") {
          return (
            <text key={i} fg={color} attributes={TextAttributes.DIM}>
              {row.text}
            </text>
          );
        }
        const oldNo = row.oldLine === undefined ? blank : String(row.oldLine).padStart(width);
        const newNo = row.newLine === undefined ? blank : String(row.newLine).padStart(width);
        return (
          <text key={i}>
            <span fg={theme.lineNumber}>{`${oldNo} ${newNo} `}</span>
            <span fg={color}>{`${sign(row)}${row.text}`}</span>
          </text>
        );
      })}
      {shown.length < rows.length ? (
        <text fg={theme.muted} attributes={TextAttributes.DIM}>
          {`… +${rows.length - shown.length} more line${rows.length - shown.length === 1 ? "" : "s"}${props.moreHint === undefined ? "" : ` ${props.moreHint}`}`}
        </text>
      ) : null}
    </box>
  );
}
