/**
 * The pure projection → view mapping of src/tui: transcript items, tools, thoughts, cards and resolutions,
 * activity labels, footer fitting, the stream throttle and the terminal title. Given events, then the view.
 */
import { describe, expect, test } from "bun:test";
import type { AnyEvent } from "../../src/event/envelope.ts";
import { TargetDirectory } from "../../src/controller/targets.ts";
import { HarnessRegistry } from "../../src/harness/registry.ts";
import { initialState, reduce, selectActivity, selectFooter, type ProjectionState } from "../../src/projection/index.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import {
  createTargetLooks,
  createTimelineMapper,
  dirtyRefOf,
  footerTexts,
  mapActivity,
  mapInteraction,
  matchSlashTarget,
  placeholderFor,
  PublishThrottle,
  resolutionFor,
  sanitizeTitle,
  splitPatch,
  splitThought,
  titleSequence,
  type ActivityInput,
} from "../../src/tui/index.ts";
import { Toasts } from "../../src/tui/toasts.ts";
import { createEventFactory } from "../support/events.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { brand } from "../support/ids.ts";

const registry = new TargetDirectory(new HarnessRegistry([fakeDefinition({ turns: [] }, "fake"), fakeDefinition({ turns: [] }, "other")]));
const lookOf = createTargetLooks(registry);

function fold(events: readonly AnyEvent[], state: ProjectionState = initialState("bs_x")): ProjectionState {
  return events.reduce(reduce, state);
}

