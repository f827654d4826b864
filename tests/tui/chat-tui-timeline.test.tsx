import { afterEach, expect, test } from "bun:test";
import { act } from "react";
import { MarkdownRenderable, rgbToHex } from "@opentui/core";
import { testRender } from "@opentui/react/test-utils";
import { ChatApp, createChatStore, createTheme, type ChatIntent, type TimelineItem } from "chat-tui";
import { mountChat, renderablesOf, tidy, type Mounted } from "./chat-tui-setup.tsx";

let mounted: Mounted | undefined;
afterEach(async () => {
  await mounted?.destroy();
  mounted = undefined;
});

const lines = (n: number, prefix = "line"): string => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join("\n");

const TRANSCRIPT: readonly TimelineItem[] = [
  { kind: "user", id: "u1", author: "you", text: "run the tests please" },
  { kind: "thought", id: "th1", title: "Planning", text: "I should run the suite.\nThen read failures.\nThen fix.\nThen rerun." },
  {
    kind: "tool",
    id: "t1",
    title: "Ran",
    status: "completed",
    author: "codex",
    content: [
      { type: "command", command: "bun test" },
      { type: "output", text: lines(500, "ok") },
    ],
  },
  { kind: "tool", id: "t2", title: "Declined", status: "declined", content: [{ type: "command", command: "rm -rf build" }] },
  { kind: "tool", id: "t3", title: "Running", status: "in_progress", content: [{ type: "command", command: "sleep 10" }] },
  { kind: "tool", id: "t4", title: "Fetch", status: "failed", content: [{ type: "text", text: "connection refused" }] },
  { kind: "tool", id: "t5", title: "Mystery", status: "exploded" },
  {
    kind: "agent",
    id: "a1",
    author: "codex",
    authorKey: "codex",
    text: "All **green**. Next:\n\n- lint\n- ship",
  },
];

test("timeline renders each item type (golden)", async () => {
  mounted = await mountChat({
    width: 72,
    height: 48,
    initial: { timeline: { header: { title: "baton · session bs_TEST", hint: "/codex, /claude, @bs_…" }, items: TRANSCRIPT } },
  });
  const frame = tidy(mounted.frame());
  expect(frame.split("\n")[0]).toContain("bs_TEST");
  expect(frame).toContain("… +496 lines (ctrl+o to expand)");
  expect(frame).toContain("⊘ Declined");
  expect(frame).toContain("? Mystery (status: exploded)");
  expect(frame).toMatchSnapshot();
});

test("ctrl+o expands clipped blocks and collapses them again", async () => {
  mounted = await mountChat({
    width: 60,
    height: 30,
    initial: {
      timeline: {
        items: [{ kind: "tool", id: "t", title: "Ran", status: "completed", content: [{ type: "output", text: lines(12) }] }],
      },
    },
  });
  expect(mounted.frame()).toContain("… +8 lines (ctrl+o to expand)");
  expect(mounted.frame()).not.toContain("line 12");
  await mounted.keys((k) => k.pressKey("o", { ctrl: true }));
  expect(mounted.frame()).toContain("line 12");
  expect(mounted.frame()).not.toContain("ctrl+o to expand");
  await mounted.keys((k) => k.pressKey("o", { ctrl: true }));
  expect(mounted.frame()).toContain("… +8 lines (ctrl+o to expand)");
  expect(mounted.draft()).toBe("");
});

