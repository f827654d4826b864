/**
 * TREE-01: the fork forest of a session listing, shared by `baton sessions --tree`, the startup picker
 * and `/sessions`. Roots are ordered by the newest activity anywhere in their subtree, siblings by
 * creation (oldest first); a session whose parent is missing or filtered out is a root; a cycle in
 * hand-edited meta neither loops nor drops rows.
 */
export interface LineageRow {
  readonly id: string;
  readonly forkedFrom: string | null;
  readonly createdAt: string;
  /** updatedAt, else createdAt. */
  readonly updatedAt: string;
}

export interface LineageEntry<R> {
  readonly row: R;
  /** 0 for a root. */
  readonly depth: number;
}

/** The indent a row at `depth` is shown with: `"  "×(depth-1) + "└ "`, nothing for a root. */
export function lineageIndent(depth: number): string {
  return depth === 0 ? "" : `${"  ".repeat(depth - 1)}└ `;
}

export function lineage<R extends LineageRow>(rows: readonly R[]): LineageEntry<R>[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const children = new Map<string, R[]>();
  const roots: R[] = [];
  for (const row of rows) {
    const parent = row.forkedFrom;
    if (parent !== null && parent !== row.id && byId.has(parent)) {
      const list = children.get(parent) ?? [];
      list.push(row);
      children.set(parent, list);
    } else roots.push(row);
  }
  const bySeniority = (a: R, b: R): number => compare(a.createdAt, b.createdAt) || compare(a.id, b.id);
  for (const list of children.values()) list.sort(bySeniority);

  // Newest activity in each subtree (cycle-safe: a row already on the path counts only itself).
  const newest = new Map<string, string>();
  const onPath = new Set<string>();
  const newestIn = (row: R): string => {
    const known = newest.get(row.id);
    if (known !== undefined) return known;
    onPath.add(row.id);
    let value = row.updatedAt;
    for (const child of children.get(row.id) ?? []) {
      if (onPath.has(child.id)) continue;
      const candidate = newestIn(child);
      if (candidate > value) value = candidate;
    }
    onPath.delete(row.id);
    newest.set(row.id, value);
    return value;
  };
  const byActivity = (a: R, b: R): number => compare(newestIn(b), newestIn(a)) || compare(b.id, a.id);

  const out: LineageEntry<R>[] = [];
  const seen = new Set<string>();
  const visit = (row: R, depth: number): void => {
    if (seen.has(row.id)) return;
    seen.add(row.id);
    out.push({ row, depth });
    for (const child of children.get(row.id) ?? []) visit(child, depth + 1);
  };
  for (const root of [...roots].sort(byActivity)) visit(root, 0);
  // Rows only reachable through a cycle: each unvisited one, newest first, becomes a root.
  for (const row of rows.filter((r) => !seen.has(r.id)).sort(byActivity)) visit(row, 0);
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
