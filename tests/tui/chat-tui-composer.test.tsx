import { afterEach, expect, test } from "bun:test";
import { act } from "react";
import type { MentionGroup, TimelineItem } from "chat-tui";
import { mountChat, tidy, type Mounted } from "./chat-tui-setup.tsx";

let mounted: Mounted | undefined;
afterEach(async () => {
  await mounted?.destroy();
  mounted = undefined;
});

test("typing + Enter emits submit and clears the editor", async () => {
  mounted = await mountChat({ width: 60, height: 12 });
  await mounted.type("hello world");
  expect(mounted.frame()).toContain("hello world");
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toEqual([{ type: "submit", text: "hello world" }]);
  expect(mounted.draft()).toBe("");
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toHaveLength(1);
});

test("a burst of messages each submit exactly once", async () => {
  mounted = await mountChat({ width: 60, height: 12 });
  await mounted.keys(async (k) => {
    for (let i = 1; i <= 8; i++) {
      await k.typeText(`msg ${i}`);
      k.pressEnter();
    }
  });
  expect(mounted.intents).toEqual(Array.from({ length: 8 }, (_, i) => ({ type: "submit", text: `msg ${i + 1}` })));
});

test("Shift+Enter inserts a newline (kitty keyboard)", async () => {
  mounted = await mountChat({ width: 60, height: 12, kittyKeyboard: true });
  await mounted.type("first");
  await mounted.keys((k) => k.pressEnter({ shift: true }));
  await mounted.type("second");
  expect(mounted.intents).toEqual([]);
  expect(mounted.draft()).toBe("first\nsecond");
  expect(tidy(mounted.frame())).toMatchSnapshot();
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toEqual([{ type: "submit", text: "first\nsecond" }]);
});

test("Ctrl+J and Option+Enter insert a newline in a legacy terminal", async () => {
  mounted = await mountChat({ width: 60, height: 12 });
  await mounted.type("a");
  await mounted.keys((k) => k.pressKey("j", { ctrl: true }));
  await mounted.type("b");
  await mounted.keys((k) => k.pressEnter({ meta: true }));
  await mounted.type("c");
  expect(mounted.draft()).toBe("a\nb\nc");
  expect(mounted.intents).toEqual([]);
});

test("a bracketed multi-line paste stays in the draft", async () => {
  mounted = await mountChat({ width: 60, height: 12 });
  await mounted.keys((k) => k.pasteBracketedText("line one\nline two"));
  expect(mounted.draft()).toBe("line one\nline two");
  expect(mounted.intents).toEqual([]);
});

test("/ completion lists commands, Tab completes, Enter on an exact command emits command", async () => {
  mounted = await mountChat({ width: 60, height: 16 });
  await mounted.type("/");
  const frame = tidy(mounted.frame());
  expect(frame).toContain("/model");
  expect(frame).toContain("/sessions");
  expect(frame).toMatchSnapshot();
  await mounted.type("ef");
  await mounted.keys((k) => k.pressTab());
  expect(mounted.draft()).toBe("/effort ");
  await mounted.type("high");
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toEqual([{ type: "command", name: "effort", args: "high" }]);
});

test("Tab on an ambiguous prefix completes the common part, then the selection", async () => {
  mounted = await mountChat({ width: 60, height: 16 });
  await mounted.type("/mo");
  await mounted.keys((k) => k.pressTab());
  expect(mounted.draft()).toBe("/mode");
  await mounted.keys((k) => k.pressArrow("down"));
  await mounted.keys((k) => k.pressTab());
  expect(mounted.draft()).toBe("/model ");
});

test("Enter on a partial command accepts the candidate instead of sending", async () => {
  mounted = await mountChat({ width: 60, height: 16 });
  await mounted.type("/sess");
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toEqual([]);
  expect(mounted.draft()).toBe("/sessions ");
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toEqual([{ type: "command", name: "sessions", args: "" }]);
});

test("an unknown /text is a submit; Esc closes the completion list first", async () => {
  mounted = await mountChat({ width: 60, height: 16 });
  await mounted.type("/m");
  expect(mounted.frame()).toContain("/model");
  await mounted.escape();
  expect(mounted.frame()).not.toContain("/model");
  expect(mounted.intents).toEqual([]);
  await mounted.keys((k) => k.pressBackspace());
  await mounted.type("usr/bin is odd");
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toEqual([{ type: "submit", text: "/usr/bin is odd" }]);
});

