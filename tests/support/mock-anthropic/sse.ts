/** Turns a scripted message reply into Anthropic Messages API output: SSE events or one JSON Message. */
import type { MessageReply, ScriptBlock, ScriptUsage } from "./script.ts";

export interface SseEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
  /** Wait this long before sending the event. */
  readonly delayMs: number;
}

const DEFAULT_USAGE = { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

function usageOf(usage: ScriptUsage | undefined): typeof DEFAULT_USAGE {
  return { ...DEFAULT_USAGE, ...usage };
}

function pieces(text: string, size: number | undefined): string[] {
  if (text.length === 0) return [""];
  const step = size ?? Math.max(1, Math.ceil(text.length / 2));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += step) out.push(text.slice(i, i + step));
  return out;
}

function toolId(block: Extract<ScriptBlock, { type: "tool_use" }>, messageId: string, index: number): string {
  return block.id ?? `toolu_${messageId.slice(-10)}${index}`;
}

function stopReasonOf(reply: MessageReply): string {
  if (reply.stopReason !== undefined) return reply.stopReason;
  return reply.blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
}

function finalBlock(block: ScriptBlock, messageId: string, index: number): Record<string, unknown> {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature ?? "mock-signature" };
    case "tool_use":
      return { type: "tool_use", id: toolId(block, messageId, index), name: block.name, input: block.input };
  }
}

export function jsonMessage(reply: MessageReply, messageId: string, model: string): Record<string, unknown> {
  return {
    id: messageId,
    type: "message",
    role: "assistant",
    model,
    content: reply.blocks.map((block, index) => finalBlock(block, messageId, index)),
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    usage: usageOf(reply.usage),
  };
}

export function sseEvents(reply: MessageReply, messageId: string, model: string): SseEvent[] {
  const usage = usageOf(reply.usage);
  const delay = reply.chunkDelayMs ?? 0;
  const events: SseEvent[] = [];
  const push = (event: string, data: Record<string, unknown>, delayMs = 0): void => {
    events.push({ event, data: { type: event, ...data }, delayMs });
  };
  push("message_start", {
    message: {
      id: messageId,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  push("ping", {});
  reply.blocks.forEach((block, index) => {
    switch (block.type) {
      case "text":
        push("content_block_start", { index, content_block: { type: "text", text: "" } });
        for (const piece of pieces(block.text, reply.chunkSize)) {
          push("content_block_delta", { index, delta: { type: "text_delta", text: piece } }, delay);
        }
        break;
      case "thinking":
        push("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
        for (const piece of pieces(block.thinking, reply.chunkSize)) {
          push("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }, delay);
        }
        push("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature ?? "mock-signature" } });
        break;
      case "tool_use": {
        push("content_block_start", {
          index,
          content_block: { type: "tool_use", id: toolId(block, messageId, index), name: block.name, input: {} },
        });
        for (const piece of pieces(JSON.stringify(block.input), undefined)) {
          push("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }, delay);
        }
        break;
      }
    }
    push("content_block_stop", { index });
  });
  push("message_delta", {
    delta: { stop_reason: stopReasonOf(reply), stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  push("message_stop", {});
  return events;
}

export function encodeSse(event: SseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}