describe("transcript mapping", () => {
  test("user text is shown without injected context; agent text streams only while its turn runs", () => {
    const f = createEventFactory();
    const map = createTimelineMapper(lookOf);
    const running = fold([
      f.make("state_update", { state: "running" }, { turn: "t_1", target: "fake", source: "baton" }),
      f.make("user_message", { messageId: "m_u", content: [{ type: "text", text: "<baton-context>secret</baton-context>\nfix it" }] }, { turn: "t_1", target: "fake", source: "user" }),
      f.make("agent_message_chunk", { messageId: "m_a", content: { type: "text", text: "Work" } }, { turn: "t_1", target: "fake" }),
    ]);
    const a = map(running, brand.target("fake"), []);
    expect(a.items).toEqual([
      { kind: "user", id: "m_u", author: "you", text: "fix it" },
      { kind: "agent", id: "m_a", author: "fake", authorKey: "fake", text: "Work", format: "markdown", streaming: true },
    ]);
    const done = fold([f.make("state_update", { state: "idle", stopReason: "end_turn" }, { turn: "t_1", target: "fake" })], running);
    const b = map(done, brand.target("fake"), []);
    expect(b.items[1]).toMatchObject({ kind: "agent", text: "Work" });
    expect(b.items[1]).not.toHaveProperty("streaming");
    // Unchanged items keep their identity; an unchanged state gives the same output object.
    expect(b.items[0]).toBe(a.items[0]);
    expect(map(done, brand.target("fake"), [])).toBe(b);
  });

  test("an unrelated event keeps the items array identical", () => {
    const f = createEventFactory();
    const map = createTimelineMapper(lookOf);
    const s1 = fold([f.make("_baton_notice", { level: "info", title: "hello" })]);
    const first = map(s1, brand.target("fake"), []);
    const s2 = fold([f.make("usage_update", { inputTokens: 3 }, { target: "fake" })], s1);
    expect(map(s2, brand.target("fake"), []).items).toBe(first.items);
  });

  test("execute tools read Running / Declined / Ran with the command; a declined command is not 'Ran'", () => {
    const f = createEventFactory();
    const map = createTimelineMapper(lookOf);
    const s = fold([
      f.make("tool_call_update", { toolCallId: "a", title: "ls", kind: "execute", status: "in_progress", rawInput: { command: ["ls", "-la"] } }, { target: "fake" }),
      f.make("tool_call_update", { toolCallId: "b", title: "rm -rf /", kind: "execute", status: "declined" }, { target: "fake" }),
      f.make("tool_call_update", { toolCallId: "c", title: "echo hi", kind: "execute", status: "completed", content: [{ type: "text", text: "hi\n" }] }, { target: "fake" }),
      f.make("tool_call_update", { toolCallId: "d", title: "Read a.ts", kind: "read", status: "weird" }, { target: "fake" }),
    ]);
    const items = map(s, brand.target("fake"), []).items;
    expect(items.map((i) => (i.kind === "tool" ? [i.title, i.status] : null))).toEqual([
      ["Running", "in_progress"],
      ["Declined", "declined"],
      ["Ran", "completed"],
      ["Read a.ts", "weird"],
    ]);
    expect(items[0]).toMatchObject({ content: [{ type: "command", command: "ls -la" }] });
    expect(items[2]).toMatchObject({ content: [{ type: "command", command: "echo hi" }, { type: "output", text: "hi" }] });
  });

  test("a tool row Baton repaired reads Interrupted, not Running (#11.15)", () => {
    const f = createEventFactory();
    const map = createTimelineMapper(lookOf);
    const s = fold([
      f.make("tool_call_update", { toolCallId: "a", title: "sleep 30", kind: "execute", status: "in_progress" }, { turn: "t_1", target: "fake" }),
      f.make("tool_call_update", { toolCallId: "a", status: "interrupted" }, { turn: "t_1", source: "baton" }),
    ]);
    expect(map(s, brand.target("fake"), []).items.map((i) => (i.kind === "tool" ? [i.title, i.status] : null))).toEqual([["Interrupted", "interrupted"]]);
  });

  test("only a turn's latest stall notice shows; output that resumes withdraws it", () => {
    const f = createEventFactory();
    const map = createTimelineMapper(lookOf);
    const titles = (state: ProjectionState) => map(state, brand.target("fake"), []).items.map((i) => (i.kind === "notice" ? i.title : i.kind));
    const l1 = fold([
      f.make("state_update", { state: "running" }, { turn: "t_1", target: "fake", source: "baton" }),
      f.make("_baton_stall_notice", { silentMs: 90_000, level: "L1" }, { turn: "t_1", target: "fake" }),
    ]);
    expect(titles(l1)).toEqual(["No output for 90s"]);
    const l2 = fold([f.make("_baton_stall_notice", { silentMs: 90_000, level: "L2", verdict: "waiting_approval" }, { turn: "t_1", target: "fake" })], l1);
    expect(titles(l2)).toEqual(["No output for 90s; the agent is waiting for an approval"]);
    const cleared = fold([f.make("_baton_stall_cleared", { silentMs: 95_000 }, { turn: "t_1" })], l2);
    expect(titles(cleared)).toEqual([]);
  });

  test("a multi-file patch becomes one diff part per change", () => {
    const patch = "--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/y.ts\n@@ -0,0 +1 @@\n+new\n";
    expect(splitPatch(patch).map((p) => p.path)).toEqual(["x.ts", "y.ts"]);
    const f = createEventFactory();
    const s = fold([
      f.make(
        "tool_call_update",
        {
          toolCallId: "e",
          title: "Edit",
          kind: "edit",
          status: "completed",
          content: [{ type: "diff", changes: [{ operation: "modify", path: "/w/x.ts" }, { operation: "add", path: "/w/y.ts" }], patch }],
        },
        { target: "fake" },
      ),
    ]);
    const [tool] = createTimelineMapper(lookOf)(s, brand.target("fake"), []).items;
    expect(tool).toMatchObject({
      kind: "tool",
      title: "Edit",
      content: [
        { type: "diff", op: "modify", path: "/w/x.ts", patch: expect.stringContaining("+b") },
        { type: "diff", op: "add", path: "/w/y.ts", patch: expect.stringContaining("+new") },
      ],
    });
  });

  test("thoughts split at <!-- --> and take a **Title** first line", () => {
    expect(splitThought("**Reading**\nlooking at a.ts<!-- -->plain part\n<!---->  ")).toEqual([{ title: "Reading", text: "looking at a.ts" }, { text: "plain part" }]);
  });

  test("the target's running plan is pinned and left out of the transcript; it returns when the turn ends", () => {
    const f = createEventFactory();
    const map = createTimelineMapper(lookOf);
    const running = fold([
      f.make("state_update", { state: "running" }, { turn: "t_1", target: "fake", source: "baton" }),
      f.make("plan_update", { planId: "p1", entries: [{ content: "one", status: "completed" }, { content: "two", status: "in_progress" }] }, { turn: "t_1", target: "fake" }),
    ]);
    const pinned = map(running, brand.target("fake"), []);
    expect(pinned.plan).toEqual({ title: "Plan", entries: [{ text: "one", status: "completed" }, { text: "two", status: "in_progress" }] });
    expect(pinned.items.some((i) => i.kind === "plan")).toBe(false);
    expect(map(running, brand.target("other"), []).plan).toBeUndefined();
    const ended = fold([f.make("state_update", { state: "idle", stopReason: "end_turn" }, { turn: "t_1", target: "fake" })], running);
    const after = map(ended, brand.target("fake"), []);
    expect(after.plan).toBeUndefined();
    expect(after.items.some((i) => i.kind === "plan")).toBe(true);
  });

  test("between full passes, chunks re-map only the items they name; the result equals a full pass", () => {
    const f = createEventFactory();
    const events: AnyEvent[] = [f.make("state_update", { state: "running" }, { turn: "t_1", target: "fake", source: "baton" })];
    for (let i = 0; i < 600; i++) {
      events.push(f.make("agent_message", { messageId: `m${i}`, content: [{ type: "text", text: `old ${i}` }] }, { turn: "t_0", target: "fake" }));
      events.push(f.make("tool_call_update", { toolCallId: `c${i}`, title: "ls", kind: "execute", status: "in_progress" }, { turn: "t_1", target: "fake" }));
    }
    events.push(f.make("agent_message_chunk", { messageId: "live", content: { type: "text", text: "a" } }, { turn: "t_1", target: "fake" }));
    let state = fold(events);
    const map = createTimelineMapper(lookOf);
    const before = map(state, brand.target("fake"), []);
    const chunks = [
      f.make("agent_message_chunk", { messageId: "live", content: { type: "text", text: "b" } }, { turn: "t_1", target: "fake" }),
      f.make("tool_call_content_chunk", { toolCallId: "c3", content: { type: "text", text: "out" } }, { turn: "t_1", target: "fake" }),
      f.make("usage_update", { inputTokens: 1 }, { turn: "t_1", target: "fake" }),
    ];
    state = fold(chunks, state);
    const dirty = chunks.map((e) => dirtyRefOf(e.kind, e.payload)).filter((r) => r !== undefined);
    expect(dirty).toEqual([{ type: "message", id: "live" }, { type: "tool_call", id: "c3" }]);
    const patched = map(state, brand.target("fake"), [], dirty);
    expect(patched.items).toEqual(createTimelineMapper(lookOf)(state, brand.target("fake"), []).items);
    expect(patched.items).not.toBe(before.items);
    expect(patched.items.at(-1)).toMatchObject({ kind: "agent", text: "ab", streaming: true });
    expect(patched.items[0]).toBe(before.items[0]);
    expect(patched.items.filter((item, i) => item !== before.items[i])).toHaveLength(2);
  });

  test("local items go where they were added, after the projected entries seen then", () => {
    const f = createEventFactory();
    const map = createTimelineMapper(lookOf);
    const s1 = fold([f.make("_baton_notice", { level: "info", title: "one" })]);
    const local = [{ after: 1, item: { kind: "notice" as const, id: "local-1", tone: "info" as const, title: "status" } }];
    const s2 = fold([f.make("_baton_notice", { level: "warning", title: "two", detail: "d" })], s1);
    expect(map(s2, brand.target("fake"), local).items.map((i) => (i.kind === "notice" ? i.title : i.kind))).toEqual(["one", "status", "two · d"]);
  });
});

