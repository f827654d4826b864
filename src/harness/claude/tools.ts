/** How Claude Code tool calls look in Baton: kind, title, intent diffs, real patches, and TodoWrite plans. */
import path from "node:path";
import { newFileHeader, oldFileHeader } from "../diff-header.ts";
import type {
  BashInput,
  FileEditInput,
  FileEditOutput,
  FileReadInput,
  FileWriteInput,
  FileWriteOutput,
  GlobInput,
  GrepInput,
  NotebookEditInput,
  TodoWriteInput,
  WebFetchInput,
  WebSearchInput,
} from "@anthropic-ai/claude-agent-sdk/sdk-tools";
import type { ContentBlock, DiffBlock } from "../../event/content.ts";
import type { DraftPayloadOf, ToolKind } from "../../event/kinds.ts";

export interface ToolView {
  readonly kind: ToolKind;
  readonly title: string;
  readonly content?: ContentBlock[];
  readonly locations?: { path: string }[];
}

/** Tools whose calls become something other than a tool card. */
export const PLAN_TOOL = "TodoWrite";
export const TASK_TABLE_TOOLS = new Set(["TaskCreate", "TaskUpdate"]);
/** Tools that change files; denied by Baton itself while Claude is in plan mode (the SDK does not block them). */
export const WRITE_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit", "Bash"]);

const MAX_PATCH_LINES = 400;
const MAX_OUTPUT_CHARS = 100_000;

type Input = Readonly<Record<string, unknown>>;

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function display(filePath: string | undefined, cwd: string): string {
  if (filePath === undefined) return "";
  if (!path.isAbsolute(filePath)) return filePath;
  const rel = path.relative(cwd, filePath);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : filePath;
}

function intentDiff(operation: "add" | "modify", filePath: string | undefined, patch?: string): ContentBlock[] | undefined {
  if (filePath === undefined) return undefined;
  const diff: DiffBlock = { type: "diff", changes: [{ operation, path: filePath }], ...(patch === undefined ? {} : { patch }) };
  return [diff];
}

function linesOf(text: string): string[] {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  return body === "" ? [] : body.split("\n");
}

/** Headers plus body lines, the body capped at MAX_PATCH_LINES with a note of what was left out. */
function cappedPatch(headers: readonly string[], body: readonly string[]): string {
  const kept = body.length > MAX_PATCH_LINES ? [...body.slice(0, MAX_PATCH_LINES), `\\ … ${body.length - MAX_PATCH_LINES} more lines not shown`] : body;
  return `${[...headers, ...kept].join("\n")}\n`;
}

/**
 * What a Write, Edit or NotebookEdit is about to change, from its input alone (shown before the decision; the
 * result's real patch replaces it). Write: the new content as additions. Edit: each old string removed and its
 * new string added, in a hunk without line numbers (Baton does not read the file to find them).
 */
function writePatch(shown: string, content: string): string {
  const added = linesOf(content).map((line) => `+${line}`);
  return cappedPatch(["--- /dev/null", newFileHeader(shown), `@@ -0,0 +1,${added.length} @@`], added);
}

interface EditPair {
  readonly old: string;
  readonly next: string;
  readonly all: boolean;
}

function editPairs(input: Input): EditPair[] {
  const one = (value: unknown): EditPair | undefined => {
    const edit = value as Partial<FileEditInput> | null;
    if (typeof edit?.old_string !== "string" || typeof edit.new_string !== "string") return undefined;
    return { old: edit.old_string, next: edit.new_string, all: edit.replace_all === true };
  };
  const edits = input["edits"];
  const list = Array.isArray(edits) ? edits.map(one) : [one(input)];
  return list.filter((pair): pair is EditPair => pair !== undefined);
}

function editPatch(shown: string, pairs: readonly EditPair[]): string | undefined {
  if (pairs.length === 0) return undefined;
  const body: string[] = [];
  for (const pair of pairs) {
    body.push(`@@ @@${pair.all ? " every occurrence" : ""}`, ...linesOf(pair.old).map((l) => `-${l}`), ...linesOf(pair.next).map((l) => `+${l}`));
  }
  return cappedPatch([oldFileHeader(shown), newFileHeader(shown)], body);
}

function notebookPatch(shown: string, input: Partial<NotebookEditInput>): string | undefined {
  if (input.edit_mode === "delete" || typeof input.new_source !== "string") return undefined;
  const cell = input.cell_id === undefined ? "" : ` cell ${input.cell_id}`;
  return cappedPatch([oldFileHeader(shown), newFileHeader(shown)], [`@@ @@${cell}`, ...linesOf(input.new_source).map((l) => `+${l}`)]);
}

