import { describe, expect, test } from "bun:test";
import {
  clipLines,
  commonPrefix,
  createChatStore,
  filterPickerItems,
  formatElapsed,
  hiddenMarker,
  historyNext,
  historyPrev,
  IDLE_NAV,
  interleaveGroups,
  matchCommands,
  mentionQuery,
  normaliseHistory,
  parseUnifiedDiff,
  planWindow,
  resolveCommand,
  sidecarPlacement,
  slashQuery,
  toolStatusLook,
  defaultTheme,
  earlierMarker,
  estimateRows,
  followNav,
  tailWindow,
  type ChatStateKey,
  type TimelineItem,
} from "chat-tui";
import { COMMANDS } from "./chat-tui-setup.tsx";

describe("createChatStore", () => {
  test("commit notifies only subscribers of changed keys and keeps unchanged identities", () => {
    const store = createChatStore({ footer: { left: "a" } });
    const calls: ChatStateKey[] = [];
    for (const key of ["timeline", "composer", "activity", "footer", "sidecar"] as const) {
      store.subscribe(key, () => calls.push(key));
    }
    const before = store.snapshot();
    store.commit({ sidecar: { sections: [] } });
    expect(calls).toEqual(["sidecar"]);
    const after = store.snapshot();
    expect(after.composer).toBe(before.composer);
    expect(after.timeline).toBe(before.timeline);
    expect(after.footer).toBe(before.footer);
  });

  test("a shallow-equal replacement is not a change", () => {
    const items = [{ kind: "user" as const, id: "u1", text: "x" }];
    const store = createChatStore({ timeline: { items } });
    const original = store.get("timeline");
    let n = 0;
    store.subscribe("timeline", () => n++);
    store.commit({ timeline: { items } });
    expect(n).toBe(0);
    expect(store.get("timeline")).toBe(original);
    store.commit({ timeline: { items: [...items] } });
    expect(n).toBe(1);
  });

  test("commit is atomic: listeners see every state of the patch", () => {
    const store = createChatStore();
    const seen: string[] = [];
    store.subscribe("footer", () => {
      seen.push(`${store.get("footer").left ?? ""}|${store.get("composer").busy === true}`);
    });
    store.commit({ footer: { left: "running" }, composer: { busy: true } });
    expect(seen).toEqual(["running|true"]);
  });

  test("unsubscribe stops notifications; sidecar can be cleared to undefined", () => {
    const store = createChatStore({ sidecar: { sections: [] } });
    let n = 0;
    const off = store.subscribe("sidecar", () => n++);
    store.commit({ sidecar: undefined });
    expect(store.get("sidecar")).toBeUndefined();
    off();
    store.commit({ sidecar: { sections: [] } });
    expect(n).toBe(1);
  });
});

describe("completion rules", () => {
  test("slash only at the start of the input, mention only after whitespace", () => {
    expect(slashQuery("/mo")).toBe("mo");
    expect(slashQuery("/")).toBe("");
    expect(slashQuery(" /mo")).toBeNull();
    expect(slashQuery("/model x")).toBeNull();
    expect(mentionQuery("see @bs_01")).toBe("bs_01");
    expect(mentionQuery("@")).toBe("");
    expect(mentionQuery("mail@host")).toBeNull();
    expect(mentionQuery("see @a b")).toBeNull();
  });

  test("commands match by name or alias; exact first", () => {
    expect(matchCommands(COMMANDS, "mo").map((c) => c.name)).toEqual(["mode", "model"]);
    expect(matchCommands(COMMANDS, "mode").map((c) => c.name)).toEqual(["mode", "model"]);
    expect(matchCommands(COMMANDS, "res").map((c) => c.name)).toEqual(["sessions"]);
  });

  test("a submitted /line is a command only for an exact name/alias or a unique prefix", () => {
    expect(resolveCommand(COMMANDS, "/model gpt-5 high")).toEqual({ name: "model", args: "gpt-5 high" });
    expect(resolveCommand(COMMANDS, "/resume")).toEqual({ name: "sessions", args: "" });
    expect(resolveCommand(COMMANDS, "/eff")).toEqual({ name: "effort", args: "" });
    expect(resolveCommand(COMMANDS, "/mo")).toBeNull();
    expect(resolveCommand(COMMANDS, "/unknown thing")).toBeNull();
    expect(resolveCommand(COMMANDS, "/tmp/file is here")).toBeNull();
  });

  test("common prefix and round-robin interleaving capped at 6", () => {
    expect(commonPrefix(["/mode", "/model"])).toBe("/mode");
    expect(commonPrefix([])).toBe("");
    const groups = [
      { group: "session", items: [1, 2, 3, 4, 5].map((i) => ({ id: `s${i}`, label: `s${i}` })) },
      { group: "file", items: [1, 2].map((i) => ({ id: `f${i}`, label: `f${i}` })) },
    ];
    const picked = interleaveGroups(groups);
    expect(picked.map((p) => p.item.id)).toEqual(["s1", "s2", "s3", "s4", "f1", "f2"]);
  });
});

