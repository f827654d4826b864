import { afterEach, expect, test } from "bun:test";
import type { InteractionCard, PermissionCard, PickerState, QuestionCard } from "chat-tui";
import { mountChat, tidy, type Mounted } from "./chat-tui-setup.tsx";

let mounted: Mounted | undefined;
afterEach(async () => {
  await mounted?.destroy();
  mounted = undefined;
});

const PERMISSION: PermissionCard = {
  kind: "permission",
  id: "ix_1",
  title: "Run command?",
  description: "$ rm -rf build",
  author: "codex",
  options: [
    { id: "allow_once", label: "Allow once" },
    { id: "allow_always", label: "Allow for this session" },
    { id: "reject_once", label: "Deny (agent continues)" },
    { id: "reject_always", label: "Deny and interrupt turn" },
  ],
};

async function withCards(cards: readonly InteractionCard[], height = 20): Promise<Mounted> {
  return mountChat({ width: 64, height, initial: { composer: { interactions: cards } } });
}

test("permission card shows the numbered options from the data (golden)", async () => {
  mounted = await withCards([PERMISSION, { ...PERMISSION, id: "ix_2" }]);
  const frame = tidy(mounted.frame());
  expect(frame).toContain("4. Deny and interrupt turn");
  expect(frame).toContain("Esc cancel · +1 pending");
  expect(frame).toMatchSnapshot();
});

test("a number key resolves the permission with that option id", async () => {
  mounted = await withCards([PERMISSION]);
  await mounted.keys((k) => k.pressKey("2"));
  expect(mounted.intents).toEqual([
    { type: "resolveInteraction", id: "ix_1", response: { outcome: "selected", optionId: "allow_always" } },
  ]);
});

test("↑/↓ + Enter choose; keys beyond the options do nothing", async () => {
  mounted = await withCards([PERMISSION]);
  await mounted.keys((k) => k.pressKey("9"));
  await mounted.keys((k) => k.pressArrow("up"));
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toEqual([
    { type: "resolveInteraction", id: "ix_1", response: { outcome: "selected", optionId: "reject_always" } },
  ]);
});

test("Esc on a card sends its Esc response (cancelled), not cancel", async () => {
  mounted = await withCards([PERMISSION]);
  await mounted.escape();
  expect(mounted.intents).toEqual([{ type: "resolveInteraction", id: "ix_1", response: { outcome: "cancelled" } }]);
});

test("a card declares its own Esc result", async () => {
  const card: PermissionCard = {
    ...PERMISSION,
    escResponse: { outcome: "selected", optionId: "reject_once" },
    escLabel: "deny",
  };
  mounted = await withCards([card]);
  expect(mounted.frame()).toContain("Esc deny");
  await mounted.escape();
  expect(mounted.intents).toEqual([
    { type: "resolveInteraction", id: "ix_1", response: { outcome: "selected", optionId: "reject_once" } },
  ]);
});

test("while a card is open, typing goes to the card, never to the composer draft", async () => {
  mounted = await mountChat({ width: 64, height: 20 });
  await mounted.type("draft");
  await mounted.commit({ composer: { interactions: [PERMISSION] } });
  await mounted.type("xyz");
  await mounted.keys((k) => k.pressEnter({}));
  expect(mounted.intents).toEqual([
    { type: "resolveInteraction", id: "ix_1", response: { outcome: "selected", optionId: "allow_once" } },
  ]);
  await mounted.commit({ composer: {} });
  expect(mounted.draft()).toBe("draft");
  await mounted.type("!");
  expect(mounted.draft()).toBe("draft!");
});

const QUESTIONS: QuestionCard = {
  kind: "question",
  id: "ix_q",
  title: "Claude has questions",
  questions: [
    {
      id: "lang",
      header: "Language",
      question: "Which language?",
      options: [
        { id: "ts", label: "TypeScript", description: "typed" },
        { id: "py", label: "Python" },
      ],
      allowOther: true,
    },
    {
      id: "tools",
      question: "Which tools?",
      multiSelect: true,
      options: [
        { id: "lint", label: "Linter" },
        { id: "fmt", label: "Formatter" },
        { id: "ci", label: "CI" },
      ],
    },
  ],
};

test("question card: single-select then multi-select with space toggles (golden)", async () => {
  mounted = await withCards([QUESTIONS], 22);
  expect(tidy(mounted.frame())).toMatchSnapshot();
  await mounted.keys((k) => k.pressKey("1"));
  expect(mounted.frame()).toContain("Which tools? (2/2)");
  await mounted.keys((k) => k.pressKey(" "));
  await mounted.keys((k) => k.pressArrow("down"));
  await mounted.keys((k) => k.pressArrow("down"));
  await mounted.keys((k) => k.pressKey(" "));
  expect(tidy(mounted.frame())).toMatchSnapshot();
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toEqual([
    {
      type: "resolveInteraction",
      id: "ix_q",
      response: { outcome: "answered", answers: { lang: { selected: ["ts"] }, tools: { selected: ["lint", "ci"] } } },
    },
  ]);
});

