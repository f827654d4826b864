import type { ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useChat } from "../context.ts";
import type { ToolContent, ToolItem } from "../types.ts";
import { assertNever } from "../assert.ts";
import { ClippedText } from "./clipped-text.tsx";
import { splitLines } from "./clip.ts";
import { DiffView } from "./diff-view.tsx";
import { toolStatusLook } from "./status.ts";

function ContentPart(props: { readonly part: ToolContent; readonly declined: boolean }): ReactNode {
  const { theme } = useChat();
  const { part } = props;
  switch (part.type) {
    case "command":
      return (
        <text fg={props.declined ? theme.muted : theme.code} attributes={props.declined ? TextAttributes.STRIKETHROUGH : 0}>
          {`$ ${part.command}`}
        </text>
      );
    case "output":
      return <ClippedText lines={splitLines(part.text)} color={theme.muted} />;
    case "text":
      return <ClippedText lines={splitLines(part.text)} color={theme.text} />;
    case "lines":
      return part.clip === false ? <text fg={theme.text}>{part.lines.join("\n")}</text> : <ClippedText lines={part.lines} color={theme.text} />;
    case "code":
      return <ClippedText lines={splitLines(part.text)} color={theme.code} />;
    case "diff":
      return (
        <DiffView
          op={part.op}
          path={part.path}
          {...(part.oldPath === undefined ? {} : { oldPath: part.oldPath })}
          {...(part.patch === undefined ? {} : { patch: part.patch })}
        />
      );
    default:
      return assertNever(part);
  }
}

/** A tool call: status icon + title, then its body (command, clipped output, full diffs). */
export function ToolBlock(props: { readonly item: ToolItem }): ReactNode {
  const { theme } = useChat();
  const { item } = props;
  const look = toolStatusLook(theme, item.status);
  const declined = item.status === "declined";
  const titleColor = item.tone === "warning" ? theme.warning : declined ? theme.muted : theme.text;
  return (
    <box flexDirection="column">
      <text>
        <span fg={look.color}>{`${look.icon} `}</span>
        <span fg={titleColor} attributes={TextAttributes.BOLD}>
          {item.title}
        </span>
        {look.label === undefined ? null : <span fg={look.color}>{` (${look.label})`}</span>}
        {item.author === undefined ? null : <span fg={theme.muted}>{` · ${item.author}`}</span>}
      </text>
      {item.content === undefined || item.content.length === 0 ? null : (
        <box paddingLeft={2} flexDirection="column">
          {item.content.map((part, i) => (
            <ContentPart key={i} part={part} declined={declined} />
          ))}
        </box>
      )}
    </box>
  );
}