export function describeTool(name: string, input: Input, cwd: string): ToolView {
  switch (name) {
    case "Bash": {
      const command = str((input as Partial<BashInput>).command) ?? "";
      return { kind: "execute", title: command };
    }
    case "Read": {
      const file = str((input as Partial<FileReadInput>).file_path);
      return { kind: "read", title: `Read ${display(file, cwd)}`, ...(file ? { locations: [{ path: file }] } : {}) };
    }
    case "Write": {
      const file = str((input as Partial<FileWriteInput>).file_path);
      const text = str((input as Partial<FileWriteInput>).content);
      const content = intentDiff("add", file, file === undefined || text === undefined ? undefined : writePatch(display(file, cwd), text));
      return { kind: "edit", title: `Write ${display(file, cwd)}`, ...(content ? { content } : {}), ...(file ? { locations: [{ path: file }] } : {}) };
    }
    case "Edit":
    case "MultiEdit": {
      const file = str((input as Partial<FileEditInput>).file_path);
      const content = intentDiff("modify", file, file === undefined ? undefined : editPatch(display(file, cwd), editPairs(input)));
      return { kind: "edit", title: `Edit ${display(file, cwd)}`, ...(content ? { content } : {}), ...(file ? { locations: [{ path: file }] } : {}) };
    }
    case "NotebookEdit": {
      const file = str((input as Partial<NotebookEditInput>).notebook_path);
      const content = intentDiff("modify", file, file === undefined ? undefined : notebookPatch(display(file, cwd), input as Partial<NotebookEditInput>));
      return { kind: "edit", title: `Edit ${display(file, cwd)}`, ...(content ? { content } : {}), ...(file ? { locations: [{ path: file }] } : {}) };
    }
    case "Glob":
      return { kind: "search", title: `Glob ${str((input as Partial<GlobInput>).pattern) ?? ""}`.trim() };
    case "Grep":
      return { kind: "search", title: `Grep ${str((input as Partial<GrepInput>).pattern) ?? ""}`.trim() };
    case "WebFetch":
      return { kind: "fetch", title: `Fetch ${str((input as Partial<WebFetchInput>).url) ?? ""}`.trim() };
    case "WebSearch":
      return { kind: "fetch", title: `Search ${str((input as Partial<WebSearchInput>).query) ?? ""}`.trim() };
    case "Agent":
    case "Task":
      return { kind: "think", title: `Agent: ${str(input["description"]) ?? "subtask"}` };
    case "ExitPlanMode":
      return { kind: "think", title: "Ready to implement the plan" };
    case "AskUserQuestion":
      return { kind: "other", title: "Asking the user" };
    default:
      if (name.startsWith("mcp__")) {
        const [, server, ...tool] = name.split("__");
        return { kind: "other", title: `${server ?? "mcp"}: ${tool.join("__")}` };
      }
      return { kind: "other", title: name };
  }
}

/** TodoWrite input → plan entries (status passes through: pending | in_progress | completed). */
export function todoEntries(input: Input): DraftPayloadOf<"plan_update">["entries"] {
  const todos = (input as Partial<TodoWriteInput>).todos;
  if (!Array.isArray(todos)) return [];
  return todos
    .filter((todo) => typeof todo?.content === "string")
    .map((todo) => ({ content: todo.content, status: typeof todo.status === "string" ? todo.status : "pending" }));
}

type Hunk = FileEditOutput["structuredPatch"][number];

function unifiedPatch(filePath: string, hunks: readonly Hunk[], created: boolean): string | undefined {
  const lines = [created ? "--- /dev/null" : oldFileHeader(filePath), newFileHeader(filePath)];
  for (const hunk of hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    lines.push(...hunk.lines);
  }
  return lines.length - 2 > MAX_PATCH_LINES ? undefined : `${lines.join("\n")}\n`;
}

/** The real patch from an Edit/Write result's structured patch (create → add); undefined when absent or too large. */
export function diffFromResult(toolName: string, output: unknown, cwd: string): DiffBlock | undefined {
  if (toolName !== "Edit" && toolName !== "Write" && toolName !== "MultiEdit") return undefined;
  if (typeof output !== "object" || output === null) return undefined;
  const result = output as Partial<FileEditOutput & FileWriteOutput>;
  const filePath = str(result.filePath);
  if (filePath === undefined || !Array.isArray(result.structuredPatch)) return undefined;
  const created = toolName === "Write" && result.type === "create";
  const shown = display(filePath, cwd);
  let hunks: readonly Hunk[] = result.structuredPatch;
  if (created && hunks.length === 0 && typeof result.content === "string") {
    const body = result.content.endsWith("\n") ? result.content.slice(0, -1) : result.content;
    const added = body.split("\n").map((line) => `+${line}`);
    hunks = [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: added.length, lines: added }];
  }
  const patch = unifiedPatch(shown, hunks, created);
  const diff: DiffBlock = { type: "diff", changes: [{ operation: created ? "add" : "modify", path: filePath }] };
  return patch === undefined ? diff : { ...diff, patch };
}

/** tool_result content (string or blocks) → Baton text content, capped. */
export function toolOutputContent(content: unknown): ContentBlock[] {
  const texts: string[] = [];
  if (typeof content === "string") texts.push(content);
  else if (Array.isArray(content)) {
    for (const block of content as { type?: unknown; text?: unknown }[]) {
      if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
    }
  }
  const text = texts.join("\n");
  if (text.length === 0) return [];
  const capped = text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n… (${text.length - MAX_OUTPUT_CHARS} more characters)` : text;
  return [{ type: "text", text: capped }];
}
