/** buildTurnSummary (EV-09) from in-memory per-turn data, and display text stripping (CTX-04). */
import { describe, expect, test } from "bun:test";
import { allSummaries, buildTurnSummary, displayUserText, reduce, replay, stripInjectedContext, summaryTexts, tableGet } from "../../src/projection/index.ts";
import { assembleCatchUp } from "../../src/context/catch-up.ts";
import { createEventFactory, textBlock, type EventFactory } from "../support/events.ts";
import { brand } from "../support/ids.ts";

function turnLedger(f: EventFactory) {
  return [
    f.make(
      "user_message",
      {
        messageId: "m_u",
        content: [textBlock("<baton-context>\nbackground only\n</baton-context>\n\nFix the bug"), { type: "image", mimeType: "image/png", data: "A" }],
        delivery: "prompt",
      },
      { turn: "t_1", source: "user" },
    ),
    f.make("state_update", { state: "running" }, { turn: "t_1", target: "codex", source: "baton" }),
    f.make("agent_thought", { messageId: "m_th", content: [textBlock("private reasoning")] }, { turn: "t_1", target: "codex" }),
    f.make("agent_message_chunk", { messageId: "m_a1", content: textBlock("Looking") }, { turn: "t_1", target: "codex" }),
    f.make("agent_message", { messageId: "m_a1", content: [textBlock("Looking at it.")] }, { turn: "t_1", target: "codex" }),
    f.make("tool_call_update", { toolCallId: "call_1", title: "npm test", kind: "execute", status: "in_progress" }, { turn: "t_1", target: "codex" }),
    f.make("user_message", { messageId: "m_s", content: [textBlock("also add a test")], delivery: "steer" }, { turn: "t_1", source: "user" }),
    f.make("tool_call_update", { toolCallId: "call_1", status: "completed" }, { turn: "t_1", target: "codex" }),
    f.make("tool_call_update", { toolCallId: "call_2" }, { turn: "t_1", target: "codex" }),
    f.make("usage_update", { inputTokens: 120, outputTokens: 30, reasoningTokens: 5 }, { turn: "t_1", target: "codex" }),
    f.make("agent_message", { messageId: "m_a2", content: [textBlock("Fixed.")] }, { turn: "t_1", target: "codex" }),
    f.make("state_update", { state: "idle", stopReason: "end_turn" }, { turn: "t_1", target: "codex" }),
  ];
}

describe("buildTurnSummary", () => {
  test("builds the summary payload from per-turn data, without the ledger; texts (steers too, #11.14) are named by messageId, not copied", () => {
    const f = createEventFactory();
    const state = replay(turnLedger(f));
    const summary = buildTurnSummary(state, brand.turn("t_1"), undefined, "2025-01-01T12:01:00.000Z");
    expect(summary).toEqual({
      turnId: brand.turn("t_1"),
      role: "driven",
      stopReason: "end_turn",
      userMessageId: brand.message("m_u"),
      steerMessageIds: [brand.message("m_s")],
      agentMessageIds: [brand.message("m_a1"), brand.message("m_a2")],
      toolCalls: [
        { toolCallId: "call_1", title: "npm test", kind: "execute", status: "completed" },
        { toolCallId: "call_2", title: "", kind: "other", status: "pending" },
      ],
      usage: { inputTokens: 120, outputTokens: 30, reasoningTokens: 5 },
      startedAt: "2025-01-01T12:00:01.000Z",
      endedAt: "2025-01-01T12:01:00.000Z",
    });
    // the prompt as typed (injected context stripped) and the agent's text, resolved from the messages
    expect(summaryTexts(state, summary)).toEqual({ userText: "Fix the bug", steers: ["also add a test"], agentText: "Looking at it.\n\nFixed." });
  });

  test("a wave-1 summary that copied its texts is read as it was written", () => {
    const f = createEventFactory();
    const state = replay(turnLedger(f));
    expect(summaryTexts(state, { turnId: brand.turn("t_1"), userText: "as stored", agentText: "said then", toolCalls: [] })).toEqual({ userText: "as stored", steers: [], agentText: "said then" });
  });

  test("an explicit stopReason wins; usage is omitted when in/out are zero", () => {
    const f = createEventFactory();
    const state = replay([
      f.make("state_update", { state: "running" }, { turn: "t_c", source: "baton", target: "codex" }),
      f.make("usage_update", { cacheReadTokens: 9 }, { turn: "t_c" }),
    ]);
    const summary = buildTurnSummary(state, brand.turn("t_c"), "cancelled", undefined);
    expect(summary).toEqual({ turnId: brand.turn("t_c"), role: "driven", stopReason: "cancelled", toolCalls: [], startedAt: "2025-01-01T12:00:00.000Z" });
  });

  test("an unknown turn gives a minimal summary", () => {
    expect(buildTurnSummary(replay([]), brand.turn("t_x"), "failed", "2025-01-01T00:00:00.000Z")).toEqual({
      turnId: brand.turn("t_x"),
      stopReason: "failed",
      toolCalls: [],
      endedAt: "2025-01-01T00:00:00.000Z",
    });
  });

  test("reducing the built summary lists it once with its target and drops the per-turn data", () => {
    const f = createEventFactory();
    const state = replay(turnLedger(f));
    const payload = buildTurnSummary(state, brand.turn("t_1"), undefined, "2025-01-01T12:01:00.000Z");
    const after = reduce(state, f.make("_baton_turn_summary", payload, { turn: "t_1", source: "baton" }));
    expect(allSummaries(after)).toEqual([{ ...payload, seq: 13, harnessTargetId: brand.target("codex") }]);
    expect(tableGet(after.turnData, "t_1")).toBeUndefined();
  });
});

