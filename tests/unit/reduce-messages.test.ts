/** Messages and tool calls: patch semantics (EV-05), chunk healing, and structural sharing. */
import { describe, expect, test } from "bun:test";
import { initialState, listToArray, reduce, replay, tableGet } from "../../src/projection/index.ts";
import { createEventFactory, textBlock } from "../support/events.ts";
import { brand } from "../support/ids.ts";

describe("messages", () => {
  test("a chunk after the message completed is a stale re-delivery and is ignored", () => {
    const f = createEventFactory();
    const state = replay([
      f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("Hel") }, { target: "codex" }),
      f.make("agent_message", { messageId: "m_a", content: [textBlock("Hello")] }, { target: "codex" }),
    ]);
    const late = f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("lo") }, { target: "codex" });
    expect(reduce(state, late)).toBe(state);
  });

  test("reordered chunks are healed by the completed item", () => {
    const f = createEventFactory();
    const state = replay([
      f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("world") }, { target: "codex" }),
      f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("Hello ") }, { target: "codex" }),
      f.make("agent_message", { messageId: "m_a", content: [textBlock("Hello world")] }, { target: "codex" }),
    ]);
    expect(tableGet(state.messages, "m_a")?.content).toEqual([textBlock("Hello world")]);
  });

  test("a long stream stays one text block", () => {
    const f = createEventFactory();
    const events = Array.from({ length: 2000 }, () =>
      f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("ab") }, { target: "codex" }),
    );
    const content = tableGet(replay(events).messages, "m_a")?.content;
    expect(content).toHaveLength(1);
    expect(content?.[0]).toEqual(textBlock("ab".repeat(2000)));
  });

  test("non-text blocks interrupt text merging", () => {
    const f = createEventFactory();
    const image = { type: "image", mimeType: "image/png", data: "AAAA" };
    const state = replay([
      f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("a") }),
      f.make("agent_message_chunk", { messageId: "m_a", content: image }),
      f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("b") }),
      f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("c") }),
    ]);
    expect(tableGet(state.messages, "m_a")?.content).toEqual([textBlock("a"), image, textBlock("bc")]);
  });

  test("an empty text chunk on an existing message changes nothing", () => {
    const f = createEventFactory();
    const state = replay([f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("a") })]);
    expect(reduce(state, f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("") }))).toBe(state);
  });

  test("a re-delivered full message changes nothing", () => {
    const f = createEventFactory();
    const full = f.make("agent_message", { messageId: "m_a", content: [textBlock("done")] }, { turn: "t_1" });
    const state = replay([full]);
    expect(reduce(state, f.redeliver(full))).toBe(state);
  });

  test("user_message: omitted content keeps, [] clears, delivery recorded", () => {
    const f = createEventFactory();
    const s1 = replay([f.make("user_message", { messageId: "m_u", content: [textBlock("hi")], delivery: "steer" }, { turn: "t_1" })]);
    expect(tableGet(s1.messages, "m_u")).toMatchObject({ delivery: "steer", content: [textBlock("hi")] });
    const s2 = reduce(s1, f.make("user_message", { messageId: "m_u" }, { turn: "t_1" }));
    expect(s2).toBe(s1);
    const s3 = reduce(s2, f.make("user_message", { messageId: "m_u", content: [] }, { turn: "t_1" }));
    expect(tableGet(s3.messages, "m_u")?.content).toEqual([]);
    expect(tableGet(s3.messages, "m_u")?.delivery).toBe("steer");
  });

  test("user content is stored as given, <baton-context> included (stripping is for display)", () => {
    const f = createEventFactory();
    const content = [textBlock("<baton-context>ctx</baton-context>\n\nreal question")];
    const state = replay([f.make("user_message", { messageId: "m_u", content }, { turn: "t_1", source: "user" })]);
    expect(tableGet(state.messages, "m_u")?.content).toEqual(content);
  });

  test("each message appears once on the timeline, in first-seen order", () => {
    const f = createEventFactory();
    const state = replay([
      f.make("user_message", { messageId: "m_u", content: [textBlock("q")] }, { turn: "t_1" }),
      f.make("agent_thought_chunk", { messageId: "m_t", content: textBlock("…") }, { turn: "t_1" }),
      f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("a") }, { turn: "t_1" }),
      f.make("agent_thought", { messageId: "m_t", content: [textBlock("thought")] }, { turn: "t_1" }),
      f.make("agent_message", { messageId: "m_a", content: [textBlock("answer")] }, { turn: "t_1" }),
    ]);
    expect(listToArray(state.timeline).map((item) => item.id)).toEqual(["m_u", "m_t", "m_a"]);
  });
});

