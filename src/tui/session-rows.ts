/**
 * TREE-02: how a session row reads in a picker (`/sessions` and the `baton resume` / `baton fork`
 * picker): the name is the lineage indent, `● ` for the current session and the display title; the
 * detail is `[description · ]id · cwd · last activity · [targets]`.
 */
import type { PickerItem } from "chat-tui";
import { lineageIndent } from "../shared/lineage.ts";
import type { InboxListing, SessionListing } from "./session-port.ts";
import { shortCwd } from "./view-states.ts";

/** `home` shortens the cwd to `~/…` (as the footer does). */
export function sessionPickerItem(row: SessionListing, view: { readonly currentId?: string; readonly home?: string } = {}): PickerItem {
  const current = row.id === view.currentId;
  const detail = [row.description, row.id, shortCwd(row.cwd, view.home), shortTime(row.updatedAt), row.targets.length > 0 ? row.targets.join(", ") : undefined]
    .filter((part): part is string => part !== undefined && part !== "")
    .join(" · ");
  return { id: row.id, label: `${lineageIndent(row.depth)}${current ? "● " : ""}${row.title}`, detail, ...(current ? { current: true } : {}) };
}

/** An `/inbox` row: `what it waits for · [agent] title`, detail `what it waits for, in full · id · cwd · since`. */
export function inboxPickerItem(row: InboxListing, view: { readonly currentId?: string; readonly home?: string } = {}): PickerItem {
  const current = row.id === view.currentId;
  const label = `${current ? "● " : ""}${row.brief} · ${row.agent === null ? "" : `[${row.agent}] `}${row.title}`;
  return { id: row.id, label, detail: [row.summary, row.id, shortCwd(row.cwd, view.home), shortTime(row.since)].join(" · "), ...(current ? { current: true } : {}) };
}

/** `2026-11-30T07:52:40.105Z` → `2026-11-30 07:52` (UTC, as stored). */
export function shortTime(iso: string): string {
  return iso.replace("T", " ").slice(0, 16);
}
