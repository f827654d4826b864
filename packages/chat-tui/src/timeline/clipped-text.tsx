import type { ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useChat } from "../context.ts";
import { clipLines, hiddenMarker } from "./clip.ts";
import { useTimelineView } from "./timeline-view.ts";

export interface ClippedTextProps {
  readonly lines: readonly string[];
  readonly color: string;
  readonly attributes?: number;
  /** Overrides the timeline's preview size. */
  readonly previewRows?: number;
}

/** Lines clipped to a preview by visual rows, with "… +N lines (ctrl+o to expand)" when something is hidden. */
export function ClippedText(props: ClippedTextProps): ReactNode {
  const { theme } = useChat();
  const view = useTimelineView();
  const clip = clipLines(props.lines, props.previewRows ?? view.previewRows, view.width, view.expanded);
  return (
    <box flexDirection="column">
      <text fg={props.color} attributes={props.attributes ?? TextAttributes.NONE}>
        {clip.lines.join("\n")}
      </text>
      {clip.hidden > 0 ? (
        <text fg={theme.muted} attributes={TextAttributes.DIM}>
          {hiddenMarker(clip.hidden)}
        </text>
      ) : null}
    </box>
  );
}