describe("interaction cards", () => {
  const item = (draft: unknown) => ({
    interactionId: brand.interaction("ix_1"),
    requester: { type: "harness" as const, harnessTargetId: "fake" },
    draft: draft as never,
    status: "pending" as const,
    resolution: null,
    turnId: brand.turn("t_1"),
    harnessTargetId: brand.target("fake"),
    openedSeq: 1,
    openedAt: "",
    resolvedSeq: null,
  });

  test("a permission card keeps the harness's options; Esc cancels", () => {
    const draft = {
      type: "permission",
      title: "Run rm",
      options: [
        { optionId: "a", name: "Allow once", polarity: "allow", lifetime: "once" },
        { optionId: "s", name: "Allow for this session", polarity: "allow", lifetime: "session" },
        { optionId: "d", name: "Deny", polarity: "reject", lifetime: "once" },
      ],
    };
    const card = mapInteraction(item(draft), lookOf("fake"));
    expect(card).toMatchObject({ kind: "permission", title: "Run rm", options: [{ id: "a", label: "Allow once" }, { id: "s", label: "Allow for this session" }, { id: "d", label: "Deny" }] });
    expect(card.escResponse).toBeUndefined();
    expect(resolutionFor(draft as never, { outcome: "cancelled" })).toEqual({ outcome: "cancelled", reason: "user" });
    expect(resolutionFor(draft as never, { outcome: "selected", optionId: "s" })).toEqual({ outcome: "selected", optionId: "s" });
  });

  test("hook trust: trust / skip, and Esc skips", () => {
    const draft = { type: "hook_trust", harnessName: "Fake", hooks: [{ key: "k", source: "user", sourcePath: "/h", trustStatus: "untrusted", command: "echo hook" }] };
    const card = mapInteraction(item(draft), lookOf("fake"));
    expect(card).toMatchObject({ kind: "permission", title: "Trust 1 Fake hook?", escResponse: { outcome: "selected", optionId: "skip" } });
    expect(resolutionFor(draft as never, { outcome: "selected", optionId: "trust" })).toEqual({ outcome: "trusted" });
    expect(resolutionFor(draft as never, { outcome: "selected", optionId: "skip" })).toEqual({ outcome: "skipped" });
  });

  test("question answers become labels (plus Other text); a single question with a reject option answers it on Esc", () => {
    const draft = {
      type: "question",
      questions: [{ questionId: "q0", header: "Pick", question: "Which?", options: [{ label: "Red" }, { label: "No thanks", role: "reject" }], multiSelect: true }],
    };
    const card = mapInteraction(item(draft), lookOf("fake"));
    expect(card.escResponse).toEqual({ outcome: "answered", answers: { q0: { selected: ["1"] } } });
    expect(resolutionFor(draft as never, { outcome: "answered", answers: { q0: { selected: ["0"], other: "Blue" } } })).toEqual({ outcome: "answered", answers: { q0: ["Red", "Blue"] } });
  });
});

