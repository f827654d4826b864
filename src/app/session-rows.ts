/** Session listings as picker rows (TREE-01/02): the store's refs in lineage order with their depth. */
import { lineage } from "../shared/lineage.ts";
import { activityTime, displayTitle, targetsOf, type SessionRef } from "../store/index.ts";
import type { SessionListing } from "../tui/index.ts";

export function sessionRows(refs: readonly SessionRef[]): SessionListing[] {
  const rows = refs.map((ref) => ({
    id: ref.batonSessionId,
    title: displayTitle(ref.meta),
    ...(ref.meta.description === undefined ? {} : { description: ref.meta.description }),
    cwd: ref.meta.cwd,
    createdAt: ref.meta.createdAt,
    updatedAt: activityTime(ref.meta),
    targets: targetsOf(ref.meta),
    forkedFrom: ref.meta.forkedFrom?.batonSessionId ?? null,
  }));
  return lineage(rows).map(({ row: { forkedFrom: _parent, ...row }, depth }) => ({ ...row, depth }));
}