describe("history", () => {
  test("walks back, stops at the oldest, and restores the stashed draft", () => {
    const entries = normaliseHistory(["one", "two", "two", "", "three"]);
    expect(entries).toEqual(["one", "two", "three"]);
    const a = historyPrev(entries, IDLE_NAV, "draft");
    expect(a?.text).toBe("three");
    const b = historyPrev(entries, a!.nav, "three");
    const c = historyPrev(entries, b!.nav, "two");
    expect(c?.text).toBe("one");
    expect(historyPrev(entries, c!.nav, "one")).toBeNull();
    const d = historyNext(entries, c!.nav);
    const e = historyNext(entries, d!.nav);
    const f = historyNext(entries, e!.nav);
    expect([d?.text, e?.text, f?.text]).toEqual(["two", "three", "draft"]);
    expect(f?.nav.index).toBeNull();
    expect(historyNext(entries, IDLE_NAV)).toBeNull();
  });
});

describe("display helpers", () => {
  test("clipping by visual rows leaves a row for the marker", () => {
    const lines = Array.from({ length: 500 }, (_, i) => `l${i}`);
    const clip = clipLines(lines, 5, 80, false);
    expect(clip.lines).toEqual(["l0", "l1", "l2", "l3"]);
    expect(clip.hidden).toBe(496);
    expect(hiddenMarker(clip.hidden)).toBe("… +496 lines (ctrl+o to expand)");
    expect(clipLines(lines, 5, 80, true).hidden).toBe(0);
    expect(clipLines(["x".repeat(30), "y"], 3, 10, false)).toEqual({ lines: ["x".repeat(30)], hidden: 1 });
    expect(clipLines(["a", "b"], 5, 80, false).hidden).toBe(0);
  });

  test("unified diff rows carry old/new line numbers", () => {
    const rows = parseUnifiedDiff("--- a/x\n+++ b/x\n@@ -3,3 +3,3 @@\n ctx\n-old\n+new\n tail\n");
    expect(rows.map((r) => [r.kind, r.oldLine ?? null, r.newLine ?? null, r.text])).toEqual([
      ["hunk", null, null, "@@ -3,3 +3,3 @@"],
      ["context", 3, 3, "ctx"],
      ["remove", 4, null, "old"],
      ["add", null, 4, "new"],
      ["context", 5, 5, "tail"],
    ]);
  });

  test("unknown tool status has its own warning look", () => {
    const look = toolStatusLook(defaultTheme, "exploded");
    expect(look.icon).toBe("?");
    expect(look.color).toBe(defaultTheme.warning);
    expect(look.label).toBe("status: exploded");
    expect(toolStatusLook(defaultTheme, "declined").icon).not.toBe(toolStatusLook(defaultTheme, "completed").icon);
  });

  test("elapsed is mm:ss, h:mm:ss from an hour on", () => {
    expect(formatElapsed(0)).toBe("00:00");
    expect(formatElapsed(12_400)).toBe("00:12");
    expect(formatElapsed(61_000)).toBe("01:01");
    expect(formatElapsed(3_600_000 + 5_000)).toBe("1:00:05");
    expect(formatElapsed(-5)).toBe("00:00");
  });

  test("pinned plan window centres on the first unfinished entry", () => {
    const entries = Array.from({ length: 10 }, (_, i) => ({ text: `e${i}`, status: i < 6 ? "completed" : "pending" }));
    const win = planWindow(entries, 5);
    expect(win.start).toBe(5);
    expect(win.entries.map((e) => e.text)).toEqual(["e5", "e6", "e7", "e8", "e9"]);
  });

  test("sidecar inline above 120 columns, overlay only when open", () => {
    const sidecar = { sections: [{ id: "s", items: [{ id: "i", title: "PR #1" }] }] };
    expect(sidecarPlacement(sidecar, 150)).toBe("inline");
    expect(sidecarPlacement(sidecar, 100)).toBe("none");
    expect(sidecarPlacement({ ...sidecar, mode: "open" }, 100)).toBe("overlay");
    expect(sidecarPlacement({ ...sidecar, mode: "hidden" }, 150)).toBe("none");
    expect(sidecarPlacement(undefined, 150)).toBe("none");
  });

  test("picker filter matches every word in label or detail", () => {
    const items = [
      { id: "a", label: "gpt-5", detail: "fast" },
      { id: "b", label: "opus", detail: "deep thinking" },
    ];
    expect(filterPickerItems(items, "deep op").map((i) => i.id)).toEqual(["b"]);
    expect(filterPickerItems(items, "").length).toBe(2);
  });
});

