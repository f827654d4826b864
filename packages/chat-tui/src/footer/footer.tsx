import { memo, type ReactNode } from "react";
import { useChat } from "../context.ts";
import { toneColor } from "../theme.ts";
import { useChatState } from "../use-chat-state.ts";

/** Transient toast above a persistent footer line (left and right text). The toast never replaces it. */
export const Footer = memo(function Footer(): ReactNode {
  const { store, theme } = useChat();
  const footer = useChatState(store, "footer");
  return (
    <box flexDirection="column" flexShrink={0} paddingLeft={1} paddingRight={1}>
      {footer.toast === undefined ? null : (
        <text fg={toneColor(theme, footer.toast.tone)} flexShrink={0}>
          {footer.toast.text}
        </text>
      )}
      <box flexDirection="row" justifyContent="space-between" flexShrink={0} height={1}>
        <text fg={theme.muted} flexShrink={1} wrapMode="none">
          {footer.left ?? ""}
        </text>
        <text fg={theme.muted} flexShrink={0} wrapMode="none">
          {footer.right ?? ""}
        </text>
      </box>
    </box>
  );
});
