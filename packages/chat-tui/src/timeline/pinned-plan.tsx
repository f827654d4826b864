import { memo, type ReactNode } from "react";
import { TextAttributes } from "@opentui/core";
import { useChat } from "../context.ts";
import type { PlanEntry } from "../types.ts";
import { useChatState } from "../use-chat-state.ts";
import { PlanEntries } from "./misc-items.tsx";

/** At most `size` entries around the first unfinished one. */
export function planWindow(entries: readonly PlanEntry[], size: number): { start: number; entries: readonly PlanEntry[] } {
  if (entries.length <= size) return { start: 0, entries };
  const firstOpen = entries.findIndex((e) => e.status !== "completed");
  const focus = firstOpen === -1 ? entries.length - 1 : firstOpen;
  const start = Math.max(0, Math.min(focus - 1, entries.length - size));
  return { start, entries: entries.slice(start, start + size) };
}

/** The plan pinned above the composer while a turn runs (`timeline.plan`). */
export const PinnedPlan = memo(function PinnedPlan(): ReactNode {
  const { store, theme } = useChat();
  const plan = useChatState(store, "timeline").plan;
  if (plan === undefined || plan.entries.length === 0) return null;
  const done = plan.entries.filter((e) => e.status === "completed").length;
  const win = planWindow(plan.entries, 5);
  const below = plan.entries.length - win.start - win.entries.length;
  return (
    <box flexDirection="column" flexShrink={0} paddingLeft={1} paddingRight={1}>
      <text>
        <span fg={theme.accent} attributes={TextAttributes.BOLD}>
          {plan.title ?? "Plan"}
        </span>
        <span fg={theme.muted}>{` ${done}/${plan.entries.length}`}</span>
      </text>
      {win.start > 0 ? <text fg={theme.muted}>{`  ↑ ${win.start} more`}</text> : null}
      <box paddingLeft={2}>
        <PlanEntries entries={win.entries} />
      </box>
      {below > 0 ? <text fg={theme.muted}>{`  ↓ ${below} more`}</text> : null}
    </box>
  );
});