test("diffs are shown in full with line numbers and +/- colouring", async () => {
  const patch = ["@@ -1,3 +1,3 @@", " keep", "-old line", "+new line", ...Array.from({ length: 20 }, (_, i) => `+added ${i}`)].join("\n");
  mounted = await mountChat({
    width: 60,
    height: 40,
    initial: {
      timeline: {
        items: [{ kind: "tool", id: "d", title: "Edited", status: "completed", content: [{ type: "diff", op: "modify", path: "src/a.ts", patch }] }],
      },
    },
  });
  const frame = tidy(mounted.frame());
  expect(frame).toContain("Update src/a.ts +21 -1");
  expect(frame).toContain("added 19");
  expect(frame).not.toContain("ctrl+o");
  expect(frame).toMatchSnapshot();
  const spans = mounted.setup.captureSpans();
  const colourOf = (needle: string): string | undefined => {
    for (const line of spans.lines) {
      for (const span of line.spans) if (span.text.includes(needle)) return rgbToHex(span.fg);
    }
    return undefined;
  };
  expect(colourOf("+new line")).toBe("#a3be8c");
  expect(colourOf("-old line")).toBe("#bf616a");
});

test("plan, notice, error and review receipt (golden)", async () => {
  mounted = await mountChat({
    width: 64,
    height: 24,
    initial: {
      timeline: {
        items: [
          {
            kind: "plan",
            id: "p",
            entries: [
              { text: "read code", status: "completed" },
              { text: "write fix", status: "in_progress" },
              { text: "test", status: "pending" },
              { text: "odd", status: "weird" },
            ],
          },
          { kind: "notice", id: "n1", tone: "info", title: "Switched to claude", detail: "opus" },
          { kind: "notice", id: "n2", tone: "warning", title: "Context almost full" },
          { kind: "error", id: "e", code: "harness_exited", message: "codex exited with code 1" },
          { kind: "review", id: "r", title: "Run `npm publish`", decision: "denied", author: "auto-review", detail: "publishing needs a human" },
        ],
      },
    },
  });
  expect(tidy(mounted.frame())).toMatchSnapshot();
});

test("thoughts are hidden when showThoughts is false", async () => {
  mounted = await mountChat({
    width: 60,
    height: 20,
    initial: { timeline: { items: TRANSCRIPT.slice(0, 2) } },
  });
  expect(mounted.frame()).toContain("∴ Planning");
  await mounted.commit({ timeline: { items: TRANSCRIPT.slice(0, 2), showThoughts: false } });
  expect(mounted.frame()).not.toContain("Planning");
  expect(mounted.frame()).toContain("run the tests please");
});

test("streaming agent text grows in place and sticks to the bottom", async () => {
  const filler: TimelineItem[] = Array.from({ length: 30 }, (_, i) => ({ kind: "user", id: `u${i}`, text: `message ${i}` }));
  mounted = await mountChat({ width: 60, height: 16, initial: { timeline: { items: [...filler, { kind: "agent", id: "a", author: "claude", text: "Hel", streaming: true }] } } });
  expect(mounted.frame()).toContain("● claude …");
  await mounted.commit({ timeline: { items: [...filler, { kind: "agent", id: "a", author: "claude", text: "Hello world, streaming done", streaming: false }] } });
  const frame = mounted.frame();
  expect(frame).toContain("Hello world, streaming done");
  expect(frame).not.toContain("message 0");
  expect(frame).not.toContain("claude …");
});

test("only the last window of items is rendered, with an earlier-items marker", async () => {
  const items: TimelineItem[] = Array.from({ length: 250 }, (_, i) => ({ kind: "user", id: `u${i}`, text: `message ${i}` }));
  mounted = await mountChat({ width: 60, height: 12, timelineWindow: 50, initial: { timeline: { items } } });
  expect(mounted.frame()).toContain("message 249");
  const content = mounted.setup.renderer.root;
  let textNodes = 0;
  const walk = (node: { getChildren(): unknown[] }): void => {
    for (const child of node.getChildren() as { getChildren(): unknown[]; constructor: { name: string } }[]) {
      if (child.constructor.name === "TextRenderable") textNodes++;
      walk(child);
    }
  };
  walk(content);
  expect(textNodes).toBeLessThan(250);
  expect(mounted.frame()).not.toContain("earlier items");
  // PageUp scrolls to the top of the window, where the marker sits; one more PageUp loads the previous window.
  for (let i = 0; i < 60 && !mounted.frame().includes("earlier items"); i++) {
    await mounted.keys((k) => k.pressKey("\x1b[5~"));
  }
  expect(mounted.frame()).toContain("↑ 200 earlier items (PageUp to load more)");
  await mounted.keys((k) => k.pressKey("\x1b[5~"));
  expect(mounted.frame()).toContain("↑ 150 earlier items (PageUp to load more)");
});

