/**
 * The Board through a real runner (BRD-01): the board fixture's Cards presented as their spec says, the
 * manager's published Board (top 5 per section, ordering, hidden and terminating cards left out, one
 * diagnostic item for failed presentations), kept current as cards change, withdrawn when the binding stops.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Board } from "../../src/plugin/board.ts";
import type { ResourceStore } from "../../src/plugin/resources/store.ts";
import { BOARD_DIR, createPluginRig, type PluginRig } from "../support/plugin-rig.ts";

setDefaultTimeout(30_000);

const CARD = { apiVersion: "board.baton.dev/v1", kind: "Card" };
const card = (name: string) => ({ ...CARD, name });

let rigs: PluginRig[] = [];
afterEach(async () => {
  for (const rig of rigs) await rig.close();
  rigs = [];
});

async function boardRig(): Promise<{ rig: PluginRig; store: ResourceStore; settle: () => Promise<Board>; key: string }> {
  const rig = createPluginRig();
  rigs.push(rig);
  const key = await rig.installAndEnable(BOARD_DIR);
  const binding = () => rig.manager.binding(key);
  const store = binding()?.resources;
  if (store === undefined) throw new Error("no store");
  return {
    rig,
    store,
    key,
    settle: async () => {
      for (let i = 0; i < 3; i++) {
        await binding()?.board?.idle();
        await binding()?.controllerHost?.idle();
      }
      return rig.manager.board;
    },
  };
}

const titles = (board: Board) => board.sections.map((s) => s.items.map((i) => i.title));

describe("Board", () => {
  test("BRD-01: a controller with 8 presented cards shows the 5 highest-priority ones (priority desc, then newest, then name)", async () => {
    const b = await boardRig();
    const priorities = [3, 1, 7, 5, 2, 9, 5, 0];
    for (const [i, priority] of priorities.entries()) {
      await b.store.create({ ...CARD, metadata: { name: `c${i}` }, spec: { title: `card ${i}`, priority, body: "" } });
    }
    await b.store.create({ ...CARD, metadata: { name: "hidden" }, spec: { present: "hide", priority: 100, body: "" } });
    const board = await b.settle();
    expect(board.sections.map((s) => s.title)).toEqual(["Card · baton-test/board"]);
    // c3 and c6 tie at 5: the newer (c6) first.
    expect(titles(board)).toEqual([["card 5", "card 2", "card 6", "card 3", "card 0"]]);
    expect(board.sections[0]?.more).toBe(3);
    expect(board.items).toBe(5);

    // A terminating card leaves the Board (the next one moves up); a status change is shown.
    await b.store.delete(card("c5"));
    await b.store.patchStatus(card("c2"), { phase: "running" });
    const next = await b.settle();
    expect(titles(next)).toEqual([["card 2", "card 6", "card 3", "card 0", "card 4"]]);
    expect(next.sections[0]?.items[0]).toMatchObject({ title: "card 2", status: "running", tone: "default" });
  });

  test("BRD-01: a failed present shows one diagnostic item (Kind/name, presentation failed, tone error); the binding stays active", async () => {
    const b = await boardRig();
    await b.store.create({ ...CARD, metadata: { name: "fine" }, spec: { title: "Fine card", body: "" } });
    await b.store.create({ ...CARD, metadata: { name: "broken" }, spec: { present: "throw", body: "" } });
    let board = await b.settle();
    expect(board.sections[0]?.items).toEqual([
      expect.objectContaining({ title: "Card/broken", status: "presentation failed", tone: "error", detail: expect.stringContaining("cannot draw broken") }),
      expect.objectContaining({ title: "Fine card", tone: "default" }),
    ]);
    // A second failure (an invalid presentation this time) is counted in the same single item.
    await b.store.create({ ...CARD, metadata: { name: "nonsense" }, spec: { present: "invalid", body: "" } });
    board = await b.settle();
    const diagnostics = board.sections[0]?.items.filter((i) => i.tone === "error") ?? [];
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.status).toBe("presentation failed (and 1 more)");
    expect(b.rig.manager.binding(b.key)?.state).toBe("active");
    // Fixed, it presents again.
    await b.store.replaceSpec(card("broken"), { title: "Mended", body: "" });
    await b.store.replaceSpec(card("nonsense"), { title: "Sensible", body: "" });
    board = await b.settle();
    // Equal priorities: newest first.
    expect(titles(board)).toEqual([["Sensible", "Mended", "Fine card"]]);
  });

  test("a binding that stops takes its Board items along; published Boards are values (same object until a change)", async () => {
    const b = await boardRig();
    await b.store.create({ ...CARD, metadata: { name: "one" }, spec: { title: "One", body: "" } });
    const board = await b.settle();
    expect(board.items).toBe(1);
    expect(b.rig.manager.board).toBe(board);
    const seen: Board[] = [];
    const off = b.rig.manager.onBoard((next) => seen.push(next));
    await b.rig.manager.disable("baton-test/board");
    off();
    expect(b.rig.manager.board.items).toBe(0);
    expect(seen.at(-1)?.sections).toEqual([]);
  });
});
