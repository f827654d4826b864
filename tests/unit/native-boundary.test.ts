/** NAT-05 history boundary and the NAT-07 reconcile rules, as tables. */
import type { StopReason } from "../../src/event/stop-reasons.ts";
import { describe, expect, test } from "bun:test";
import { boundaryHolds, canonicalValue, historyBoundary, parseHistoryBoundary, turnDigest } from "../../src/harness/history-boundary.ts";
import type { NativeEvent, NativeTurn } from "../../src/harness/inspector.ts";
import { reconcileNative, type BatonTurnView } from "../../src/adopt/reconcile.ts";

function turn(prompt: string, answer: string, extra: { id?: string; tool?: string; stopReason?: StopReason } = {}): NativeTurn {
  const events: NativeEvent[] = [{ kind: "agent_message", payload: { messageId: `msg-${prompt}`, content: [{ type: "text", text: answer }] } }];
  if (extra.tool !== undefined) {
    events.push({ kind: "tool_call_update", payload: { toolCallId: `call-${prompt}`, title: "ls", kind: "execute", status: "completed", content: [{ type: "text", text: extra.tool }] } });
  }
  return { nativeTurnId: extra.id ?? `nt-${prompt}`, prompt: [{ type: "text", text: prompt }], events, stopReason: extra.stopReason ?? "end_turn", startedAt: "2026-01-01T00:00:00.000Z" };
}

describe("history boundary", () => {
  test("ids, ts and *At keys do not count; content, order and the terminal do", () => {
    const base = turn("q", "a", { tool: "out" });
    const reminted: NativeTurn = {
      ...base,
      nativeTurnId: "other",
      startedAt: "2030-01-01T00:00:00.000Z",
      events: base.events.map((event) => (event.kind === "agent_message" ? { ...event, payload: { ...event.payload, messageId: "m_new" } } : event)),
    };
    expect(turnDigest(reminted)).toBe(turnDigest(base));
    expect(turnDigest({ ...base, stopReason: "cancelled" })).not.toBe(turnDigest(base));
    expect(turnDigest(turn("q", "a", { tool: "different output" }))).not.toBe(turnDigest(base));
    expect(turnDigest({ ...base, events: [...base.events].reverse() })).not.toBe(turnDigest(base));
  });

  test("text is normalized (CRLF, surrounding space, NFC); other strings are kept verbatim", () => {
    expect(turnDigest(turn("q", "line one\r\nline two  "))).toBe(turnDigest(turn("q", "line one\nline two")));
    expect(turnDigest(turn("caf\u0065\u0301", "x"))).toBe(turnDigest(turn("caf\u00e9", "x")));
    expect(canonicalValue({ b: 1, a: { zId: 1, ts: 2, doneAt: 3, keep: " x " } })).toEqual({ a: { keep: " x " }, b: 1 });
  });

  test("rewriting an early tool result changes the prefix digest of every later boundary", () => {
    const turns = [turn("one", "a", { tool: "first output" }), turn("two", "b"), turn("three", "c")];
    const rewritten = [turn("one", "a", { tool: "rewritten output" }), ...turns.slice(1)];
    for (const count of [1, 2, 3]) expect(historyBoundary(rewritten, count).prefixDigest).not.toBe(historyBoundary(turns, count).prefixDigest);
    expect(historyBoundary(turns)).toMatchObject({ version: 1, turnCount: 3, turnId: "nt-three" });
    expect(boundaryHolds([...turns, turn("four", "d")], historyBoundary(turns))).toBe(true);
    expect(boundaryHolds(rewritten, historyBoundary(turns))).toBe(false);
    expect(boundaryHolds(turns.slice(0, 2), historyBoundary(turns))).toBe(false);
  });

  test("stored boundaries are parsed strictly", () => {
    const good = historyBoundary([turn("q", "a")]);
    expect(parseHistoryBoundary({ ...good, batonThroughSeq: 9 })).toEqual(good);
    expect(parseHistoryBoundary({ ...good, version: 2 })).toBeUndefined();
    expect(parseHistoryBoundary({ ...good, prefixDigest: "zz" })).toBeUndefined();
    expect(parseHistoryBoundary({ ...good, turnCount: -1 })).toBeUndefined();
    expect(parseHistoryBoundary(null)).toBeUndefined();
  });
});

const view = (userText: string, extra: Partial<BatonTurnView> = {}): BatonTurnView => ({ turnId: `t_${userText}`, userText, hasOutput: true, stopReason: "end_turn", ...extra });

describe("reconcileNative", () => {
  const native = [turn("one", "a"), turn("two", "b"), turn("three", "c"), turn("four", "d")];
  const imported2 = historyBoundary(native, 2);

  test.each([
    ["first import (no boundary, no Baton turns)", undefined, [], { kind: "append", from: 0 }],
    ["only new native turns", imported2, [], { kind: "append", from: 2 }],
    ["Baton ran 'three' on the native session since", imported2, [view("three")], { kind: "append", from: 3 }],
    ["Baton ran both remaining turns", imported2, [view("three"), view("four")], { kind: "append", from: 4 }],
    ["a failed Baton turn that never reached the harness is skipped", imported2, [view("lost", { hasOutput: false, stopReason: "failed" }), view("three")], { kind: "append", from: 3 }],
    ["prompts compare by visible text (whitespace, injected context)", imported2, [view("<baton-sync>\nold history\n</baton-sync>\n three ")], { kind: "append", from: 3 }],
    ["legacy owner: Baton's own turns from the start", undefined, [view("one"), view("two")], { kind: "append", from: 2 }],
    ["a steer the harness recorded as its own prompt belongs to Baton's turn", imported2, [view("three", { steers: ["four"] })], { kind: "append", from: 4 }],
    ["a steer the harness kept inside the turn is not looked for", imported2, [view("three", { steers: ["not a native turn"] })], { kind: "append", from: 3 }],
  ] as const)("%s", (_name, boundary, since, expected) => {
    expect(reconcileNative(native, boundary, since)).toEqual(expected);
  });

  test("a rewritten imported turn is diverged", () => {
    const rewritten = [turn("one", "a (edited)"), ...native.slice(1)];
    expect(reconcileNative(rewritten, imported2, [])).toMatchObject({ kind: "diverged", reason: expect.stringContaining("no longer what Baton imported") });
  });

  test("a native history shorter than what was imported is diverged", () => {
    expect(reconcileNative(native.slice(0, 1), imported2, [])).toMatchObject({ kind: "diverged", reason: expect.stringContaining("now has 1 turns") });
  });

  test("a Baton turn with another prompt than the native turn at its place is diverged", () => {
    expect(reconcileNative(native, imported2, [view("something else")])).toMatchObject({ kind: "diverged", reason: expect.stringContaining("turn 3 differs") });
  });

  test("Baton having more turns than the native session is refused", () => {
    expect(reconcileNative(native.slice(0, 2), imported2, [view("three")])).toMatchObject({ kind: "ahead" });
  });
});