describe("activity, footer, composer", () => {
  const input = (over: Partial<ActivityInput> = {}): ActivityInput => ({
    target: brand.target("fake"),
    lookOf,
    settingsOf: () => ({ model: "big", effort: "high" }),
    contextUsageOf: () => ({ model: "big-2025", contextUsed: 5000, contextSize: 100000 }),
    ...over,
  });

  test("phase title wins, then retrying, then the active tool kind; observed turns are background", () => {
    const f = createEventFactory();
    let s = fold([
      f.make("state_update", { state: "running" }, { turn: "t_1", target: "fake", source: "baton" }),
      f.make("_baton_run_status", { phase: "starting", title: "Starting Fake…" }, { turn: "t_1", target: "fake" }),
    ]);
    expect(mapActivity(selectActivity(s), input())[0]).toMatchObject({ label: "big · high · Starting Fake…", hint: "Esc to interrupt", author: "fake" });
    s = fold([f.make("_baton_run_status", { phase: null }, { turn: "t_1", target: "fake" }), f.make("tool_call_update", { toolCallId: "x", kind: "execute", status: "in_progress" }, { turn: "t_1", target: "fake" })], s);
    expect(mapActivity(selectActivity(s), input())[0]?.label).toBe("big · high · running command…");
    s = fold([f.make("state_update", { state: "running" }, { turn: "t_2", target: "other" })], s);
    const rows = mapActivity(selectActivity(s), input({ settingsOf: () => ({}) }));
    expect(rows[1]).toMatchObject({ label: "big-2025 · thinking… · background", author: "other" });
    expect(rows[1]).not.toHaveProperty("hint");
  });

  test("answer text streaming reads 'responding…', not 'thinking…'; thoughts and a tool call take it back (#11.15)", () => {
    const f = createEventFactory();
    const on = { turn: "t_1", target: "fake" } as const;
    const label = (s: ReturnType<typeof fold>): string | undefined => mapActivity(selectActivity(s), input())[0]?.label;
    let s = fold([f.make("state_update", { state: "running" }, { ...on, source: "baton" })]);
    expect(label(s)).toBe("big · high · thinking…");
    s = fold([f.make("agent_thought_chunk", { messageId: "th", content: { type: "text", text: "hmm" } }, on)], s);
    expect(label(s)).toBe("big · high · thinking…");
    s = fold([f.make("agent_message_chunk", { messageId: "m1", content: { type: "text", text: "Here" } }, on)], s);
    expect(label(s)).toBe("big · high · responding…");
    s = fold([f.make("tool_call_update", { toolCallId: "x", kind: "execute", status: "in_progress" }, on)], s);
    expect(label(s)).toBe("big · high · running command…");
    s = fold([f.make("tool_call_update", { toolCallId: "x", status: "completed" }, on)], s);
    expect(label(s)).toBe("big · high · thinking…");
    s = fold([f.make("agent_message_chunk", { messageId: "m2", content: { type: "text", text: "Done" } }, on)], s);
    expect(label(s)).toBe("big · high · responding…");
    s = fold([f.make("agent_message", { messageId: "m2", content: [{ type: "text", text: "Done." }] }, on)], s);
    expect(label(s)).toBe("big · high · thinking…");
  });

  test("idle reads '<model> · idle'; the info row joins plan mode and context use", () => {
    const rows = mapActivity(selectActivity(initialState("bs")), input({ settingsOf: () => ({ model: "big", mode: "plan" }) }));
    expect(rows).toEqual([
      { id: "idle", author: "fake", authorKey: "fake", label: "big · idle" },
      { id: "info", label: "plan mode · context 5000/100k (5%)" },
    ]);
  });

  test("the footer always keeps queue and cwd, shortening the target, cwd and session id to fit", () => {
    const footer = selectFooter(initialState("bs"));
    const base = { sessionId: "bs_01M8NM8YJJ4Y6KPW9G77TN7FBY", footer, queue: 2, author: "fake", cwd: "/home/me/src/projects/some/deep/place", home: "/home/me" };
    expect(footerTexts({ ...base, width: 200 })).toEqual({
      left: "session: bs_01M8NM8YJJ4Y6KPW9G77TN7FBY  in:0 out:0  turns:0  queue:2",
      right: "fake · cwd:~/src/projects/some/deep/place",
    });
    const narrow = footerTexts({ ...base, width: 80 });
    expect(narrow.left.length + narrow.right.length).toBeLessThanOrEqual(76);
    expect(narrow.left).toContain("queue:2");
    expect(narrow.right).toStartWith("cwd:");
  });

  test("beside the Board (88 of 130 columns) the footer still fits: the session id goes first, then the tokens; queue and cwd stay", () => {
    const footer = selectFooter(initialState("bs"));
    const base = { sessionId: "bs_01M8NM8YJJ4Y6KPW9G77TN7FBY", footer, queue: 0, suggestions: 1, board: 1, author: "codex", cwd: "/tmp/baton-codex-W23xSp/work" };
    const beside = footerTexts({ ...base, width: 88 });
    expect(beside.left.length + beside.right.length).toBeLessThanOrEqual(84);
    expect(beside).toEqual({ left: "in:0 out:0  turns:0  queue:0  1 suggestion  board:1", right: "cwd:…/work" });
    const tight = footerTexts({ ...base, width: 64 });
    expect(tight).toEqual({ left: "turns:0  queue:0  1 suggestion  board:1", right: "cwd:…/work" });
  });

  test("placeholder tail: recall queued > sends or queues > newline", () => {
    expect(placeholderFor("Fake", false, 0)).toBe("Message Fake (/ commands, @ mentions, Shift+Tab mode, Ctrl+J newline)");
    expect(placeholderFor("Fake", true, 0)).toEndWith("Enter sends or queues)");
    expect(placeholderFor("Fake", true, 1)).toEndWith("↑ recall queued)");
  });
});

