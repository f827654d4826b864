import { afterEach, expect, jest, test } from "bun:test";
import { act } from "react";
import type { ChatSurface, SidecarState } from "chat-tui";
import { mountChat, tidy, type Mounted } from "./chat-tui-setup.tsx";

let mounted: Mounted | undefined;
afterEach(async () => {
  await mounted?.destroy();
  mounted = undefined;
});

test("activity line, pinned plan, toast and footer (golden)", async () => {
  mounted = await mountChat({ width: 72, height: 20 });
  const start = mounted.clock.now() - 75_000;
  await mounted.commit({
    timeline: {
      items: [{ kind: "user", id: "u", text: "do the thing" }],
      plan: {
        entries: [
          { text: "explore", status: "completed" },
          { text: "change", status: "in_progress" },
          { text: "verify", status: "pending" },
        ],
      },
    },
    activity: {
      items: [
        { id: "d", label: "opus · thinking…", startedAt: start, hint: "Esc to interrupt", author: "claude", authorKey: "claude" },
        { id: "o", label: "gpt-5 · running command… · background", startedAt: start + 60_000 },
      ],
    },
    footer: { left: "session: bs_1  in:10 out:20  turns:1  queue:0  plan:1/3", right: "cwd:/work", toast: { text: "Recovered an interrupted turn", tone: "warning" } },
  });
  const frame = tidy(mounted.frame());
  expect(frame).toContain("claude · opus · thinking… (01:15)  Esc to interrupt");
  expect(frame).toContain("(00:15)");
  expect(frame).toContain("queue:0");
  expect(frame).toContain("Recovered an interrupted turn");
  expect(frame).toMatchSnapshot();
});

test("elapsed time ticks locally once a second, re-rendering only the activity line", async () => {
  mounted = await mountChat({ width: 60, height: 10 });
  jest.useFakeTimers();
  try {
    await mounted.commit({ activity: { items: [{ id: "r", label: "thinking…", startedAt: mounted.clock.now() }] } });
    expect(mounted.frame()).toContain("thinking… (00:00)");
    mounted.renders.length = 0;
    mounted.clock.advance(5_000);
    await act(async () => {
      jest.advanceTimersByTime(1_000);
    });
  } finally {
    jest.useRealTimers();
  }
  await mounted.render();
  expect(mounted.frame()).toContain("thinking… (00:05)");
  expect([...new Set(mounted.renders)]).toEqual(["activity"]);
});

test("an update to one state re-renders only its surface", async () => {
  mounted = await mountChat({ width: 80, height: 20 });
  const updates: Record<string, Parameters<Mounted["commit"]>[0]> = {
    timeline: { timeline: { items: [{ kind: "user", id: "u", text: "x" }] } },
    activity: { activity: { items: [{ id: "a", label: "idle" }] } },
    composer: { composer: { busy: true } },
    footer: { footer: { left: "session" } },
    sidecar: { sidecar: { sections: [{ id: "s", items: [{ id: "i", title: "PR" }] }] } },
  };
  for (const [surface, patch] of Object.entries(updates)) {
    mounted.renders.length = 0;
    await mounted.commit(patch);
    const touched = new Set<ChatSurface>(mounted.renders);
    // The picker overlay is part of the composer surface (it reads composer.picker).
    touched.delete("picker");
    expect({ surface, touched: [...touched] }).toEqual({ surface, touched: [surface as ChatSurface] });
  }
  mounted.renders.length = 0;
  await mounted.commit({ footer: { left: "session" } });
  expect(mounted.renders).toEqual([]);
});

const BOARD: SidecarState = {
  title: "Board",
  sections: [
    {
      id: "pr",
      title: "Pull requests",
      items: [
        { id: "1", title: "#12 fix login", url: "https://example.test/pr/12", status: "open", tone: "success" },
        { id: "2", title: "#13 docs", status: "draft", detail: "waiting for review" },
      ],
    },
  ],
};

test("sidecar shows inline on wide terminals (golden)", async () => {
  mounted = await mountChat({ width: 130, height: 14, initial: { sidecar: BOARD, timeline: { items: [{ kind: "user", id: "u", text: "hi" }] } } });
  const frame = tidy(mounted.frame());
  expect(frame).toContain("#12 fix login");
  expect(frame).toMatchSnapshot();
});

test("at 100 columns a picker over the open Board overlay: no strip of the Board beside it; Esc is the picker's; the Board is back after", async () => {
  mounted = await mountChat({ width: 100, height: 30, initial: { sidecar: { ...BOARD, mode: "open" } } });
  expect(mounted.frame()).toContain("#12 fix login");
  await mounted.commit({ composer: { picker: { id: "pk_1", title: "Pick a colour", items: [{ id: "red", label: "Red" }, { id: "green", label: "Green" }] } } });
  const frame = mounted.frame();
  expect(frame).toContain("Pick a colour");
  // The picker spans columns 14–85; nothing of the Board (columns 57–98) may show around it.
  expect(frame).not.toContain("Board");
  expect(frame).not.toContain("#12 fix login");
  const lines = frame.split("\n");
  const pickerRows = lines.filter((line) => line.includes("Pick a colour") || line.includes("Red") || line.includes("Green"));
  expect(pickerRows.length).toBeGreaterThan(0);
  for (const line of pickerRows) expect(line.slice(86).trim()).toBe("");
  await mounted.escape();
  expect(mounted.intents).not.toContainEqual({ type: "dismissSidecar" });
  await mounted.commit({ composer: {} });
  expect(mounted.frame()).toContain("#12 fix login");
});

test("on narrow terminals the sidecar shows only when open, as an overlay Esc dismisses", async () => {
  mounted = await mountChat({ width: 100, height: 14, initial: { sidecar: BOARD } });
  expect(mounted.frame()).not.toContain("#12 fix login");
  await mounted.commit({ sidecar: { ...BOARD, mode: "open" } });
  expect(mounted.frame()).toContain("#12 fix login");
  await mounted.type("still typing");
  expect(mounted.draft()).toBe("still typing");
  await mounted.escape();
  expect(mounted.intents).toEqual([{ type: "dismissSidecar" }]);
  await mounted.resize(140, 14);
  expect(mounted.frame()).toContain("#12 fix login");
});
