/** TREE-01: the fork forest shared by `sessions --tree`, the startup picker and `/sessions`. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { lineage, lineageIndent, type LineageRow } from "../../src/shared/lineage.ts";

const row = (id: string, createdAt: string, updatedAt: string, forkedFrom: string | null = null): LineageRow => ({ id, createdAt, updatedAt, forkedFrom });
const order = (rows: readonly LineageRow[]) => lineage(rows).map(({ row: r, depth }) => `${lineageIndent(depth)}${r.id}`);

describe("lineage (TREE-01)", () => {
  test("roots by the newest activity anywhere in their subtree; siblings by creation, oldest first", () => {
    const rows = [
      row("b", "2026-01-02", "2026-01-05"),
      row("a", "2026-01-01", "2026-01-01"),
      row("a2", "2026-01-04", "2026-01-04", "a"),
      row("a1", "2026-01-03", "2026-01-09", "a"), // the newest activity of all, under the oldest root
      row("c", "2026-01-06", "2026-01-06"),
    ];
    expect(order(rows)).toEqual(["a", "└ a1", "└ a2", "c", "b"]);
  });

  test("a fork of a fork is two levels deep under its root", () => {
    expect(order([row("child", "2", "2", "root"), row("grandchild", "3", "3", "child"), row("root", "1", "1")])).toEqual(["root", "└ child", "  └ grandchild"]);
  });

  test("an orphan (its parent missing or filtered out) is a root", () => {
    expect(order([row("x", "1", "3", "gone"), row("y", "2", "2")])).toEqual(["x", "y"]);
  });

  test("a cycle in hand-edited meta neither loops nor drops rows", () => {
    const rows = [row("p", "1", "1", "q"), row("q", "2", "2", "p"), row("self", "3", "3", "self")];
    const out = order(rows);
    expect(out.map((line) => line.replace(/^[ └]+/, "")).sort()).toEqual(["p", "q", "self"]);
  });

  test("property: every row appears exactly once, a child right under its subtree's root, at parent depth + 1", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(9), fc.nat(20), fc.nat(20), fc.option(fc.nat(9), { nil: null })), { maxLength: 12 }), (specs) => {
        const seen = new Set<number>();
        const rows = specs
          .filter(([id]) => !seen.has(id) && seen.add(id))
          .map(([id, created, updated, parent]) => row(`s${id}`, String(created).padStart(2, "0"), String(Math.max(created, updated)).padStart(2, "0"), parent === null ? null : `s${parent}`));
        const out = lineage(rows);
        expect(out.map((e) => e.row.id).sort()).toEqual(rows.map((r) => r.id).sort());
        out.forEach((entry, index) => {
          if (entry.depth === 0) return;
          const parent = out.slice(0, index).reverse().find((e) => e.depth === entry.depth - 1);
          expect(parent?.row.id).toBe(entry.row.forkedFrom!);
        });
      }),
      { numRuns: 300 },
    );
  });
});
