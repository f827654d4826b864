/**
 * The Board (BRD-01, plugins.md §5): a pure selector over each binding's resources and their cached
 * `present()` results. One section per (plugin instance, resource type); items ordered priority desc →
 * creation desc → name; at most 5 per section; terminating resources left out; a resource whose `present`
 * failed makes the section's one diagnostic item (`Kind/name`, "presentation failed", tone error), first,
 * so a broken presenter is seen instead of silently missing. No I/O: the TUI reads what was published.
 */
import type { Presentation } from "./protocol.ts";
import type { ResourceObject, ResourceType } from "./resources/schema.ts";

export const BOARD_ITEMS_PER_SECTION = 5;

export type BoardTone = NonNullable<Presentation["tone"]>;

/** One resource with what its presenter said: shown, hidden (null) or failed. */
export interface PresentedEntry {
  readonly resource: ResourceObject;
  readonly shown: Presentation | null;
  /** Why `present` failed (threw, timed out, answered nonsense); `shown` is then null. */
  readonly failure?: string;
}

export interface BoardGroupInput {
  readonly pluginInstanceId: string;
  readonly pluginId: string;
  readonly resourceType: ResourceType;
  readonly entries: readonly PresentedEntry[];
}

export interface BoardItem {
  /** `<pluginInstanceId>/<apiVersion>/<Kind>/<name>`, stable across updates. */
  readonly id: string;
  readonly title: string;
  readonly url?: string;
  readonly status?: string;
  readonly detail?: string;
  readonly tone: BoardTone;
}

export interface BoardSection {
  readonly id: string;
  readonly title: string;
  readonly pluginId: string;
  readonly items: readonly BoardItem[];
  /** Presented items left out by the per-section limit. */
  readonly more: number;
}

export interface Board {
  readonly sections: readonly BoardSection[];
  /** Items shown, across sections (the footer's `board:N`). */
  readonly items: number;
}

export const EMPTY_BOARD: Board = { sections: [], items: 0 };

function compareEntries(a: PresentedEntry, b: PresentedEntry): number {
  const pa = a.shown?.priority ?? 0;
  const pb = b.shown?.priority ?? 0;
  if (pa !== pb) return pb - pa;
  const ca = a.resource.metadata.creationTimestamp;
  const cb = b.resource.metadata.creationTimestamp;
  if (ca !== cb) return ca < cb ? 1 : -1;
  const na = a.resource.metadata.name;
  const nb = b.resource.metadata.name;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

function itemId(group: BoardGroupInput, resource: ResourceObject): string {
  return `${group.pluginInstanceId}/${resource.apiVersion}/${resource.kind}/${resource.metadata.name}`;
}

function section(group: BoardGroupInput): BoardSection | undefined {
  const live = group.entries.filter((e) => e.resource.metadata.deletionTimestamp === undefined);
  const failed = live.filter((e) => e.failure !== undefined).sort(compareEntries);
  const shown = live.filter((e) => e.failure === undefined && e.shown !== null).sort(compareEntries);
  const items: BoardItem[] = [];
  const first = failed[0];
  if (first !== undefined) {
    const others = failed.length - 1;
    items.push({
      id: `${itemId(group, first.resource)}#diagnostic`,
      title: `${first.resource.kind}/${first.resource.metadata.name}`,
      status: others === 0 ? "presentation failed" : `presentation failed (and ${others} more)`,
      ...(first.failure === undefined || first.failure === "" ? {} : { detail: first.failure }),
      tone: "error",
    });
  }
  const room = BOARD_ITEMS_PER_SECTION - items.length;
  for (const entry of shown.slice(0, room)) {
    const p = entry.shown;
    if (p === null) continue;
    items.push({
      id: itemId(group, entry.resource),
      title: p.title,
      ...(p.url === undefined ? {} : { url: p.url }),
      ...(p.status === undefined ? {} : { status: p.status }),
      ...(p.detail === undefined ? {} : { detail: p.detail }),
      tone: p.tone ?? "default",
    });
  }
  if (items.length === 0) return undefined;
  const more = Math.max(0, shown.length - room);
  return {
    id: `${group.pluginInstanceId}/${group.resourceType.apiVersion}/${group.resourceType.kind}`,
    title: `${group.resourceType.kind} · ${group.pluginId}`,
    pluginId: group.pluginId,
    items,
    more,
  };
}

/** The Board for these groups, sections ordered by plugin id then kind. */
export function selectBoard(groups: readonly BoardGroupInput[]): Board {
  const sorted = [...groups].sort((a, b) => {
    const ka = `${a.pluginId}\u0000${a.resourceType.kind}\u0000${a.resourceType.apiVersion}\u0000${a.pluginInstanceId}`;
    const kb = `${b.pluginId}\u0000${b.resourceType.kind}\u0000${b.resourceType.apiVersion}\u0000${b.pluginInstanceId}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const sections: BoardSection[] = [];
  for (const group of sorted) {
    const s = section(group);
    if (s !== undefined) sections.push(s);
  }
  return { sections, items: sections.reduce((n, s) => n + s.items.length, 0) };
}