describe("stream throttle (TUI-12)", () => {
  test("chunks publish at most every 100 ms; any other event publishes at the end of its task and flushes", () => {
    const clock = new ManualClock();
    let published = 0;
    const deferred: (() => void)[] = [];
    const endOfTask = (): void => deferred.splice(0).forEach((fn) => fn());
    const throttle = new PublishThrottle(() => published++, clock, undefined, (fn) => deferred.push(fn));
    throttle.onEvent("agent_message_chunk");
    expect(published).toBe(1);
    for (let i = 0; i < 5; i++) throttle.onEvent("agent_message_chunk");
    expect(published).toBe(1);
    clock.advance(99);
    expect(published).toBe(1);
    clock.advance(1);
    expect(published).toBe(2);
    throttle.onEvent("usage_update");
    expect(published).toBe(2);
    // A burst of other events (and chunks among them) in one task: one publication, at the task's end.
    throttle.onEvent("tool_call_update");
    throttle.onEvent("agent_message_chunk");
    throttle.onEvent("state_update");
    expect(published).toBe(2);
    endOfTask();
    expect(published).toBe(3);
    clock.advance(500);
    expect(published).toBe(3);
    // A publication the host made itself takes a pending one along.
    throttle.onEvent("state_update");
    throttle.published();
    endOfTask();
    expect(published).toBe(3);
    throttle.onEvent("state_update");
    throttle.dispose();
    endOfTask();
    throttle.onEvent("state_update");
    endOfTask();
    expect(published).toBe(3);
  });
});

