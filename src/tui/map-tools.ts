/**
 * Tool calls and tasks as timeline blocks (TUI-03). Execute tools are titled Running / Declined / Ran with the
 * command as content; file changes show one diff part per change; text output becomes (clipped) output.
 */
import type { ContentBlock } from "../projection/index.ts";
import type { TaskItem as ProjectedTask, ToolCallItem } from "../projection/index.ts";
import type { DiffContent, ToolContent, ToolItem } from "chat-tui";
import type { TargetLook } from "./targets.ts";

const DIFF_OPS = new Set(["add", "modify", "delete", "move"]);

function commandOf(rawInput: unknown, fallback: string | null): string {
  if (rawInput !== null && typeof rawInput === "object") {
    const command = (rawInput as Record<string, unknown>)["command"];
    if (typeof command === "string" && command.trim() !== "") return command;
    if (Array.isArray(command) && command.every((part) => typeof part === "string")) return command.join(" ");
  }
  return fallback ?? "";
}

function executeTitle(status: string): string {
  if (status === "pending" || status === "in_progress") return "Running";
  if (status === "declined") return "Declined";
  if (status === "interrupted") return "Interrupted";
  if (status === "completed" || status === "failed") return "Ran";
  return "Command";
}

/** Split a multi-file unified patch into per-file pieces, keyed by the `+++`/`---` path. */
export function splitPatch(patch: string): { readonly path: string; readonly patch: string }[] {
  const lines = patch.split("\n");
  const out: { path: string; lines: string[] }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const next = lines[i + 1] ?? "";
    if (line.startsWith("--- ") && next.startsWith("+++ ")) {
      const newPath = next.slice(4).trim().replace(/^b\//, "");
      const oldPath = line.slice(4).trim().replace(/^a\//, "");
      out.push({ path: newPath === "/dev/null" ? oldPath : newPath, lines: [] });
    }
    out.at(-1)?.lines.push(line);
  }
  return out.map((piece) => ({ path: piece.path, patch: piece.lines.join("\n") }));
}

/** One diff block → one diff part per changed file (a multi-file patch is split by its file headers). */
export function diffParts(block: ContentBlock): DiffContent[] {
  const changes = Array.isArray(block["changes"]) ? (block["changes"] as Record<string, unknown>[]) : [];
  const patch = typeof block["patch"] === "string" ? block["patch"] : undefined;
  const pieces = patch !== undefined && changes.length > 1 ? splitPatch(patch) : [];
  return changes
    .filter((change) => typeof change["path"] === "string")
    .map((change) => {
      const path = change["path"] as string;
      const op = typeof change["operation"] === "string" && DIFF_OPS.has(change["operation"]) ? change["operation"] : "modify";
      const own = changes.length === 1 ? patch : pieces.find((piece) => path.endsWith(piece.path) || piece.path.endsWith(path))?.patch;
      const oldPath = typeof change["oldPath"] === "string" ? change["oldPath"] : undefined;
      return {
        type: "diff",
        op: op as "add" | "modify" | "delete" | "move",
        path,
        ...(oldPath === undefined ? {} : { oldPath }),
        ...(own === undefined ? {} : { patch: own }),
      };
    });
}

function textOfBlocks(blocks: readonly ContentBlock[]): { text: string; other: ContentBlock[] } {
  let text = "";
  const other: ContentBlock[] = [];
  for (const block of blocks) {
    if (block.type === "text" && typeof block["text"] === "string") text += block["text"];
    else if (block.type !== "diff") other.push(block);
  }
  return { text, other };
}

export function mapToolCall(tool: ToolCallItem, look: TargetLook): ToolItem {
  const execute = tool.kind === "execute";
  const content: ToolContent[] = [];
  if (execute) content.push({ type: "command", command: commandOf(tool.rawInput, tool.title) });
  for (const block of tool.content) if (block.type === "diff") content.push(...diffParts(block));
  const { text, other } = textOfBlocks(tool.content);
  const trimmed = text.replace(/\n+$/, "");
  if (trimmed !== "") content.push(execute ? { type: "output", text: trimmed } : { type: "text", text: trimmed });
  for (const block of other) content.push({ type: "text", text: `[${block.type}]` });
  return {
    kind: "tool",
    id: tool.toolCallId,
    title: execute ? executeTitle(tool.status) : (tool.title ?? tool.kind ?? "Tool"),
    status: tool.status,
    author: look.author,
    authorKey: look.id,
    ...(content.length === 0 ? {} : { content }),
  };
}

const TASK_STATUS: Readonly<Record<string, string>> = { in_progress: "in_progress", completed: "completed", failed: "failed", stopped: "failed" };

export function mapTask(task: ProjectedTask, look: TargetLook): ToolItem {
  const lines: string[] = [];
  if (task.summary !== null && task.summary !== "") lines.push(task.summary);
  if (task.lastToolName !== null) lines.push(`Last tool: ${task.lastToolName}`);
  return {
    kind: "tool",
    id: task.taskId,
    title: task.title ?? task.taskType ?? "Task",
    status: TASK_STATUS[task.status] ?? task.status,
    author: look.author,
    authorKey: look.id,
    ...(lines.length === 0 ? {} : { content: [{ type: "lines", lines }] }),
  };
}