describe("tool calls", () => {
  test("first sight defaults: status pending, empty content", () => {
    const f = createEventFactory();
    const state = replay([f.make("tool_call_update", { toolCallId: "call_1", title: "Read a.ts", kind: "read" }, { turn: "t_1", target: "claude" })]);
    expect(tableGet(state.toolCalls, "call_1")).toEqual({
      toolCallId: "call_1",
      title: "Read a.ts",
      kind: "read",
      status: "pending",
      content: [],
      locations: [],
      rawInput: null,
      rawOutput: null,
      turnId: brand.turn("t_1"),
      harnessTargetId: brand.target("claude"),
      firstSeq: 1,
    });
  });

  test("content/locations null clear to [], rawInput null clears, unknown open strings are kept", () => {
    const f = createEventFactory();
    const state = replay([
      f.make("tool_call_update", { toolCallId: "c", content: [textBlock("x")], locations: [{ path: "/a" }], rawInput: { cmd: "ls" } }),
      f.make("tool_call_update", { toolCallId: "c", content: null, locations: null, rawInput: null, kind: "teleport", status: "levitating" }),
    ]);
    expect(tableGet(state.toolCalls, "c")).toMatchObject({ content: [], locations: [], rawInput: null, kind: "teleport", status: "levitating" });
  });

  test("an update equal to the current value returns the same state", () => {
    const f = createEventFactory();
    const update = f.make("tool_call_update", { toolCallId: "c", title: "ls", status: "completed", content: [textBlock("out")] }, { turn: "t_1" });
    const state = replay([update]);
    expect(reduce(state, f.redeliver(update))).toBe(state);
    expect(reduce(state, f.make("tool_call_update", { toolCallId: "c", status: null }))).toBe(state);
  });

  test("declined is kept as declined, never completed", () => {
    const f = createEventFactory();
    const state = replay([
      f.make("tool_call_update", { toolCallId: "c", kind: "execute", status: "pending" }),
      f.make("tool_call_update", { toolCallId: "c", status: "declined" }),
    ]);
    expect(tableGet(state.toolCalls, "c")?.status).toBe("declined");
  });

  test("content chunks create the call if needed and stop at a terminal status", () => {
    const f = createEventFactory();
    const s1 = replay([
      f.make("tool_call_content_chunk", { toolCallId: "c", content: textBlock("1") }, { turn: "t_1" }),
      f.make("tool_call_content_chunk", { toolCallId: "c", content: textBlock("2") }, { turn: "t_1" }),
    ]);
    expect(tableGet(s1.toolCalls, "c")).toMatchObject({ status: "pending", content: [textBlock("12")], turnId: "t_1" });
    const s2 = reduce(s1, f.make("tool_call_update", { toolCallId: "c", status: "completed", content: [textBlock("12\n")] }));
    expect(reduce(s2, f.make("tool_call_content_chunk", { toolCallId: "c", content: textBlock("late") }))).toBe(s2);
  });
});

describe("structural sharing", () => {
  test("a chunk to one message leaves other messages, tool calls and the timeline identical", () => {
    const f = createEventFactory();
    const before = replay([
      f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("a") }, { turn: "t_1" }),
      f.make("agent_message_chunk", { messageId: "m_b", content: textBlock("b") }, { turn: "t_1" }),
      f.make("tool_call_update", { toolCallId: "c", title: "ls" }, { turn: "t_1" }),
    ]);
    const after = reduce(before, f.make("agent_message_chunk", { messageId: "m_a", content: textBlock("+") }, { turn: "t_1" }));
    expect(after).not.toBe(before);
    expect(tableGet(after.messages, "m_a")?.content).toEqual([textBlock("a+")]);
    expect(tableGet(after.messages, "m_b")).toBe(tableGet(before.messages, "m_b")!);
    expect(after.toolCalls).toBe(before.toolCalls);
    expect(after.timeline).toBe(before.timeline);
    expect(after.turnData).toBe(before.turnData);
    expect(after.activeTurns).toBe(before.activeTurns);
    expect(after.usage).toBe(before.usage);
  });

  test("a new message leaves existing message objects and full timeline pages identical", () => {
    const f = createEventFactory();
    const events = Array.from({ length: 600 }, (_, i) => f.make("agent_message", { messageId: `m_${i}`, content: [textBlock(String(i))] }));
    const before = replay(events, initialState());
    const after = reduce(before, f.make("agent_message", { messageId: "m_new", content: [textBlock("n")] }));
    expect(after.timeline.pages[0]).toBe(before.timeline.pages[0]!);
    expect(after.timeline.pages[1]).toBe(before.timeline.pages[1]!);
    for (let i = 0; i < 600; i += 37) expect(tableGet(after.messages, `m_${i}`)).toBe(tableGet(before.messages, `m_${i}`)!);
  });
});