describe("toasts", () => {
  test("a toast lasts its time; one about a turn goes as soon as that turn ends (#11.15)", () => {
    const clock = new ManualClock();
    let changes = 0;
    const toasts = new Toasts(clock, () => changes++);
    toasts.show("steering fake — applies at the next safe point", "info", undefined, "t_1");
    toasts.turnEnded("t_2");
    expect(toasts.current?.text).toBe("steering fake — applies at the next safe point");
    toasts.turnEnded("t_1");
    expect(toasts.current).toBeUndefined();
    expect(clock.pendingTimers()).toBe(0);
    toasts.show("Talking to Fake fake");
    toasts.turnEnded("t_1");
    expect(toasts.current?.text).toBe("Talking to Fake fake");
    clock.advance(2999);
    expect(toasts.current).toBeDefined();
    clock.advance(1);
    expect(toasts.current).toBeUndefined();
    expect(changes).toBe(4);
  });
});

describe("targets and title", () => {
  test("/<id|alias|prefix> [message] resolves through the registry; paths are not targets", () => {
    expect(matchSlashTarget(registry, "/oth hi there")).toEqual({ kind: "target", targetId: brand.target("other"), message: "hi there" });
    expect(matchSlashTarget(registry, "/fx")).toEqual({ kind: "target", targetId: brand.target("fake"), message: "" });
    expect(matchSlashTarget(registry, "/tmp/x")).toEqual({ kind: "none" });
    expect(matchSlashTarget(new TargetDirectory(new HarnessRegistry([fakeDefinition({ turns: [] }, "fake"), fakeDefinition({ turns: [] }, "fable")])), "/fa")).toEqual({
      kind: "ambiguous",
      token: "fa",
      matches: ["fable", "fake"],
    });
  });

  test("the title is sanitized and written as OSC 1 and OSC 2", () => {
    expect(sanitizeTitle("fix\u001b[31m the\ttests\u0007\n")).toBe("fix the tests");
    expect(sanitizeTitle("\u001b]0;pwned\u0007real title")).toBe("real title");
    expect(titleSequence("a\u0007b")).toBe("\u001b]1;a b\u001b\\\u001b]2;a b\u001b\\");
    expect(sanitizeTitle("x".repeat(300))).toHaveLength(100);
  });
});
