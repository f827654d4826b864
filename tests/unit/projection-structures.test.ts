/** The persistent containers behind the state, and the state as plain JSON (checkpoint-safe). */
import { describe, expect, test } from "bun:test";
import { emptyList, listAt, listPush, listSlice, listToArray, PAGE_SIZE } from "../../src/projection/paged-list.ts";
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

  test("an update copies one branch and one leaf; the rest keep their identity", () => {
    let table = emptyTable<number>();
    for (let i = 0; i < 5000; i++) table = tableSet(table, `id_${i}`, i);
    const next = tableSet(table, "id_1", -1);
    const changedBranches = next.buckets.filter((branch, i) => branch !== table.buckets[i]).length;
    expect(changedBranches).toBe(1);
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
    expect(list.pages).toHaveLength(3);
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