test("@ mentions are looked up asynchronously, grouped, and stale answers are dropped", async () => {
  const pending = new Map<string, (groups: readonly MentionGroup[]) => void>();
  const onMentionQuery = (query: string): Promise<readonly MentionGroup[]> =>
    new Promise((resolve) => {
      pending.set(query, resolve);
    });
  mounted = await mountChat({ width: 60, height: 16, onMentionQuery });
  await mounted.type("see @b");
  await mounted.type("s");
  expect([...pending.keys()]).toEqual(["b", "bs"]);
  expect(mounted.frame()).toContain("searching…");
  await act(async () => {
    pending.get("b")?.([{ group: "stale", items: [{ id: "old", label: "OLD" }] }]);
    await Promise.resolve();
  });
  await mounted.render();
  expect(mounted.frame()).not.toContain("OLD");
  await act(async () => {
    pending.get("bs")?.([
      { group: "session", items: [{ id: "session:bs_01", label: "bs_01", detail: "fix login" }] },
      { group: "file", items: [{ id: "file:bs.txt", label: "bs.txt" }] },
    ]);
    await Promise.resolve();
  });
  await mounted.render();
  const frame = tidy(mounted.frame());
  expect(frame).toContain("session");
  expect(frame).toMatch(/bs_01 +fix login/);
  expect(frame).toMatchSnapshot();
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.draft()).toBe("see @session:bs_01 ");
  expect(mounted.intents).toEqual([]);
});

test("a failing mention lookup shows nothing and never breaks typing", async () => {
  mounted = await mountChat({ width: 60, height: 16, onMentionQuery: () => Promise.reject(new Error("boom")) });
  await mounted.type("@x");
  await mounted.render();
  await mounted.type("y");
  expect(mounted.draft()).toBe("@xy");
});

test("↑/↓ walk history with the draft stashed and restored", async () => {
  mounted = await mountChat({ width: 60, height: 12 });
  await mounted.type("first");
  await mounted.keys((k) => k.pressEnter());
  await mounted.type("second");
  await mounted.keys((k) => k.pressEnter());
  await mounted.type("draft");
  await mounted.keys((k) => k.pressArrow("up"));
  expect(mounted.draft()).toBe("second");
  await mounted.keys((k) => k.pressArrow("up"));
  expect(mounted.draft()).toBe("first");
  await mounted.keys((k) => k.pressArrow("down"));
  expect(mounted.draft()).toBe("second");
  await mounted.keys((k) => k.pressArrow("down"));
  expect(mounted.draft()).toBe("draft");
});

test("history comes from composer.history too", async () => {
  mounted = await mountChat({ width: 60, height: 12, initial: { composer: { history: ["old one", "old two"] } } });
  await mounted.keys((k) => k.pressArrow("up"));
  expect(mounted.draft()).toBe("old two");
  await mounted.keys((k) => k.pressArrow("up"));
  expect(mounted.draft()).toBe("old one");
});

test("↑ nearing the oldest prompt asks the host for older history when it has some (`timeline.older`); the walk goes on over what arrives", async () => {
  mounted = await mountChat({ width: 60, height: 12, initial: { composer: { history: ["p7", "p8", "p9"] }, timeline: { items: [], older: 40 } } });
  await mounted.keys((k) => k.pressArrow("up"));
  expect(mounted.draft()).toBe("p9");
  expect(mounted.intents).toContainEqual({ type: "loadEarlier" });
  await mounted.keys((k) => k.pressArrow("up"));
  expect(mounted.draft()).toBe("p8");
  await mounted.commit({ composer: { history: ["p4", "p5", "p6", "p7", "p8", "p9"] }, timeline: { items: [], older: 0 } });
  const asked = mounted.intents.length;
  await mounted.keys((k) => k.pressArrow("up"));
  expect(mounted.draft()).toBe("p7");
  await mounted.keys((k) => k.pressArrow("up"));
  expect(mounted.draft()).toBe("p6");
  // Nothing older on the host: no more asking.
  expect(mounted.intents.slice(asked).filter((i) => i.type === "loadEarlier")).toEqual([]);
  await mounted.keys((k) => k.pressArrow("down"));
  expect(mounted.draft()).toBe("p7");
});

test("↑ on an empty composer with queued inputs emits recall first; queued inputs show their target", async () => {
  mounted = await mountChat({
    width: 60,
    height: 12,
    initial: {
      composer: {
        busy: true,
        placeholder: "Message codex … Enter sends or queues",
        queued: [
          { id: "q1", text: "then run lint", target: "codex" },
          { id: "q2", text: "and summarise\nsecond line", target: "claude" },
        ],
        history: ["earlier"],
      },
    },
  });
  expect(tidy(mounted.frame())).toMatchSnapshot();
  await mounted.keys((k) => k.pressArrow("up"));
  expect(mounted.intents).toEqual([{ type: "recall", id: "q2" }]);
  expect(mounted.draft()).toBe("");
  await mounted.commit({ composer: { busy: true, queued: [{ id: "q1", text: "then run lint", target: "codex" }], draft: { id: "r1", text: "and summarise" } } });
  expect(mounted.draft()).toBe("and summarise");
});

