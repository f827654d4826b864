/**
 * Codex thread items → normalized event parts (COD-08). Pure: the live adapter and a future
 * native-session inspector use the same mapping, so both reduce to the same transcript.
 */
import type { ContentBlock, DiffBlock } from "../../event/content.ts";
import type { DraftPayloadOf, ToolStatus } from "../../event/kinds.ts";
import { newFileHeader, oldFileHeader } from "../diff-header.ts";
import { part, type DraftPart } from "../drafts.ts";
import { normalizeClosed } from "../normalize.ts";
import type { ThreadItem } from "./protocol/v2/ThreadItem";
import type { FileUpdateChange } from "./protocol/v2/FileUpdateChange";


const text = (value: string): ContentBlock => ({ type: "text", text: value });

const TERMINAL_TOOL_STATUSES = ["completed", "failed", "declined"] as const satisfies readonly ToolStatus[];

/** Whitelisted terminal tool status: completed|failed|declined; unknown → failed; missing → completed. */
export function toolTerminalStatus(raw: unknown): (typeof TERMINAL_TOOL_STATUSES)[number] {
  return normalizeClosed(raw, TERMINAL_TOOL_STATUSES, "failed", { emptyAs: "completed" });
}

/** Per-file unified diff with synthesized headers for add/delete (one DiffBlock per file). */
export function fileChangeBlocks(changes: readonly FileUpdateChange[]): DiffBlock[] {
  return changes.map((change) => {
    const kind = change.kind;
    const body = change.diff;
    const lines = body.endsWith("\n") ? body.slice(0, -1).split("\n") : body === "" ? [] : body.split("\n");
    if (kind.type === "add") {
      const patch = `--- /dev/null\n${newFileHeader(change.path)}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}\n`).join("")}`;
      return { type: "diff", changes: [{ operation: "add", path: change.path }], patch };
    }
    if (kind.type === "delete") {
      const patch = `${oldFileHeader(change.path)}\n+++ /dev/null\n@@ -1,${lines.length} +0,0 @@\n${lines.map((l) => `-${l}\n`).join("")}`;
      return { type: "diff", changes: [{ operation: "delete", path: change.path }], patch };
    }
    const target = kind.move_path ?? change.path;
    const patch = body.startsWith("--- ") ? body : `${oldFileHeader(change.path)}\n${newFileHeader(target)}\n${body}`;
    return kind.move_path !== null && kind.move_path !== change.path
      ? { type: "diff", changes: [{ operation: "move", path: target, oldPath: change.path }], patch }
      : { type: "diff", changes: [{ operation: "update", path: change.path }], patch };
  });
}

function changedPaths(changes: readonly FileUpdateChange[]): string[] {
  return changes.map((c) => (c.kind.type === "update" && c.kind.move_path !== null ? c.kind.move_path : c.path));
}

/** Tool-shaped items: their title and kind. Undefined for items that are not tool calls. */
export function toolIdentity(item: ThreadItem): { title: string; kind: DraftPayloadOf<"tool_call_update">["kind"] } | undefined {
  switch (item.type) {
    case "commandExecution":
      return { title: item.command, kind: "execute" };
    case "fileChange":
      return { title: `edit ${changedPaths(item.changes).join(", ")}`, kind: "edit" };
    case "webSearch":
      return { title: `search: ${item.query}`, kind: "search" };
    case "mcpToolCall":
      return { title: `${item.server}.${item.tool}`, kind: "other" };
    case "dynamicToolCall":
      return { title: item.namespace === null ? item.tool : `${item.namespace}.${item.tool}`, kind: "other" };
    case "imageView":
      return { title: `view ${item.path}`, kind: "read" };
    default:
      return undefined;
  }
}

function toolInput(item: ThreadItem): unknown {
  switch (item.type) {
    case "commandExecution":
      return { command: item.command, cwd: item.cwd, commandActions: item.commandActions };
    case "fileChange":
      return { changes: item.changes };
    case "mcpToolCall":
    case "dynamicToolCall":
      return item.arguments;
    case "webSearch":
      return { query: item.query, action: item.action };
    case "imageView":
      return { path: item.path };
    default:
      return undefined;
  }
}

function toolOutput(item: ThreadItem): { content?: ContentBlock[]; rawOutput?: unknown } {
  switch (item.type) {
    case "commandExecution":
      return {
        ...(item.aggregatedOutput !== null && item.aggregatedOutput !== "" ? { content: [text(item.aggregatedOutput)] } : {}),
        rawOutput: { exitCode: item.exitCode, aggregatedOutput: item.aggregatedOutput, durationMs: item.durationMs },
      };
    case "fileChange":
      return { content: fileChangeBlocks(item.changes) };
    case "mcpToolCall":
      return { rawOutput: item.error ?? item.result };
    case "dynamicToolCall":
      return { rawOutput: item.contentItems };
    default:
      return {};
  }
}

function toolStatusOf(item: ThreadItem): unknown {
  return "status" in item ? (item as { status?: unknown }).status : undefined;
}

const TASK_STATUS: Readonly<Record<string, DraftPayloadOf<"task_update">["status"]>> = {
  inProgress: "in_progress",
  completed: "completed",
  failed: "failed",
  interrupted: "stopped",
};

/** Parts for `item/started`. Agent messages and reasoning wait for deltas / completion. */
export function itemStartedParts(item: ThreadItem): DraftPart[] {
  const tool = toolIdentity(item);
  if (tool !== undefined) {
    const payload: DraftPayloadOf<"tool_call_update"> = { toolCallId: item.id, title: tool.title, kind: tool.kind, status: "in_progress", rawInput: toolInput(item) };
    if (item.type === "fileChange") {
      payload.locations = changedPaths(item.changes).map((path) => ({ path }));
      // The change is shown while it waits for approval, not only once applied (#11.9).
      if (item.changes.length > 0) payload.content = fileChangeBlocks(item.changes);
    }
    return [part("tool_call_update", payload)];
  }
  switch (item.type) {
    case "contextCompaction":
      return [part("_baton_run_status", { phase: "Compacting context…" })];
    case "collabAgentToolCall":
      return [part("task_update", { taskId: item.id, status: "in_progress", title: item.tool, taskType: "agent", ...(item.prompt !== null ? { summary: item.prompt } : {}) })];
    default:
      return [];
  }
}

/** Parts for `item/completed`. */
export function itemCompletedParts(item: ThreadItem): DraftPart[] {
  const tool = toolIdentity(item);
  if (tool !== undefined) {
    const status = toolTerminalStatus(toolStatusOf(item));
    const output = toolOutput(item);
    const payload: DraftPayloadOf<"tool_call_update"> = { toolCallId: item.id, title: tool.title, kind: tool.kind, status, rawInput: toolInput(item) };
    if (output.content !== undefined) payload.content = output.content;
    if (output.rawOutput !== undefined) payload.rawOutput = output.rawOutput;
    return [part("tool_call_update", payload)];
  }
  switch (item.type) {
    case "agentMessage":
      return [part("agent_message", { messageId: item.id, content: item.text === "" ? [] : [text(item.text)] })];
    case "reasoning": {
      if (item.summary.length > 0) {
        return item.summary.map((entry, index) => part("agent_thought", { messageId: `${item.id}:summary:${index}`, content: [text(entry)] }));
      }
      if (item.content.length > 0) return [part("agent_thought", { messageId: item.id, content: [text(item.content.join("\n"))] })];
      return [];
    }
    case "plan":
      return [part("proposed_plan", { planId: item.id, content: item.text })];
    case "contextCompaction":
      return [part("_baton_run_status", { phase: null })];
    case "collabAgentToolCall":
      return [part("task_update", { taskId: item.id, status: TASK_STATUS[item.status] ?? "failed", title: item.tool, taskType: "agent" })];
    default:
      return [];
  }
}

/** True when the completed item is output a user would see (for the empty-turn notice). */
export function isVisible(item: ThreadItem): boolean {
  switch (item.type) {
    case "agentMessage":
      return item.text.trim() !== "";
    case "reasoning":
      return item.summary.length > 0 || item.content.length > 0;
    case "userMessage":
    case "hookPrompt":
      return false;
    default:
      return true;
  }
}
