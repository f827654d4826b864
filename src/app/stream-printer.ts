/**
 * Human-readable streaming for `exec` and `repl`: agent text to stdout as it streams, tool, approval,
 * error and notice lines to stderr. Reads appended events only (the single channel of truth).
 */
import type { AnyEvent } from "../event/envelope.ts";
import { textOf, type ContentBlock } from "../event/content.ts";
import { terminalSafe, TerminalSafeStream } from "../shared/terminal-text.ts";
import type { OutStream } from "./io.ts";

export interface PrinterOptions {
  readonly out: OutStream;
  readonly err: OutStream;
  readonly showThoughts: boolean;
}

export class StreamPrinter {
  /** messageId → text already printed (so a full message after chunks prints only what is new). */
  private readonly printed = new Map<string, string>();
  /** messageId → its text on the way to the terminal (a control sequence split across chunks goes whole). */
  private readonly safe = new Map<string, TerminalSafeStream>();
  private readonly toolStatus = new Map<string, string>();
  private readonly toolTitle = new Map<string, string>();
  private atLineStart = true;
  private lastStatus: string | undefined;

  constructor(private readonly options: PrinterOptions) {}

  handle(event: AnyEvent): void {
    const payload = event.payload as Record<string, unknown>;
    switch (event.kind) {
      case "agent_message_chunk":
        return this.streamText(String(payload["messageId"]), textOf([payload["content"] as ContentBlock]), false);
      case "agent_message":
        return this.streamText(String(payload["messageId"]), textOf(payload["content"] as ContentBlock[] | undefined), true);
      case "agent_thought":
        if (this.options.showThoughts) this.errLine(`[thought] ${firstLine(textOf(payload["content"] as ContentBlock[] | undefined))}`);
        return;
      case "tool_call_update":
        return this.tool(payload);
      case "interaction.opened": {
        // A suggestion is shown, never taken: a person sends it (in the TUI, or by typing it).
        const opened = payload as { requester?: { type: string; pluginInstanceId?: string }; draft?: { type: string; text?: string; questions?: PrintedQuestion[]; pluginContext?: { pluginId?: unknown } } };
        const pluginId = opened.draft?.pluginContext?.pluginId;
        const from = typeof pluginId === "string" ? pluginId : opened.requester?.type === "plugin" ? (opened.requester.pluginInstanceId ?? "plugin") : "baton";
        if (opened.draft?.type === "proposed_input") this.errLine(terminalSafe(`[suggestion from ${from}] ${oneLine(opened.draft.text ?? "")}`));
        // A plugin's question waits for a person too (repl: /answer; the TUI: its card); it blocks nothing.
        else if (opened.draft?.type === "question" && opened.requester?.type === "plugin") this.errLine(terminalSafe(pluginQuestionLine(from, opened.draft.questions?.[0])));
        return;
      }
      case "interaction.resolved": {
        const resolution = payload["resolution"] as { outcome: string; optionId?: string; reason?: string; answeredBy?: string };
        const how = resolution.outcome === "selected" ? `chose ${resolution.optionId}` : resolution.outcome === "cancelled" ? `cancelled (${resolution.reason})` : resolution.outcome;
        const label = resolution.outcome === "submitted" || resolution.outcome === "dismissed" ? "suggestion" : resolution.outcome === "answered" ? "question" : "approval";
        this.errLine(`[${label}] ${how}${resolution.answeredBy ? ` by ${resolution.answeredBy}` : ""}`);
        return;
      }
      case "approval_review_update":
        this.errLine(`[review] ${String(payload["decision"])}${payload["riskLevel"] ? ` (risk: ${String(payload["riskLevel"])})` : ""}${payload["rationale"] ? ` — ${terminalSafe(oneLine(String(payload["rationale"])))}` : ""}`);
        return;
      case "plan_update": {
        const entries = payload["entries"] as { content: string; status: string }[];
        this.errLine(`[plan] ${entries.map((e) => `${e.status === "completed" ? "✓" : e.status === "in_progress" ? "›" : "·"} ${e.content}`).join("  ")}`);
        return;
      }
      case "_baton_error_update":
        this.errLine(`[error] ${String(payload["message"])}`);
        return;
      case "_baton_notice":
        // An aside (e.g. "File checkpoints are off", told while the harness starts): the phase goes on, so the
        // harness's own "Starting X…" after it is still the same status, not said again.
        this.errLine(`[${String(payload["level"])}] ${String(payload["title"])}${payload["detail"] ? ` — ${String(payload["detail"])}` : ""}`, true);
        return;
      case "_baton_stall_notice":
        this.errLine(`[stall] ${String(payload["detail"] ?? `${payload["level"]} ${payload["verdict"] ?? ""}`)}`);
        return;
      case "_baton_run_status": {
        // A status is said again only when something else (other than a notice) was printed since: the
        // controller's "Starting X…" while it opens the harness and the harness's own while its process starts
        // are one line (#11.15).
        const title = payload["title"];
        if (typeof title === "string" && title !== this.lastStatus) {
          this.errLine(`[status] ${title}`);
          this.lastStatus = title;
        }
        return;
      }
      default:
        return;
    }
  }

  /** End the current stdout line if text was left open. */
  endLine(): void {
    for (const stream of this.safe.values()) this.write(stream.flush());
    this.safe.clear();
    if (!this.atLineStart) {
      this.options.out.write("\n");
      this.atLineStart = true;
    }
  }

  private streamText(messageId: string, text: string, full: boolean): void {
    const before = this.printed.get(messageId) ?? "";
    let addition: string;
    if (full) {
      addition = text.startsWith(before) ? text.slice(before.length) : before.length === 0 ? text : `\n${text}`;
    } else {
      addition = text;
    }
    if (addition.length === 0) return;
    this.printed.set(messageId, before + addition);
    let safe = this.safe.get(messageId);
    if (safe === undefined) this.safe.set(messageId, (safe = new TerminalSafeStream()));
    this.write(safe.push(addition));
    if (full) this.endLine();
  }

  private write(text: string): void {
    if (text.length === 0) return;
    this.lastStatus = undefined;
    this.options.out.write(text);
    this.atLineStart = text.endsWith("\n");
  }

  private tool(payload: Record<string, unknown>): void {
    const id = String(payload["toolCallId"]);
    if (typeof payload["title"] === "string") this.toolTitle.set(id, payload["title"]);
    const status = typeof payload["status"] === "string" ? payload["status"] : undefined;
    if (!status || this.toolStatus.get(id) === status) return;
    this.toolStatus.set(id, status);
    this.errLine(`[tool:${status}] ${this.toolTitle.get(id) ?? id}`);
  }

  private errLine(text: string, aside = false): void {
    this.endLine();
    if (!aside) this.lastStatus = undefined;
    this.options.err.write(`${text}\n`);
  }
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim().length > 0) ?? "";
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

/** A suggestion on one line: whitespace runs (newlines too) become one space, at most 500 characters. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}

interface PrintedQuestion {
  readonly header?: string | undefined;
  readonly question?: string | undefined;
  readonly options?: readonly { readonly label: string }[] | undefined;
}

/** `[question from <plugin>] Card c1: Ship card c1? (1) Ship it, 2) Hold)` — one line. */
export function pluginQuestionLine(from: string, question: PrintedQuestion | undefined): string {
  const options = (question?.options ?? []).map((o, i) => `${i + 1}) ${o.label}`).join(", ");
  const header = question?.header ? `${question.header}: ` : "";
  return `[question from ${from}] ${oneLine(`${header}${question?.question ?? ""}`)}${options === "" ? "" : ` (${oneLine(options)})`}`;
}
