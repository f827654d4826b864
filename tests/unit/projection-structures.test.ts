/** The persistent containers behind the state, and the state as plain JSON (checkpoint-safe). */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { inDraft } from "../../src/projection/draft.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { emptyList, listAt, listPush, listSlice, listToArray, PAGE_SIZE, TAIL_CHUNK } from "../../src/projection/paged-list.ts";
import { initialState, PROJECTION_VERSION, reduce, replay } from "../../src/projection/index.ts";
import { emptyTable, tableDelete, tableGet, tableHas, tableSet, tableToRecord, tableValues } from "../../src/projection/table.ts";
import { createEventFactory, textBlock } from "../support/events.ts";

describe("table", () => {
  test("set/get/has/delete/size, identity when unchanged", () => {
    let table = emptyTable<number>();
    for (let i = 0; i < 5000; i++) table = tableSet(table, `id_${i}`, i);
    expect(table.size).toBe(5000);
    expect(tableGet(table, "id_4321")).toBe(4321);
    expect(tableHas(table, "id_5000")).toBe(false);
    expect(tableSet(table, "id_7", 7)).toBe(table);
    const replaced = tableSet(table, "id_7", 70);
    expect(replaced.size).toBe(5000);
    expect(tableGet(replaced, "id_7")).toBe(70);
    expect(tableGet(table, "id_7")).toBe(7);
    const removed = tableDelete(replaced, "id_7");
    expect(removed.size).toBe(4999);
    expect(tableHas(removed, "id_7")).toBe(false);
    expect(tableDelete(removed, "id_7")).toBe(removed);
    expect(tableValues(removed).reduce((a, b) => a + b, 0)).toBe((4999 * 5000) / 2 - 7);
  });

  test("an update copies one path (root index, two inner nodes, one leaf); the rest keep their identity", () => {
    let table = emptyTable<number>();
    for (let i = 0; i < 5000; i++) table = tableSet(table, `id_${i}`, i);
    const next = tableSet(table, "id_1", -1);
    const changedOuter = next.buckets.filter((outer, i) => outer !== table.buckets[i]);
    expect(changedOuter).toHaveLength(1);
    const at = next.buckets.indexOf(changedOuter[0]!);
    const changedInner = changedOuter[0]!.filter((inner, i) => inner !== table.buckets[at]![i]);
    expect(changedInner).toHaveLength(1);
    const b = changedOuter[0]!.indexOf(changedInner[0]!);
    const changedLeaves = changedInner[0]!.filter((leaf, i) => leaf !== table.buckets[at]![b]![i]);
    expect(changedLeaves).toHaveLength(1);
  });

  test("the id written last is held at the root: writing it again copies the root only and walks nothing", () => {
    let table = emptyTable<number>();
    for (let i = 0; i < 5000; i++) table = tableSet(table, `id_${i}`, i);
    expect(table.recentId).toBe("id_4999");
    const next = tableSet(table, "id_4999", -1);
    expect(next.buckets).toBe(table.buckets);
    expect(tableGet(next, "id_4999")).toBe(-1);
    expect(tableGet(table, "id_4999")).toBe(4999);
    // A new id moves the recent entry into its leaf (one path) and takes its place.
    const added = tableSet(next, "id_new", 1);
    expect(added.recentId).toBe("id_new");
    expect(tableGet(added, "id_4999")).toBe(-1);
    expect(added.buckets.filter((outer, i) => outer !== next.buckets[i])).toHaveLength(1);
    expect(added.size).toBe(5001);
  });

  test("property: any mix of writes, deletes and draft batches ≡ a Map; old tables never change; order is that of a table without the recent slot", () => {
    const id = fc.constantFrom(...Array.from({ length: 40 }, (_, i) => `k${i}`));
    const op = fc.oneof(
      fc.record({ type: fc.constant("set" as const), id, value: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ type: fc.constant("delete" as const), id }),
    );
    fc.assert(
      fc.property(fc.array(fc.array(op, { maxLength: 6 }), { maxLength: 30 }), (batches) => {
        let table = emptyTable<number>();
        const model = new Map<string, number>();
        const seen: { table: typeof table; json: string }[] = [];
        for (const batch of batches) {
          // Each batch runs in one draft (a load folds many events in one): nodes it created change in place,
          // nodes of the tables before it must not.
          table = inDraft(() => {
            let t = table;
            for (const step of batch) t = step.type === "set" ? tableSet(t, step.id, step.value) : tableDelete(t, step.id);
            return t;
          });
          for (const step of batch) step.type === "set" ? model.set(step.id, step.value) : model.delete(step.id);
          seen.push({ table, json: JSON.stringify(table) });
          expect(table.size).toBe(model.size);
          for (const [key, value] of model) expect(tableGet(table, key)).toBe(value);
          expect(tableToRecord(table)).toEqual(Object.fromEntries([...model].sort(([a], [b]) => (a < b ? -1 : 1))));
          // The same entries in a table without a recent entry (built then settled by one more write and delete).
          const settled = tableDelete(tableSet(table, "zz_settle", 0), "zz_settle");
          expect(settled.recentId).toBeNull();
          expect(tableValues(table)).toEqual(tableValues(settled));
        }
        for (const { table: old, json } of seen) expect(JSON.stringify(old)).toBe(json);
      }),
      { numRuns: 300 },
    );
  });

  test("prototype-looking ids are ordinary keys", () => {
    let table = emptyTable<string>();
    expect(tableGet(table, "__proto__")).toBeUndefined();
    expect(tableGet(table, "constructor")).toBeUndefined();
    table = tableSet(table, "__proto__", "p");
    table = tableSet(table, "constructor", "c");
    expect(tableGet(table, "__proto__")).toBe("p");
    expect(tableGet(table, "constructor")).toBe("c");
    expect(tableGet(table, "toString")).toBeUndefined();
    const restored = JSON.parse(JSON.stringify(table)) as typeof table;
    expect(tableGet(restored, "__proto__")).toBe("p");
    expect(tableToRecord(restored)).toEqual(tableToRecord(table));
  });

  test("tableToRecord sorts ids", () => {
    let table = emptyTable<number>();
    for (const id of ["c", "a", "b"]) table = tableSet(table, id, 1);
    expect(Object.keys(tableToRecord(table))).toEqual(["a", "b", "c"]);
  });
});

