import { memo, type ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useTerminalDimensions } from "@opentui/react";
import { useChat } from "../context.ts";
import { isPlainKey, KeyLayer, useKeyLayer } from "../keys/key-layers.tsx";
import { toneColor } from "../theme.ts";
import type { SidecarState } from "../types.ts";
import { useChatSelection, useChatState } from "../use-chat-state.ts";

export const SIDECAR_WIDTH = 42;
export const SIDECAR_INLINE_MIN_COLUMNS = 121;

export type SidecarPlacement = "inline" | "overlay" | "none";

/** Inline on terminals wider than 120 columns (unless hidden); as an overlay on narrow ones only when open. */
export function sidecarPlacement(sidecar: SidecarState | undefined, columns: number): SidecarPlacement {
  if (sidecar === undefined || sidecar.mode === "hidden") return "none";
  const hasItems = sidecar.sections.some((s) => s.items.length > 0);
  if (columns >= SIDECAR_INLINE_MIN_COLUMNS) return hasItems || sidecar.mode === "open" ? "inline" : "none";
  return sidecar.mode === "open" ? "overlay" : "none";
}

function SidecarBody(props: { readonly sidecar: SidecarState }): ReactNode {
  const { theme } = useChat();
  return (
    <box flexDirection="column">
      {props.sidecar.sections.map((section) => (
        <box key={section.id} flexDirection="column" marginBottom={1} flexShrink={0}>
          {section.title === undefined ? null : (
            <text fg={theme.accent} attributes={TextAttributes.BOLD}>
              {section.title}
            </text>
          )}
          {section.items.map((item) => (
            <box key={item.id} flexDirection="column" flexShrink={0}>
              <text>
                <span fg={toneColor(theme, item.tone)}>{"• "}</span>
                {item.url === undefined ? (
                  <span fg={theme.text}>{item.title}</span>
                ) : (
                  <span fg={theme.text} link={{ url: item.url }} attributes={TextAttributes.UNDERLINE}>
                    {item.title}
                  </span>
                )}
                {item.status === undefined ? null : <span fg={theme.muted}>{`  ${item.status}`}</span>}
              </text>
              {item.detail === undefined ? null : <text fg={theme.muted}>{`  ${item.detail}`}</text>}
            </box>
          ))}
        </box>
      ))}
    </box>
  );
}

/** Board-like side panel (`sidecar` state). Esc on the overlay emits `dismissSidecar`. */
export const Sidecar = memo(function Sidecar(): ReactNode {
  const { store, theme, emit } = useChat();
  const sidecar = useChatState(store, "sidecar");
  const { width, height } = useTerminalDimensions();
  // A picker is modal: the Board's overlay gives way while it is open (no strip of it beside the picker, and
  // Esc is the picker's), and is back when it closes.
  const picking = useChatSelection(store, "composer", (composer) => composer.picker !== undefined);
  const placement = picking && sidecarPlacement(sidecar, width) === "overlay" ? "none" : sidecarPlacement(sidecar, width);

  useKeyLayer(KeyLayer.overlay, (key) => {
    if (placement !== "overlay" || !isPlainKey(key, "escape")) return "pass";
    emit({ type: "dismissSidecar" });
    return "consume";
  });

  if (sidecar === undefined || placement === "none") return null;
  const frame = {
    flexDirection: "column" as const,
    border: true,
    borderStyle: "rounded" as const,
    borderColor: theme.border,
    title: ` ${sidecar.title ?? "Board"} `,
    paddingLeft: 1,
    paddingRight: 1,
  };
  if (placement === "inline") {
    return (
      <box {...frame} width={SIDECAR_WIDTH} flexShrink={0}>
        <scrollbox flexGrow={1}>
          <SidecarBody sidecar={sidecar} />
        </scrollbox>
      </box>
    );
  }
  const w = Math.min(SIDECAR_WIDTH, Math.max(20, width - 4));
  return (
    <box
      {...frame}
      position="absolute"
      zIndex={90}
      top={1}
      left={Math.max(0, width - w - 1)}
      width={w}
      height={Math.max(5, height - 4)}
      backgroundColor={theme.selectedBg}
      bottomTitle=" Esc close "
    >
      <scrollbox flexGrow={1}>
        <SidecarBody sidecar={sidecar} />
      </scrollbox>
    </box>
  );
});