test("long messages: the window is a few screens of rows, not 100 items — only the tail's markdown is parsed; PageUp at the top shows more", async () => {
  const items: TimelineItem[] = Array.from({ length: 50 }, (_, i) => ({ kind: "agent", id: `a${i}`, author: "codex", text: `answer ${i} ${"word ".repeat(1000)}`, format: "markdown" }));
  mounted = await mountChat({ width: 100, height: 20, initial: { timeline: { items } } });
  const markdowns = (): number => renderablesOf(mounted!.setup.renderer.root, MarkdownRenderable).length;
  // 200 rows (5 screens of 20, at least 200): each answer is ~55 rows at 96 columns.
  expect(markdowns()).toBe(4);
  for (let i = 0; i < 60 && !mounted.frame().includes("earlier items"); i++) await mounted.keys((k) => k.pressKey("\x1b[5~"));
  expect(mounted.frame()).toContain("↑ 46 earlier items (PageUp to load more)");
  await mounted.keys((k) => k.pressKey("\x1b[5~"));
  expect(markdowns()).toBe(8);
  expect(mounted.frame()).toContain("↑ 42 earlier items (PageUp to load more)");
});

test("the first frame renders one screen of rows; right after it the window grows to its few screens, and only then asks the host for more", async () => {
  const items: TimelineItem[] = Array.from({ length: 50 }, (_, i) => ({ kind: "agent", id: `a${i}`, author: "codex", text: `answer ${i} ${"word ".repeat(1000)}`, format: "markdown" }));
  const store = createChatStore({ timeline: { items: items.slice(48), older: 448 } });
  const intents: ChatIntent[] = [];
  const setup = await testRender(<ChatApp store={store} onIntent={(i) => intents.push(i)} commands={[]} timelineWindow={100} />, { width: 100, height: 20, exitOnCtrlC: false });
  const markdowns = (): number => renderablesOf(setup.renderer.root, MarkdownRenderable).length;
  // What each frame drew, as it was drawn.
  const frames: { markdowns: number; asked: number; text: string }[] = [];
  setup.renderer.on("frame", () => frames.push({ markdowns: markdowns(), asked: intents.length, text: setup.captureCharFrame() }));
  try {
    await act(async () => {
      await setup.renderOnce();
    });
    // The first frame: one answer (~55 rows at 96 columns) fills its 20-row screen; the host was not asked yet.
    expect(frames[0]?.text).toContain("word word word");
    expect(frames[0]?.markdowns).toBe(1);
    expect(frames[0]?.asked).toBe(0);
    // Right after it: the window's 200 rows want more items than the two the host gave, so the view asks.
    expect(intents).toEqual([{ type: "loadEarlier", items: 100 }]);
    await act(async () => {
      store.commit({ timeline: { items, older: 400 } });
    });
    await act(async () => {
      await setup.renderOnce();
    });
    expect(markdowns()).toBe(4); // 5 screens of 20, at least 200 rows
  } finally {
    await act(async () => {
      setup.renderer.destroy();
    });
  }
});

