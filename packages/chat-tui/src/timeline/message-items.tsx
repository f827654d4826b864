import type { ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useChat } from "../context.ts";
import { authorAccent } from "../theme.ts";
import type { AgentMessageItem, ThoughtItem, UserMessageItem } from "../types.ts";
import { AgentMarkdown } from "./agent-markdown.tsx";
import { ClippedText } from "./clipped-text.tsx";
import { splitLines } from "./clip.ts";

export function UserMessage(props: { readonly item: UserMessageItem }): ReactNode {
  const { theme } = useChat();
  const accent = authorAccent(theme, props.item.authorKey, theme.user);
  return (
    <box flexDirection="row">
      <text fg={accent} flexShrink={0}>
        {"› "}
      </text>
      <text fg={theme.text} flexGrow={1}>
        {props.item.text}
      </text>
    </box>
  );
}

export function AgentMessage(props: { readonly item: AgentMessageItem }): ReactNode {
  const { theme } = useChat();
  const { item } = props;
  const accent = authorAccent(theme, item.authorKey, theme.accent);
  const markdown = (item.format ?? "markdown") === "markdown";
  return (
    <box flexDirection="column">
      <text>
        <span fg={accent}>{"● "}</span>
        <span fg={accent} attributes={TextAttributes.BOLD}>
          {item.author ?? "agent"}
        </span>
        {item.streaming === true ? <span fg={theme.muted}>{" …"}</span> : null}
      </text>
      <box paddingLeft={2} flexDirection="column">
        {markdown ? (
          <AgentMarkdown text={item.text} streaming={item.streaming === true} />
        ) : (
          <text fg={theme.text}>{item.text}</text>
        )}
      </box>
    </box>
  );
}

export function Thought(props: { readonly item: ThoughtItem }): ReactNode {
  const { theme } = useChat();
  const { item } = props;
  return (
    <box flexDirection="column">
      <text fg={theme.muted} attributes={TextAttributes.ITALIC}>
        {`∴ ${item.title ?? "Thinking"}`}
      </text>
      {item.text.trim() === "" ? null : (
        <box paddingLeft={2}>
          <ClippedText
            lines={splitLines(item.text)}
            color={theme.muted}
            attributes={TextAttributes.DIM | TextAttributes.ITALIC}
            previewRows={3}
          />
        </box>
      )}
    </box>
  );
}