describe("paged list", () => {
  test("push across pages, random access, slices; full pages keep identity", () => {
    let list = emptyList<number>();
    for (let i = 0; i < PAGE_SIZE * 2 + 3; i++) list = listPush(list, i);
    expect(list.length).toBe(PAGE_SIZE * 2 + 3);
    expect(list.pages).toHaveLength(2);
    expect(list.tail).toEqual([[PAGE_SIZE * 2, PAGE_SIZE * 2 + 1, PAGE_SIZE * 2 + 2]]);
    expect(listAt(list, PAGE_SIZE + 1)).toBe(PAGE_SIZE + 1);
    expect(listAt(list, -1)).toBeUndefined();
    expect(listAt(list, list.length)).toBeUndefined();
    expect(listSlice(list, PAGE_SIZE - 1, PAGE_SIZE + 2)).toEqual([PAGE_SIZE - 1, PAGE_SIZE, PAGE_SIZE + 1]);
    expect(listToArray(list)).toEqual(Array.from({ length: list.length }, (_, i) => i));
    const next = listPush(list, -1);
    expect(next.pages[0]).toBe(list.pages[0]!);
    expect(next.pages[1]).toBe(list.pages[1]!);
    expect(list.length).toBe(PAGE_SIZE * 2 + 3);
  });

  test("an append copies at most one tail chunk and the tail index, never a page", () => {
    let list = emptyList<number>();
    for (let i = 0; i < PAGE_SIZE + TAIL_CHUNK * 3 + 5; i++) list = listPush(list, i);
    const next = listPush(list, -1);
    expect(next.pages).toBe(list.pages);
    expect(next.tail.slice(0, -1).every((chunk, i) => chunk === list.tail[i])).toBe(true);
    expect(next.tail.at(-1)).toHaveLength(6);
    expect(list.tail.at(-1)).toHaveLength(5);
    // Every length, item by item, against a plain array (across tail chunks and page boundaries).
    let grown = emptyList<number>();
    const model: number[] = [];
    for (let i = 0; i < PAGE_SIZE * 3 + 7; i++) {
      grown = listPush(grown, i);
      model.push(i);
      expect(grown.length).toBe(model.length);
      expect(listAt(grown, i)).toBe(i);
    }
    expect(listToArray(grown)).toEqual(model);
    expect(grown.pages.every((page) => page.length === PAGE_SIZE)).toBe(true);
  });
});