test("a host that mapped only the tail (`older`): the view asks for as many items as its window needs, and PageUp at the top for more", async () => {
  const items: TimelineItem[] = Array.from({ length: 20 }, (_, i) => ({ kind: "user", id: `u${i}`, text: `message ${i}` }));
  mounted = await mountChat({ width: 100, height: 12, timelineWindow: 30, initial: { timeline: { items, older: 500 } } });
  // 20 items for a window of 30: the view asks at once.
  expect(mounted.intents).toContainEqual({ type: "loadEarlier", items: 30 });
  const more: TimelineItem[] = Array.from({ length: 30 }, (_, i) => ({ kind: "user", id: `v${i}`, text: `older ${i}` }));
  await mounted.commit({ timeline: { items: [...more, ...items], older: 470 } });
  const asked = mounted.intents.filter((i) => i.type === "loadEarlier").length;
  for (let i = 0; i < 60 && !mounted.frame().includes("older entries"); i++) await mounted.keys((k) => k.pressKey("\x1b[5~"));
  expect(mounted.frame()).toContain("↑ 20 earlier items and 470 older entries (PageUp to load more)");
  await mounted.keys((k) => k.pressKey("\x1b[5~"));
  expect(mounted.intents.filter((i) => i.type === "loadEarlier").slice(asked)).toEqual([{ type: "loadEarlier", items: 60 }]);
  // Everything the host has is shown; the marker now only counts what it has not read.
  expect(mounted.frame()).toContain("↑ 470 older entries (PageUp to load more)");
});

test("without `older` the view never asks the host for more", async () => {
  const items: TimelineItem[] = Array.from({ length: 5 }, (_, i) => ({ kind: "user", id: `u${i}`, text: `message ${i}` }));
  mounted = await mountChat({ width: 60, height: 12, timelineWindow: 30, initial: { timeline: { items } } });
  for (let i = 0; i < 5; i++) await mounted.keys((k) => k.pressKey("\x1b[5~"));
  expect(mounted.intents.filter((i) => i.type === "loadEarlier")).toEqual([]);
});

test("a 10,000-item timeline renders", async () => {
  const items: TimelineItem[] = Array.from({ length: 10_000 }, (_, i) =>
    i % 3 === 0
      ? { kind: "user", id: `u${i}`, text: `question ${i}` }
      : { kind: "tool", id: `t${i}`, title: "Ran", status: "completed", content: [{ type: "command", command: `echo ${i}` }, { type: "output", text: `${i}` }] },
  );
  const started = performance.now();
  mounted = await mountChat({ width: 80, height: 24, initial: { timeline: { items } } });
  const mountMs = performance.now() - started;
  expect(mounted.frame()).toContain("question 9999");
  expect(mounted.frame()).toContain("echo 9998");
  const t0 = performance.now();
  await mounted.render();
  const frameMs = performance.now() - t0;
  expect(mountMs).toBeLessThan(3000);
  expect(frameMs).toBeLessThan(100);
});

test("resize re-lays out every surface", async () => {
  mounted = await mountChat({
    width: 80,
    height: 20,
    initial: { timeline: { items: TRANSCRIPT.slice(0, 1) }, footer: { left: "session: bs_1", right: "cwd:/w" } },
  });
  await mounted.resize(40, 12);
  const frame = tidy(mounted.frame());
  expect(frame.split("\n").every((l) => l.length <= 40)).toBe(true);
  expect(frame).toContain("cwd:/w");
  expect(frame).toContain("run the tests please");
  expect(frame).toMatchSnapshot();
});

test("author accents come from theme.authorColor", async () => {
  const theme = createTheme({ authorColor: (key) => (key === "claude" ? "#d97757" : "#10a37f") });
  mounted = await mountChat({
    width: 60,
    height: 12,
    theme,
    initial: {
      timeline: {
        items: [
          { kind: "agent", id: "a1", author: "claude", authorKey: "claude", text: "from claude", format: "plain" },
          { kind: "agent", id: "a2", author: "codex", authorKey: "codex", text: "from codex", format: "plain" },
        ],
      },
    },
  });
  const colourOf = (needle: string): string | undefined => {
    for (const line of mounted!.setup.captureSpans().lines) {
      for (const span of line.spans) if (span.text.includes(needle)) return rgbToHex(span.fg);
    }
    return undefined;
  };
  expect(colourOf("claude")).toBe("#d97757");
  expect(colourOf("codex")).toBe("#10a37f");
});