test("question card: Other takes free text; Esc leaves the text first, then cancels", async () => {
  mounted = await withCards([{ ...QUESTIONS, questions: QUESTIONS.questions.slice(0, 1) }], 22);
  await mounted.keys((k) => k.pressKey("3"));
  await mounted.type("Rust 2");
  expect(mounted.frame()).toContain("Other: Rust 2");
  await mounted.escape();
  expect(mounted.intents).toEqual([]);
  await mounted.keys((k) => k.pressEnter());
  await mounted.type("Zig");
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toEqual([
    { type: "resolveInteraction", id: "ix_q", response: { outcome: "answered", answers: { lang: { selected: [], other: "Rust 2Zig" } } } },
  ]);
});

test("question card Esc sends cancelled", async () => {
  mounted = await withCards([QUESTIONS], 22);
  await mounted.escape();
  expect(mounted.intents).toEqual([{ type: "resolveInteraction", id: "ix_q", response: { outcome: "cancelled" } }]);
});

const PICKER: PickerState = {
  id: "model",
  title: "Model",
  items: [
    { id: "gpt-5", label: "gpt-5", detail: "balanced" },
    { id: "gpt-5-mini", label: "gpt-5-mini", detail: "fast" },
    { id: "opus", label: "opus", detail: "deep", current: true },
  ],
};

test("picker overlay lists items with the current one marked (golden)", async () => {
  mounted = await mountChat({ width: 64, height: 16, initial: { composer: { picker: PICKER } } });
  const frame = tidy(mounted.frame());
  expect(frame).toContain("opus ✓");
  expect(frame).toMatchSnapshot();
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents).toEqual([{ type: "pickerSelect", id: "model", itemId: "opus" }]);
});

test("picker filters as you type and reports the query", async () => {
  mounted = await mountChat({ width: 64, height: 16, initial: { composer: { picker: PICKER } } });
  await mounted.type("mini");
  expect(mounted.frame()).not.toContain("opus");
  expect(mounted.intents.at(-1)).toEqual({ type: "pickerQuery", id: "model", query: "mini" });
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents.at(-1)).toEqual({ type: "pickerSelect", id: "model", itemId: "gpt-5-mini" });
});

test("picker Esc clears the query first, then cancels; the composer draft is untouched", async () => {
  mounted = await mountChat({ width: 64, height: 16 });
  await mounted.type("my draft");
  await mounted.commit({ composer: { picker: PICKER } });
  await mounted.type("zz");
  expect(mounted.frame()).toContain("no matches");
  await mounted.escape();
  expect(mounted.frame()).toContain("gpt-5-mini");
  await mounted.escape();
  expect(mounted.intents.filter((i) => i.type !== "pickerQuery")).toEqual([{ type: "pickerCancel", id: "model" }]);
  await mounted.commit({ composer: {} });
  expect(mounted.draft()).toBe("my draft");
});

const FRUIT: PickerState = {
  id: "find",
  title: "Find a fruit",
  filter: "remote",
  items: ["apple", "apricot", "cherry"].map((f) => ({ id: f, label: f })),
};

test("a remote picker holds Enter typed before its answer and chooses the answer's first row", async () => {
  mounted = await mountChat({ width: 64, height: 16, initial: { composer: { picker: FRUIT } } });
  // Typed and Enter in one burst: the rows still answer the empty query, so nothing is chosen yet.
  await mounted.keys((k) => {
    k.pressKey("c");
    k.pressKey("h");
    k.pressEnter();
  });
  expect(mounted.intents).toEqual([
    { type: "pickerQuery", id: "find", query: "c" },
    { type: "pickerQuery", id: "find", query: "ch" },
  ]);
  await mounted.commit({ composer: { picker: { ...FRUIT, items: FRUIT.items, loading: true } } });
  expect(mounted.intents).toHaveLength(2);
  await mounted.commit({ composer: { picker: { ...FRUIT, query: "ch", items: [{ id: "cherry", label: "cherry" }] } } });
  expect(mounted.intents.at(-1)).toEqual({ type: "pickerSelect", id: "find", itemId: "cherry" });
  // With the answer in, Enter chooses at once.
  await mounted.commit({ composer: { picker: { ...FRUIT, id: "find-2" } } });
  await mounted.keys((k) => k.pressEnter());
  expect(mounted.intents.at(-1)).toEqual({ type: "pickerSelect", id: "find-2", itemId: "apple" });
});