describe("a turn's item ids", () => {
  test("noting one more tool call of a long turn copies a tail chunk, not the turn's ids so far", () => {
    const f = createEventFactory();
    const events: AnyEvent[] = [f.make("state_update", { state: "running" }, { turn: "t_1", target: "codex", source: "baton" })];
    for (let i = 0; i < 1000; i++) events.push(f.make("tool_call_update", { toolCallId: `c_${i}`, title: "ls", status: "in_progress" }, { turn: "t_1", target: "codex" }));
    const before = replay(events, initialState());
    const after = reduce(before, f.make("tool_call_update", { toolCallId: "c_new", title: "ls", status: "in_progress" }, { turn: "t_1", target: "codex" }));
    const ids = (state: typeof before) => tableGet(state.turnData, "t_1")!.toolCallIds;
    expect(ids(after).length).toBe(1001);
    expect(listAt(ids(after), 1000)).toBe("c_new");
    expect(ids(after).pages).toBe(ids(before).pages);
    expect(ids(before).length).toBe(1000);
  });
});

describe("state is plain JSON", () => {
  test("a JSON round trip is strictly equal, and reducing on from it gives the same result", () => {
    const f = createEventFactory();
    const events = [
      f.make("user_message", { messageId: "m_u", content: [textBlock("q")] }, { turn: "t_1", source: "user" }),
      f.make("state_update", { state: "running" }, { turn: "t_1", target: "codex", source: "baton" }),
      f.make("tool_call_update", { toolCallId: "c", rawInput: { a: [1, null] }, status: "in_progress" }, { turn: "t_1", target: "codex" }),
      f.make("interaction.opened", { interactionId: "ix", requester: { type: "baton" }, draft: { type: "hook_trust", harnessName: "codex", hooks: [] } }, { turn: "t_1" }),
      f.make("_baton_delivery_attempt_update", { attemptId: "att", phase: "prepared" }, { turn: "t_1" }),
      f.make("_baton_error_update", { message: "x" }, { turn: "t_1" }),
    ];
    const later = [
      f.make("interaction.resolved", { interactionId: "ix", resolution: { outcome: "trusted" } }),
      f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("hi") }, { turn: "t_1", target: "codex" }),
      f.make("state_update", { state: "idle", stopReason: "end_turn" }, { turn: "t_1", target: "codex" }),
    ];
    const checkpoint = replay(events, initialState(f.sessionId));
    const restored = JSON.parse(JSON.stringify(checkpoint)) as typeof checkpoint;
    expect(restored).toStrictEqual(checkpoint);
    expect(replay(later, restored)).toStrictEqual(replay(later, checkpoint));
  });

  test("initialState carries the session id; the version is a non-empty string", () => {
    expect(initialState("bs_1").batonSessionId).toBe("bs_1");
    expect(initialState().batonSessionId).toBeNull();
    expect(typeof PROJECTION_VERSION).toBe("string");
    expect(PROJECTION_VERSION.length).toBeGreaterThan(0);
    expect(reduce(initialState(), { ...createEventFactory().any("x", {}), seq: 0 })).toEqual(initialState());
  });
});
