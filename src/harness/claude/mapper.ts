/**
 * SDK messages → adapter drafts (CLA-05). Stateful per session (block kinds per API message, tool calls, the
 * cross-turn task table), but free of I/O: the session decides which turn a message belongs to.
 */
import type {
  SDKAssistantMessage,
  SDKMessage,
  SDKPartialAssistantMessage,
  SDKResultMessage,
  SDKUserMessage,
  SlashCommand,
} from "@anthropic-ai/claude-agent-sdk";
import type { TaskCreateOutput, TaskUpdateInput } from "@anthropic-ai/claude-agent-sdk/sdk-tools";
import type { AdapterDraft } from "../../event/envelope.ts";
import type { ContentBlock } from "../../event/content.ts";
import type { DraftPayloadOf } from "../../event/kinds.ts";
import type { TurnId } from "../../shared/ids.ts";
import { adapterDraft } from "../drafts.ts";
import { rawExcerpt } from "./raw-excerpt.ts";
import { describeTool, diffFromResult, PLAN_TOOL, TASK_TABLE_TOOLS, todoEntries, toolOutputContent } from "./tools.ts";

type SystemMessage = Extract<SDKMessage, { type: "system" }>;
type StreamEvent = SDKPartialAssistantMessage["event"];
type Block = { readonly type: string; readonly [key: string]: unknown };

interface ToolRecord {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

interface TaskEntry {
  content: string;
  status: string;
}

/** The plan id of the cross-turn TaskCreate/TaskUpdate table. */
export const TASK_PLAN_ID = "pl_claude_tasks";

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};

export class ClaudeMapper {
  /** Per API message id: the block type at each index (from stream starts and per-block assistant messages). */
  private readonly blockKinds = new Map<string, string[]>();
  private readonly assistantCount = new Map<string, number>();
  private streamMessageId: string | undefined;
  private readonly tools = new Map<string, ToolRecord>();
  private readonly declined = new Set<string>();
  private readonly proposedPlans = new Set<string>();
  private readonly tasks = new Map<string, TaskEntry>();
  private compacting = false;
  /** The last main-agent API call's context footprint (input + cache + output). */
  private lastContext: number | undefined;

  constructor(private readonly cwd: string) {}

  markDeclined(toolUseId: string): void {
    this.declined.add(toolUseId);
  }

  /** The plan text of an ExitPlanMode call seen in the stream (canUseTool receives an empty input). */
  planOf(toolUseId: string): string | undefined {
    const tool = this.tools.get(toolUseId);
    return tool?.name === "ExitPlanMode" && typeof tool.input["plan"] === "string" ? tool.input["plan"] : undefined;
  }

  messageIdFor(apiId: string, index: number, kind: "text" | "thinking"): string {
    const kinds = this.blockKinds.get(apiId) ?? [];
    const first = kinds.indexOf(kind);
    const isFirst = first === -1 || first === index;
    if (kind === "text") return isFirst ? apiId : `${apiId}_${index}`;
    return isFirst ? `${apiId}_thought` : `${apiId}_thought_${index}`;
  }

  private noteKind(apiId: string, index: number, kind: string): void {
    const kinds = this.blockKinds.get(apiId) ?? [];
    kinds[index] = kind;
    this.blockKinds.set(apiId, kinds);
  }