test("the picker sits above an open card: keys go to the picker", async () => {
  mounted = await mountChat({ width: 64, height: 20, initial: { composer: { picker: PICKER, interactions: [PERMISSION] } } });
  await mounted.keys((k) => k.pressKey("1"));
  expect(mounted.intents).toEqual([{ type: "pickerQuery", id: "model", query: "1" }]);
  await mounted.escape();
  await mounted.escape();
  expect(mounted.intents.filter((i) => i.type !== "pickerQuery")).toEqual([{ type: "pickerCancel", id: "model" }]);
  await mounted.commit({ composer: { interactions: [PERMISSION] } });
  await mounted.keys((k) => k.pressKey("1"));
  expect(mounted.intents.at(-1)).toEqual({
    type: "resolveInteraction",
    id: "ix_1",
    response: { outcome: "selected", optionId: "allow_once" },
  });
});

const EDIT_CARD: PermissionCard = {
  kind: "permission",
  id: "ix_d",
  title: "Apply file changes?",
  author: "codex",
  diffs: [
    { type: "diff", op: "modify", path: "src/a.ts", patch: "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -3,2 +3,2 @@\n keep\n-const x = 1;\n+const x = 2;\n" },
    { type: "diff", op: "add", path: "notes.md", patch: "--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+# Notes\n+hello\n" },
  ],
  options: [
    { id: "accept", label: "Allow once" },
    { id: "decline", label: "Deny" },
  ],
};

test("a file-change card shows each diff above the options, before the decision (#11.9)", async () => {
  mounted = await withCards([EDIT_CARD], 30);
  const frame = tidy(mounted.frame());
  expect(frame).toContain("Update src/a.ts +1 -1");
  expect(frame).toMatch(/4\s+-const x = 1;/);
  expect(frame).toMatch(/4\s+\+const x = 2;/);
  expect(frame).toContain("Add notes.md +2 -0");
  expect(frame).toContain("+# Notes");
  expect(frame.indexOf("+const x = 2;")).toBeLessThan(frame.indexOf("1. Allow once"));
  expect(frame).toMatchSnapshot();
});

test("an edit whose position is unknown shows old → new without line numbers; no patch shows no +0 -0", async () => {
  const card: PermissionCard = {
    ...EDIT_CARD,
    diffs: [
      { type: "diff", op: "modify", path: "b.txt", patch: "--- a/b.txt\n+++ b/b.txt\n@@ @@ every occurrence\n-before\n+after\n" },
      { type: "diff", op: "add", path: "c.txt" },
    ],
  };
  mounted = await withCards([card], 30);
  const frame = tidy(mounted.frame());
  expect(frame).toContain("Update b.txt +1 -1");
  expect(frame).toContain("every occurrence");
  expect(frame).toMatch(/│\s+-before/);
  expect(frame).toMatch(/│\s+\+after/);
  expect(frame).toContain("Add c.txt");
  expect(frame).not.toContain("+0 -0");
});

test("a long diff is fitted to the screen; the options stay visible", async () => {
  const body = Array.from({ length: 80 }, (_, i) => `+line ${i + 1}`).join("\n");
  const card: PermissionCard = { ...EDIT_CARD, diffs: [{ type: "diff", op: "add", path: "big.txt", patch: `--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,80 @@\n${body}\n` }] };
  mounted = await withCards([card], 30);
  const frame = tidy(mounted.frame());
  expect(frame).toContain("Add big.txt +80 -0");
  expect(frame).toContain("+line 1");
  expect(frame).not.toContain("+line 80");
  expect(frame).toMatch(/… \+\d+ more lines \(in full in the transcript\)/);
  expect(frame).toContain("1. Allow once");
  expect(frame).toContain("2. Deny");
});

const SUGGESTION: InteractionCard = {
  kind: "suggestion",
  id: "ix_s",
  title: "Codex hit its usage limit",
  text: "Continue the task\non the other agent",
  requester: "baton",
  target: "Claude Code",
};

test("suggestion card: who suggests it, its text, and its keys", async () => {
  mounted = await withCards([SUGGESTION]);
  const frame = tidy(mounted.frame());
  expect(frame).toContain("Suggested by baton");
  expect(frame).toContain("on the other agent");
  expect(frame).toContain("Enter send · to Claude Code · e edit · t target · Esc");
});

test("suggestion card: Enter sends, e edits, t asks for the target, Esc dismisses; other letters do nothing", async () => {
  mounted = await withCards([SUGGESTION]);
  await mounted.type("x");
  await mounted.keys((k) => k.pressEnter());
  await mounted.keys((k) => k.pressKey("e"));
  await mounted.keys((k) => k.pressKey("t"));
  await mounted.keys((k) => k.pressKey("T", { shift: true }));
  await mounted.escape();
  expect(mounted.intents).toEqual([
    { type: "resolveInteraction", id: "ix_s", response: { outcome: "selected", optionId: "send" } },
    { type: "resolveInteraction", id: "ix_s", response: { outcome: "selected", optionId: "edit" } },
    { type: "resolveInteraction", id: "ix_s", response: { outcome: "selected", optionId: "target" } },
    { type: "resolveInteraction", id: "ix_s", response: { outcome: "cancelled" } },
  ]);
});
