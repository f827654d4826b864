import type { ChatTheme } from "../theme.ts";
import type { PlanEntryStatus, ToolStatus } from "../types.ts";

export interface StatusLook {
  readonly icon: string;
  readonly color: string;
  /** Extra label shown after the title (only for states that need saying). */
  readonly label?: string;
}

const TOOL_STATUSES: readonly string[] = ["pending", "in_progress", "completed", "failed", "declined", "interrupted"];

export function isKnownToolStatus(status: string): status is ToolStatus {
  return TOOL_STATUSES.includes(status);
}

/** Look of a tool status. An unknown status gets its own warning look and shows its raw name (VIEW-03). */
export function toolStatusLook(theme: ChatTheme, status: string): StatusLook {
  if (!isKnownToolStatus(status)) return { icon: "?", color: theme.warning, label: `status: ${status}` };
  switch (status) {
    case "pending":
      return { icon: "○", color: theme.muted };
    case "in_progress":
      return { icon: "◐", color: theme.accent };
    case "completed":
      return { icon: "●", color: theme.success };
    case "failed":
      return { icon: "✗", color: theme.error, label: "failed" };
    case "declined":
      return { icon: "⊘", color: theme.warning };
    case "interrupted":
      return { icon: "◌", color: theme.warning, label: "interrupted" };
  }
}

const PLAN_STATUSES: readonly string[] = ["pending", "in_progress", "completed"];

/** Plan entry checkbox; unknown statuses display as pending. */
export function planEntryLook(theme: ChatTheme, status: string): StatusLook {
  const s: PlanEntryStatus = PLAN_STATUSES.includes(status) ? (status as PlanEntryStatus) : "pending";
  switch (s) {
    case "pending":
      return { icon: "☐", color: theme.muted };
    case "in_progress":
      return { icon: "◐", color: theme.accent };
    case "completed":
      return { icon: "☑", color: theme.success };
  }
}
