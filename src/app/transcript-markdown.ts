/** `baton export --format md`: the reduced transcript for people. Thoughts are folded in <details>. */
import { textOf, type ContentBlock } from "../event/content.ts";
import { displayUserText, listSlice, PAGE_SIZE, selectTranscriptWindow, summaryOf, type ProjectionState, type TranscriptEntry } from "../projection/index.ts";
import { REF_ROOT } from "../rewind/refs.ts";
import { assertNever } from "../shared/assert.ts";

export interface MarkdownHeader {
  readonly title: string;
  readonly batonSessionId: string;
  readonly cwd: string;
  readonly createdAt: string;
}

export function transcriptMarkdown(state: ProjectionState, header: MarkdownHeader): string {
  return [...transcriptMarkdownPieces(state, header)].join("");
}

/**
 * `transcriptMarkdown` in pieces, a transcript window at a time: what `baton export` writes as it goes, so an
 * export of a long session holds one window of it, not the transcript and its text.
 */
export function* transcriptMarkdownPieces(state: ProjectionState, header: MarkdownHeader): Generator<string> {
  yield* joinedTrimmed(markdownLines(state, header));
}

function* markdownLines(state: ProjectionState, header: MarkdownHeader): Generator<string> {
  yield* [`# ${header.title}`, "", `Session \`${header.batonSessionId}\` · ${header.cwd} · ${header.createdAt}`, ""];
  for (let start = 0; start < state.timeline.length; start += PAGE_SIZE) {
    for (const entry of selectTranscriptWindow(state, start, start + PAGE_SIZE)) {
      const block = renderEntry(entry);
      if (block) yield* [block, ""];
    }
  }
  yield* fileCheckpoints(state, header.batonSessionId);
}

/** `${[...lines].join("\n").trimEnd()}\n`, written as the lines come: trailing whitespace is held back until more text follows. */
function* joinedTrimmed(lines: Iterable<string>): Generator<string> {
  let held = "";
  let first = true;
  for (const line of lines) {
    const text = first ? line : `\n${line}`;
    first = false;
    const kept = text.trimEnd();
    if (kept.length === 0) {
      held += text;
      continue;
    }
    yield held + kept;
    held = text.slice(kept.length);
  }
  yield "\n";
}

/** The session's file checkpoints (git commits kept under refs/baton/checkpoints/…): what `/rewind` can restore. */
function* fileCheckpoints(state: ProjectionState, sessionId: string): Generator<string> {
  const list = state.fileCheckpoints;
  if (list.length === 0) return;
  yield* [
    "## File checkpoints",
    "",
    `Git commits of the working tree, kept by refs under \`${REF_ROOT}/${sessionId}/\` (and those of the sessions this one was forked from).`,
    "",
    "| boundary | turn | commit | changed since the previous checkpoint |",
    "|---|---|---|---|",
  ];
  for (let start = 0; start < list.length; start += PAGE_SIZE) {
    for (const item of listSlice(list, start, start + PAGE_SIZE)) {
      const asked = summaryOf(state, item.turnId)?.userText ?? "";
      const turn = `\`${item.turnId}\`${asked === "" ? "" : ` “${clipText(asked, 40)}”`}`;
      const changed = item.dirtyUnknown ? "unknown" : item.dirtyPaths.length === 0 ? "—" : item.dirtyPaths.map((p) => `\`${p}\``).join(", ");
      const undo = item.undo ? ` (undo: \`${item.undo.commit.slice(0, 12)}\`, ${item.undo.batonSessionId})` : "";
      yield `| ${item.boundary} | ${turn} | \`${item.commit.slice(0, 12)}\`${undo} | ${changed} |`;
    }
  }
  yield "";
}

function clipText(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function renderEntry(entry: TranscriptEntry): string | undefined {
  switch (entry.type) {
    case "message": {
      const item = entry.item;
      if (item.role === "user") {
        const label = item.delivery === "steer" ? "User (steer)" : "User";
        return `## ${label}\n\n${quote(displayUserText(item.content))}`;
      }
      const author = item.harnessTargetId ?? "agent";
      if (item.role === "thought") {
        return `<details><summary>${author} thought</summary>\n\n${textOf(item.content)}\n\n</details>`;
      }
      return `### ${author}\n\n${textOf(item.content)}`;
    }
    case "tool_call": {
      const item = entry.item;
      const output = contentText(item.content);
      const head = `- **${item.kind ?? "tool"}** \`${item.title ?? item.toolCallId}\` — ${item.status}`;
      return output ? `${head}\n\n\`\`\`\n${clip(output, 60)}\n\`\`\`` : head;
    }
    case "plan":
      return ["**Plan**", ...entry.item.entries.map((e) => `- [${e.status === "completed" ? "x" : " "}] ${e.content}${e.status === "in_progress" ? " (in progress)" : ""}`)].join("\n");
    case "proposed_plan":
      return `**Proposed plan**\n\n${entry.item.content}`;
    case "task":
      return `- task ${entry.item.title ?? entry.item.taskId}: ${entry.item.status}${entry.item.summary ? ` — ${entry.item.summary}` : ""}`;
    case "notice":
      return `> **${entry.item.level}:** ${entry.item.title}${entry.item.detail ? ` — ${entry.item.detail}` : ""}`;
    case "approval_review":
      return `> **approval review:** ${entry.item.decision}${entry.item.riskLevel ? ` (risk: ${entry.item.riskLevel})` : ""}${entry.item.rationale ? ` — ${entry.item.rationale}` : ""}`;
    case "error":
      return `> **error:** ${entry.item.message}`;
    case "interaction": {
      const item = entry.item;
      const title = item.draft.type === "permission" ? item.draft.title : item.draft.type === "question" ? item.draft.questions.map((q) => q.question).join(" / ") : item.draft.type === "proposed_input" ? item.draft.text : "hook trust";
      const resolution = item.resolution;
      const answer = !resolution
        ? "pending"
        : resolution.outcome === "selected"
          ? `chose ${optionName(item, resolution.optionId)}${resolution.answeredBy ? ` (${resolution.answeredBy})` : ""}`
          : resolution.outcome === "cancelled"
            ? `cancelled (${resolution.reason})`
            : resolution.outcome === "answered"
              ? `answered ${Object.values(resolution.answers).flat().join(", ")}`
              : resolution.outcome;
      return `> **${item.draft.type}:** ${title} → ${answer}`;
    }
    default:
      return assertNever(entry, "transcript entry");
  }
}

function optionName(item: Extract<TranscriptEntry, { type: "interaction" }>["item"], optionId: string): string {
  if (item.draft.type !== "permission") return optionId;
  return item.draft.options.find((o) => o.optionId === optionId)?.name ?? optionId;
}

function contentText(content: readonly ContentBlock[]): string {
  return content
    .map((block) => (block.type === "text" ? String(block["text"] ?? "") : block.type === "diff" ? String(block["patch"] ?? "") : ""))
    .join("")
    .trimEnd();
}

function clip(text: string, maxLines: number): string {
  const lines = text.split("\n");
  if (lines.length <= maxLines) return text;
  return `${lines.slice(0, maxLines).join("\n")}\n… +${lines.length - maxLines} lines`;
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
}
