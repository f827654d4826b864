/**
 * TREE-02: how a session row reads in a picker (`/sessions` and the `baton resume` / `baton fork`
 * picker): the name is the lineage indent, `● ` for the current session and the display title; the
 * detail is `[description · ]id · cwd · last activity · [targets]`.
 */
import type { PickerItem } from "chat-tui";
import { lineageIndent } from "../shared/lineage.ts";
import type { SessionListing } from "./session-port.ts";
import { shortCwd } from "./view-states.ts";

/** `home` shortens the cwd to `~/…` (as the footer does). */
export function sessionPickerItem(row: SessionListing, view: { readonly currentId?: string; readonly home?: string } = {}): PickerItem {
  const current = row.id === view.currentId;
  const detail = [row.description, row.id, shortCwd(row.cwd, view.home), shortTime(row.updatedAt), row.targets.length > 0 ? row.targets.join(", ") : undefined]
    .filter((part): part is string => part !== undefined && part !== "")
    .join(" · ");
  return { id: row.id, label: `${lineageIndent(row.depth)}${current ? "● " : ""}${row.title}`, detail, ...(current ? { current: true } : {}) };
}

/** `2026-11-30T07:52:40.105Z` → `2026-11-30 07:52` (UTC, as stored). */
export function shortTime(iso: string): string {
  return iso.replace("T", " ").slice(0, 16);
}