describe("steers in the summary and the hand-over (#11.14)", () => {
  test("a steer written twice under one message id (ledgers before the fix) is one steer", () => {
    const f = createEventFactory();
    const steer = { messageId: "m_s", content: [textBlock("use tabs")], delivery: "steer" as const };
    const state = replay([
      f.make("user_message", { messageId: "m_u", content: [textBlock("format it")], delivery: "prompt" }, { turn: "t_1", source: "user" }),
      f.make("state_update", { state: "running" }, { turn: "t_1", target: "codex", source: "baton" }),
      f.make("user_message", steer, { turn: "t_1", target: "codex" }),
      f.make("user_message", steer, { turn: "t_1", source: "user" }),
      f.make("user_message", { messageId: "m_s2", content: [textBlock("<baton-context>x</baton-context>\n\nand wrap at 80")], delivery: "steer" }, { turn: "t_1", source: "user" }),
    ]);
    expect(summaryTexts(state, buildTurnSummary(state, brand.turn("t_1"), "end_turn", undefined)).steers).toEqual(["use tabs", "and wrap at 80"]);
  });

  test("the next agent's catch-up shows each steer after the prompt", () => {
    const catchUp = assembleCatchUp({
      summaries: [
        {
          seq: 9,
          targetId: brand.target("codex"),
          label: "codex",
          summary: { turnId: brand.turn("t_1"), stopReason: "end_turn", toolCalls: [] },
          userText: "format it",
          steers: ["use tabs"],
          agentText: "Done.",
        },
      ],
      sinceSeq: 0,
      fresh: true,
      targetId: brand.target("claude"),
      budgetChars: 4096,
    });
    expect(catchUp?.text).toContain("user: format it\nuser (steered in): use tabs\nagent: Done.");
  });
});

describe("display text", () => {
  test("strips the <baton-context> and <baton-sync> blocks in front of the typed text and the blank line after them", () => {
    expect(stripInjectedContext("<baton-sync>\n[codex]\n## Turn 1\n</baton-sync>\n\nhello")).toBe("hello");
    expect(stripInjectedContext("<baton-context>a</baton-context>\n<baton-context>b</baton-context>\n\nq")).toBe("q");
  });

  test("marker-like text the user typed after Baton's blocks stays (#11.13)", () => {
    expect(stripInjectedContext("before\n\n<baton-context>x</baton-context>")).toBe("before\n\n<baton-context>x</baton-context>");
    expect(stripInjectedContext("<baton-context>a</baton-context>\n\nwhy does </baton-sync> end it?")).toBe("why does </baton-sync> end it?");
  });

  test("leaves ordinary text (and unterminated tags) untouched", () => {
    expect(stripInjectedContext("  plain text  ")).toBe("  plain text  ");
    expect(stripInjectedContext("<baton-context>unterminated")).toBe("<baton-context>unterminated");
    expect(stripInjectedContext("<baton-contextual>x</baton-contextual>")).toBe("<baton-contextual>x</baton-contextual>");
  });

  test("displayUserText joins text blocks and ignores others", () => {
    expect(displayUserText([textBlock("<baton-context>c</baton-context>\n\nhi "), { type: "image", mimeType: "image/png" }, textBlock("there")])).toBe(
      "hi there",
    );
  });
});