test("a draft injection with mode ifEmpty is refused when the user has a draft", async () => {
  mounted = await mountChat({ width: 60, height: 12 });
  await mounted.type("mine");
  await mounted.commit({ composer: { draft: { id: "s1", text: "suggested", mode: "ifEmpty" } } });
  expect(mounted.draft()).toBe("mine");
  expect(mounted.intents).toEqual([{ type: "draftRejected", id: "s1" }]);
});

test("streaming output never moves the cursor or clears the draft", async () => {
  mounted = await mountChat({ width: 60, height: 14 });
  await mounted.type("abc");
  await mounted.keys((k) => k.pressArrow("left"));
  const composerRendersBefore = mounted.renders.filter((r) => r === "composer").length;
  let text = "";
  for (let i = 0; i < 20; i++) {
    text += `chunk ${i} `;
    const items: TimelineItem[] = [{ kind: "agent", id: "a", author: "codex", text, streaming: true }];
    await mounted.commit({ timeline: { items }, activity: { items: [{ id: "r", label: "thinking…", startedAt: mounted.clock.now() }] } });
  }
  expect(mounted.renders.filter((r) => r === "composer").length).toBe(composerRendersBefore);
  await mounted.type("X");
  expect(mounted.draft()).toBe("abXc");
});

test("Ctrl+C clears the draft; a second press within 1.5 s exits", async () => {
  mounted = await mountChat({ width: 60, height: 12 });
  await mounted.type("some draft");
  await mounted.keys((k) => k.pressCtrlC());
  expect(mounted.draft()).toBe("");
  expect(mounted.intents).toEqual([{ type: "clearDraft", cleared: true }]);
  mounted.clock.advance(2000);
  // on an empty composer the first press still says so (the host shows "press again to exit")
  await mounted.keys((k) => k.pressCtrlC());
  expect(mounted.intents).toEqual([{ type: "clearDraft", cleared: true }, { type: "clearDraft", cleared: false }]);
  mounted.clock.advance(1000);
  await mounted.keys((k) => k.pressCtrlC());
  expect(mounted.intents).toEqual([{ type: "clearDraft", cleared: true }, { type: "clearDraft", cleared: false }, { type: "exit" }]);
});

test("Ctrl+D exits only on an empty, idle composer", async () => {
  mounted = await mountChat({ width: 60, height: 12, initial: { composer: { busy: true } } });
  await mounted.keys((k) => k.pressKey("d", { ctrl: true }));
  expect(mounted.intents).toEqual([]);
  await mounted.commit({ composer: { busy: false } });
  await mounted.type("x");
  await mounted.keys((k) => k.pressKey("d", { ctrl: true }));
  expect(mounted.intents).toEqual([]);
  await mounted.keys((k) => k.pressBackspace());
  await mounted.keys((k) => k.pressKey("d", { ctrl: true }));
  expect(mounted.intents).toEqual([{ type: "exit" }]);
});

test("Shift+Tab cycles the mode; Esc with nothing open emits cancel", async () => {
  mounted = await mountChat({ width: 60, height: 12, initial: { composer: { mode: "plan mode" } } });
  expect(mounted.frame()).toContain("⏵⏵ plan mode (shift+tab to cycle)");
  await mounted.type("keep me");
  await mounted.keys((k) => k.pressTab({ shift: true }));
  await mounted.escape();
  expect(mounted.intents).toEqual([{ type: "cycleMode" }, { type: "cancel" }]);
  expect(mounted.draft()).toBe("keep me");
});

test("picker: keys arriving in one burst move from the latest cursor (Down Down Enter picks the third item)", async () => {
  const items = [{ id: "a", label: "alpha" }, { id: "b", label: "beta" }, { id: "c", label: "gamma" }];
  mounted = await mountChat({ width: 60, height: 16, initial: { composer: { picker: { id: "pk_1", title: "Pick", items } } } });
  await mounted.keys((k) => {
    k.pressArrow("down");
    k.pressArrow("down");
    k.pressEnter();
  });
  expect(mounted.intents).toEqual([{ type: "pickerSelect", id: "pk_1", itemId: "c" }]);
});

test("picker: a filter typed and Enter in one burst choose from the filtered rows (typing 'hello⏎' fast picks hello)", async () => {
  const items = [{ id: "f", label: "baton-test/fixture" }, { id: "h", label: "example/hello" }, { id: "g", label: "gamma" }];
  mounted = await mountChat({ width: 60, height: 16, initial: { composer: { picker: { id: "pk_2", title: "Pick", items } } } });
  await mounted.keys((k) => {
    for (const ch of "hello") k.pressKey(ch);
    k.pressArrow("down");
    k.pressArrow("up");
    k.pressEnter();
  });
  expect(mounted.intents.filter((i) => i.type === "pickerSelect")).toEqual([{ type: "pickerSelect", id: "pk_2", itemId: "h" }]);
});