  stream(message: SDKPartialAssistantMessage, turnId: TurnId): AdapterDraft[] {
    if (message.parent_tool_use_id !== null) return [];
    const event: StreamEvent = message.event;
    switch (event.type) {
      case "message_start": {
        this.streamMessageId = event.message.id;
        const usage = event.message.usage;
        this.lastContext = (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
        return [];
      }
      case "message_delta":
        if (this.lastContext !== undefined) this.lastContext += event.usage.output_tokens ?? 0;
        return [];
      case "content_block_start":
        if (this.streamMessageId !== undefined) this.noteKind(this.streamMessageId, event.index, event.content_block.type);
        return [];
      case "content_block_delta": {
        const apiId = this.streamMessageId;
        if (apiId === undefined) return [];
        if (event.delta.type === "text_delta") {
          const messageId = this.messageIdFor(apiId, event.index, "text");
          return [adapterDraft("agent_message_chunk", { messageId, content: { type: "text", text: event.delta.text } }, { turnId, raw: message })];
        }
        if (event.delta.type === "thinking_delta") {
          const messageId = this.messageIdFor(apiId, event.index, "thinking");
          return [adapterDraft("agent_thought_chunk", { messageId, content: { type: "text", text: event.delta.thinking } }, { turnId, raw: message })];
        }
        return [];
      }
      default:
        return [];
    }
  }

  assistant(message: SDKAssistantMessage, turnId: TurnId): AdapterDraft[] {
    // API errors arrive as a synthetic assistant message and again on the result; the result is what Baton shows.
    if (message.error !== undefined) return [];
    const apiId = message.message.id;
    const main = message.parent_tool_use_id === null;
    const out: AdapterDraft[] = [];
    for (const raw of message.message.content as unknown as Block[]) {
      const index = this.assistantCount.get(apiId) ?? 0;
      this.assistantCount.set(apiId, index + 1);
      this.noteKind(apiId, index, raw.type);
      if (raw.type === "text" && main) {
        const text = typeof raw["text"] === "string" ? raw["text"] : "";
        out.push(adapterDraft("agent_message", { messageId: this.messageIdFor(apiId, index, "text"), content: [{ type: "text", text }] }, { turnId, raw: message }));
      } else if (raw.type === "thinking" && main) {
        const text = typeof raw["thinking"] === "string" ? raw["thinking"] : "";
        out.push(adapterDraft("agent_thought", { messageId: this.messageIdFor(apiId, index, "thinking"), content: [{ type: "text", text }] }, { turnId, raw: message }));
      } else if (raw.type === "tool_use") {
        out.push(...this.toolUse(raw, turnId, message));
      }
    }
    return out;
  }

  private toolUse(block: Block, turnId: TurnId, raw: unknown): AdapterDraft[] {
    const id = typeof block["id"] === "string" ? block["id"] : undefined;
    const name = typeof block["name"] === "string" ? block["name"] : "tool";
    if (id === undefined) return [];
    const input = record(block["input"]);
    this.tools.set(id, { name, input });
    if (name === PLAN_TOOL) {
      return [adapterDraft("plan_update", { planId: `pl_${turnId}`, entries: todoEntries(input) }, { turnId, raw })];
    }
    if (TASK_TABLE_TOOLS.has(name)) return [];
    const out: AdapterDraft[] = [];
    if (name === "ExitPlanMode" && typeof input["plan"] === "string") {
      const planId = `pl_${id}`;
      if (!this.proposedPlans.has(planId)) {
        this.proposedPlans.add(planId);
        out.push(adapterDraft("proposed_plan", { planId, content: input["plan"] }, { turnId, raw }));
      }
    }
    const view = describeTool(name, input, this.cwd);
    const payload: DraftPayloadOf<"tool_call_update"> = { toolCallId: id, title: view.title, kind: view.kind, status: "in_progress", rawInput: input };
    if (view.content) payload.content = view.content;
    if (view.locations) payload.locations = view.locations;
    out.push(adapterDraft("tool_call_update", payload, { turnId, raw }));
    return out;
  }

  user(message: SDKUserMessage, turnId: TurnId): AdapterDraft[] {
    if ((message as { isReplay?: unknown }).isReplay === true) return [];
    const content = message.message.content;
    if (!Array.isArray(content)) return [];
    const out: AdapterDraft[] = [];
    const meta = (message as { tool_result_meta?: unknown }).tool_result_meta;
    for (const block of content as unknown as Block[]) {
      if (block.type !== "tool_result") continue;
      const id = typeof block["tool_use_id"] === "string" ? block["tool_use_id"] : undefined;
      if (id === undefined) continue;
      out.push(...this.toolResult(id, block, message.tool_use_result, rejectedByMeta(meta, id), turnId, message));
    }
    return out;
  }

  private toolResult(id: string, block: Block, output: unknown, rejected: boolean, turnId: TurnId, raw: unknown): AdapterDraft[] {
    const tool = this.tools.get(id);
    const isError = block["is_error"] === true;
    if (tool?.name === PLAN_TOOL) return [];
    if (tool && TASK_TABLE_TOOLS.has(tool.name) && !isError) return this.settleTask(tool, output, turnId, raw);
    const status = this.declined.has(id) || rejected ? "declined" : isError ? "failed" : "completed";
    const diff = tool && !isError ? diffFromResult(tool.name, output, this.cwd) : undefined;
    const content: ContentBlock[] = diff ? [diff] : toolOutputContent(block["content"]);
    const payload: DraftPayloadOf<"tool_call_update"> = { toolCallId: id, status, content, rawOutput: output };
    if (tool && TASK_TABLE_TOOLS.has(tool.name)) {
      const view = describeTool(tool.name, tool.input, this.cwd);
      Object.assign(payload, { title: view.title, kind: view.kind, rawInput: tool.input });
    }
    return [adapterDraft("tool_call_update", payload, { turnId, raw })];
  }

  private settleTask(tool: ToolRecord, output: unknown, turnId: TurnId, raw: unknown): AdapterDraft[] {
    if (tool.name === "TaskCreate") {
      const task = (record(output) as Partial<TaskCreateOutput>).task;
      if (!task || typeof task.id !== "string") return [];
      this.tasks.set(task.id, { content: task.subject, status: "pending" });
    } else {
      const input = tool.input as Partial<TaskUpdateInput> & { task_id?: unknown };
      const taskId = typeof input.taskId === "string" ? input.taskId : typeof input.task_id === "string" ? input.task_id : undefined;
      if (taskId === undefined) return [];
      if (input.status === "deleted") this.tasks.delete(taskId);
      else {
        const entry = this.tasks.get(taskId) ?? { content: input.subject ?? `Task ${taskId}`, status: "pending" };
        if (typeof input.subject === "string") entry.content = input.subject;
        if (typeof input.status === "string") entry.status = input.status;
        this.tasks.set(taskId, entry);
      }
    }
    const entries = [...this.tasks.values()].map((task) => ({ content: task.content, status: task.status }));
    return [adapterDraft("plan_update", { planId: TASK_PLAN_ID, entries }, { turnId, raw })];
  }

  /** system/* messages other than init (the session handles init and permission-mode changes). */
  system(message: SystemMessage, turnId: TurnId | undefined): AdapterDraft[] {
    const extra = { turnId, raw: message };
    switch (message.subtype) {
      case "status": {
        if (message.status === "compacting") {
          this.compacting = true;
          return [adapterDraft("_baton_run_status", { phase: "compacting", title: "Compacting conversation…" }, extra)];
        }
        if (this.compacting) {
          this.compacting = false;
          return [adapterDraft("_baton_run_status", { phase: null }, extra)];
        }
        return [];
      }
      case "compact_boundary":
        if (message.compact_metadata.post_tokens !== undefined) this.lastContext = message.compact_metadata.post_tokens;
        return [];
      case "commands_changed":
        return [commandsDraft(message.commands, extra)];
      case "task_started":
        return [
          adapterDraft("task_update", {
            taskId: message.task_id,
            status: "in_progress",
            title: message.description,
            ...(message.task_type ?? message.subagent_type ? { taskType: message.task_type ?? message.subagent_type } : {}),
            ...(message.skip_transcript !== undefined ? { skipTranscript: message.skip_transcript } : {}),
          }, extra),
        ];
      case "task_progress":
        return [
          adapterDraft("task_update", {
            taskId: message.task_id,
            status: "in_progress",
            ...(message.summary !== undefined ? { summary: message.summary } : {}),
            ...(message.last_tool_name !== undefined ? { lastToolName: message.last_tool_name } : {}),
            usage: { totalTokens: message.usage.total_tokens, toolUses: message.usage.tool_uses, durationMs: message.usage.duration_ms },
          }, extra),
        ];
      case "task_notification":
        return [
          adapterDraft("task_update", {
            taskId: message.task_id,
            status: message.status,
            summary: message.summary,
            ...(message.usage ? { usage: { totalTokens: message.usage.total_tokens, toolUses: message.usage.tool_uses, durationMs: message.usage.duration_ms } } : {}),
            ...(message.skip_transcript !== undefined ? { skipTranscript: message.skip_transcript } : {}),
          }, extra),
        ];
      case "api_retry":
        return [
          adapterDraft("_baton_notice", {
            level: "warning",
            title: `Claude API error${message.error_status ? ` ${message.error_status}` : ""}, retrying (${message.attempt}/${message.max_retries})`,
            detail: String(message.error),
          }, extra),
        ];
      default:
        return [];
    }
  }

  /** `result` → usage (delta for this turn) and the context-window snapshot. */
  usage(result: SDKResultMessage, turnId: TurnId, model: string | undefined): AdapterDraft[] {
    const usage = result.usage;
    const out: AdapterDraft[] = [];
    const thinking = (usage as { output_tokens_details?: { thinking_tokens?: number } | null }).output_tokens_details?.thinking_tokens;
    out.push(
      adapterDraft("usage_update", {
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        cacheReadTokens: usage.cache_read_input_tokens ?? 0,
        cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
        ...(thinking ? { reasoningTokens: thinking } : {}),
      }, { turnId, raw: rawExcerpt(result, ["usage"]) }),
    );
    const entries = Object.entries(result.modelUsage ?? {});
    const chosen =
      entries.find(([name]) => name === model) ?? entries.sort((a, b) => b[1].contextWindow - a[1].contextWindow)[0];
    if (chosen) {
      const [name, model] = chosen;
      const used = this.lastContext ?? model.inputTokens + model.cacheReadInputTokens + model.cacheCreationInputTokens;
      out.push(
        adapterDraft("context_usage_update", {
          model: name,
          contextUsed: used,
          contextSize: model.contextWindow,
          cost: { amount: result.total_cost_usd, currency: "USD" },
        }, { turnId }),
      );
    }
    return out;
  }
}

function rejectedByMeta(meta: unknown, toolUseId: string): boolean {
  if (!Array.isArray(meta)) return false;
  return meta.some((entry) => {
    const item = record(entry);
    return item["id"] === toolUseId && record(item["permission_decision"])["decision"] === "reject";
  });
}

export function commandsDraft(commands: readonly SlashCommand[], extra: { turnId?: TurnId | undefined; raw?: unknown } = {}): AdapterDraft {
  return adapterDraft("available_commands_update", {
    commands: commands.map((command) => ({
      name: command.name,
      description: command.description,
      ...(command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
    })),
  }, extra);
}

export function commandNamesDraft(names: readonly string[], extra: { turnId?: TurnId | undefined; raw?: unknown } = {}): AdapterDraft {
  return adapterDraft("available_commands_update", { commands: names.map((name) => ({ name })) }, extra);
}