describe("windowed history (#18)", () => {
  test("the marker counts the items not shown and the entries the host has not read", () => {
    expect(earlierMarker(200, 0)).toBe("↑ 200 earlier items (PageUp to load more)");
    expect(earlierMarker(1, 0)).toBe("↑ 1 earlier item (PageUp to load more)");
    expect(earlierMarker(0, 1)).toBe("↑ 1 older entry (PageUp to load more)");
    expect(earlierMarker(3, 40)).toBe("↑ 3 earlier items and 40 older entries (PageUp to load more)");
  });

  test("↑/↓ stay on the entry shown when older prompts arrive in front or local ones are replaced", () => {
    const before = ["c", "d", "e"];
    expect(followNav(before, ["a", "b", "c", "d", "e"], { index: 1, stash: "draft" })).toEqual({ index: 3, stash: "draft" });
    // The host's list now holds what was submitted locally: the same entry, not the same index.
    expect(followNav([...before, "f"], ["a", "c", "d", "e", "f"], { index: 3, stash: "" })).toEqual({ index: 4, stash: "" });
    // A repeated prompt: the occurrence nearest to where the shown one moved.
    expect(followNav(["x", "y", "x"], ["x", "q", "x", "y", "x"], { index: 2, stash: "" })).toEqual({ index: 4, stash: "" });
    expect(followNav(before, ["z"], { index: 0, stash: "s" })).toEqual(IDLE_NAV);
    expect(followNav(before, ["a", ...before], IDLE_NAV)).toBe(IDLE_NAV);
  });
});

describe("the transcript's render window (#18)", () => {
  const agent = (chars: number, id = "a"): TimelineItem => ({ kind: "agent", id, text: "x".repeat(chars) });
  test("rows are estimated low: wrapped text lines plus the header and margin; other items two rows", () => {
    expect(estimateRows(agent(98), 100)).toBe(3);
    expect(estimateRows(agent(99), 100)).toBe(4);
    expect(estimateRows({ kind: "agent", id: "a", text: "one\ntwo\n\nfour" }, 100)).toBe(6);
    expect(estimateRows({ kind: "user", id: "u", text: "hi" }, 100)).toBe(2);
    expect(estimateRows({ kind: "notice", id: "n", tone: "info", title: "t" }, 100)).toBe(2);
  });

  test("the tail within both bounds, at least one item; `full` says whether a bound stopped it", () => {
    const items = Array.from({ length: 10 }, (_, i) => agent(980, `a${i}`)); // 12 rows each at 100 columns
    expect(tailWindow(items, 100, 30, 100)).toEqual({ start: 7, full: true });
    expect(tailWindow(items, 2, 1000, 100)).toEqual({ start: 8, full: true });
    expect(tailWindow(items, 100, 1000, 100)).toEqual({ start: 0, full: false });
    expect(tailWindow(items, 10, 1000, 100)).toEqual({ start: 0, full: true });
    expect(tailWindow([agent(100_000)], 100, 30, 100)).toEqual({ start: 0, full: true });
    expect(tailWindow([], 100, 30, 100)).toEqual({ start: 0, full: false });
  });
});
