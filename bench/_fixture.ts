/**
 * The realistic session the benches share: 500 events per turn, ~1 KB each with `raw` kept, ~92 %
 * agent_message_chunk/agent_thought_chunk, the rest tool_call_update (200–2,000 char outputs),
 * plan_update, usage_update, _baton_turn_summary and state_update. Deterministic (a fixed seed).
 */
import type { EventDraft } from "../src/event/envelope.ts";
import type { TurnId } from "../src/shared/ids.ts";

export const EVENTS_PER_TURN = 500;

let seed = 42;
export function reseed(value = 42): void {
  seed = value;
}
function random(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
export function between(min: number, max: number): number {
  return Math.floor(min + random() * (max - min + 1));
}
export const WORDS = "the of and to in is that for it as with was on be by this are from or an at which have not function const return value error file test build import export type state event ledger turn".split(" ");
export function prose(chars: number): string {
  let out = "";
  while (out.length < chars) out += `${WORDS[between(0, WORDS.length - 1)]} `;
  return out.slice(0, chars);
}

const harness = { source: { type: "harness", harnessTargetId: "codex" }, harness: "codex", harnessTargetId: "codex", harnessSessionId: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b" } as const;

export function turnIdOf(turn: number): TurnId {
  return `t_01KBENCHTURN${String(turn).padStart(14, "0")}` as TurnId;
}

export function chunkDraft(turn: number, turnId: TurnId, thought: boolean, item: number): EventDraft {
  const text = prose(between(100, 300));
  const messageId = `${thought ? "rs" : "msg"}_${turn}_${item}`;
  return {
    kind: thought ? "agent_thought_chunk" : "agent_message_chunk",
    ...harness,
    turnId,
    payload: { messageId, content: { type: "text", text } },
    raw: {
      jsonrpc: "2.0",
      method: thought ? "item/reasoning/summaryTextDelta" : "item/agentMessage/delta",
      params: { threadId: harness.harnessSessionId, turnId: `turn-${turn}`, itemId: messageId, delta: text },
    },
  };
}

export function* turnDrafts(turn: number): Generator<EventDraft> {
  const turnId = turnIdOf(turn);
  const startedAt = new Date().toISOString();
  yield { kind: "user_message", source: { type: "user" }, turnId, payload: { messageId: `m_user_${turn}`, content: [{ type: "text", text: prose(300) }], delivery: "prompt" } };
  yield { kind: "state_update", source: { type: "baton" }, turnId, payload: { state: "running" } };
  const toolCalls: Array<{ toolCallId: string; title: string; kind: string; status: string }> = [];
  // 460 chunks in 8 messages (alternating thought / answer), 16 tool calls (start + completion),
  // 2 plan updates, 2 usage updates: 1 + 1 + 460 + 32 + 2 + 2 + 1 + 1 = 500 events.
  let tool = 0;
  for (let block = 0; block < 8; block++) {
    const thought = block % 2 === 0;
    const chunks = block < 4 ? 58 : 57;
    for (let c = 0; c < chunks; c++) yield chunkDraft(turn, turnId, thought, block);
    for (let t = 0; t < 2; t++, tool++) {
      const toolCallId = `call_${turn}_${tool}`;
      const title = `Run ${WORDS[tool % WORDS.length]} check`;
      yield { kind: "tool_call_update", ...harness, turnId, payload: { toolCallId, title, kind: "execute", status: "in_progress", rawInput: { command: ["bash", "-lc", `npm test -- ${tool}`] } }, raw: { method: "item/started", params: { itemId: toolCallId } } };
      const output = prose(between(200, 2000));
      yield { kind: "tool_call_update", ...harness, turnId, payload: { toolCallId, status: "completed", content: [{ type: "text", text: output }], rawOutput: { exitCode: 0 } }, raw: { method: "item/completed", params: { itemId: toolCallId, aggregatedOutput: output } } };
      toolCalls.push({ toolCallId, title, kind: "execute", status: "completed" });
    }
    if (block === 1 || block === 5) {
      yield { kind: "plan_update", ...harness, turnId, payload: { planId: `pl_${turn}`, entries: [{ content: "Read the code", priority: "high", status: "completed" }, { content: "Fix the bug", priority: "high", status: block === 5 ? "completed" : "in_progress" }, { content: "Run the tests", priority: "medium", status: "pending" }] } };
    }
    if (block === 3 || block === 7) {
      yield { kind: "usage_update", ...harness, turnId, payload: { inputTokens: between(1000, 30000), outputTokens: between(100, 4000), cacheReadTokens: between(0, 20000) } };
    }
  }
  yield { kind: "state_update", ...harness, turnId, payload: { state: "idle", stopReason: "end_turn" } };
  yield { kind: "_baton_turn_summary", source: { type: "baton" }, turnId, payload: { turnId, role: "driven", stopReason: "end_turn", userText: prose(300), agentText: prose(2000), toolCalls, usage: { inputTokens: 30000, outputTokens: 4000 }, startedAt, endedAt: new Date().toISOString() } };
}
