/**
 * `session/update` → Baton event drafts (pure, table-tested). Closed vocabularies at the boundary: tool kinds and
 * statuses map into Baton's lists (unknown kind → `other`, unknown status → `failed`, never `completed`). Chunks
 * are keyed by the agent's `messageId` where it sends one (claude-agent-acp sends a cancelled turn's last chunk
 * after the cancel; the id keeps it out of the next turn). Update kinds Baton does not map come back as
 * diagnostics — never dropped silently. ACP v1 has no agent-initiated turns: turn content outside a driven turn is
 * a diagnostic too, no observed turn is minted.
 */
import type { ContentBlock } from "../../event/content.ts";
import { TOOL_KINDS, TOOL_STATUSES, type DraftPayloadOf, type ToolKind, type ToolStatus } from "../../event/kinds.ts";
import type { TurnId } from "../../shared/ids.ts";
import { normalizeClosed } from "../normalize.ts";
import type { AcpConfigState } from "./config.ts";
import { diffBlock } from "./diff.ts";
import { part, type DraftPart } from "../drafts.ts";

export interface Diagnostic {
  /** What kind of thing this is (bounded: one counter per key). */
  readonly key: string;
  readonly detail: string;
}

export interface MapResult {
  readonly drafts: DraftPart[];
  readonly diagnostics: Diagnostic[];
}

type Json = Readonly<Record<string, unknown>>;
type MessageKind = "message" | "thought";

interface OpenMessage {
  readonly turnId: TurnId;
  readonly kind: MessageKind;
  blocks: ContentBlock[];
}

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

export function toolKind(kind: unknown): ToolKind {
  return normalizeClosed(kind, TOOL_KINDS, "other");
}

export function toolStatus(status: unknown): ToolStatus {
  return normalizeClosed(status, TOOL_STATUSES, "failed");
}

/** ACP tool call content → Baton content blocks; terminals are left out (their output arrives as chunks). */
export function toolContent(content: readonly unknown[], cwd: string): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const item of content) {
    if (!isObject(item)) continue;
    if (item["type"] === "content" && isObject(item["content"])) out.push(item["content"] as ContentBlock);
    else if (item["type"] === "diff" && typeof item["path"] === "string" && typeof item["newText"] === "string") {
      out.push(diffBlock(item["path"], str(item["oldText"]) ?? null, item["newText"], cwd));
    } else if (item["type"] !== "terminal" && typeof item["type"] === "string") out.push(item as ContentBlock);
  }
  return out;
}

function locations(value: unknown): { path: string; line?: number }[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: { path: string; line?: number }[] = [];
  for (const entry of value) {
    if (!isObject(entry) || typeof entry["path"] !== "string") continue;
    out.push(typeof entry["line"] === "number" ? { path: entry["path"], line: entry["line"] } : { path: entry["path"] });
  }
  return out;
}

/** A tool call (first sighting or update): only what the agent sent; its `null` means "unchanged". */
export function toolCallPayload(call: Json, cwd: string): DraftPayloadOf<"tool_call_update"> {
  const payload: Record<string, unknown> = { toolCallId: String(call["toolCallId"]) };
  const title = str(call["title"]);
  if (title !== undefined) payload["title"] = title;
  if (call["kind"] !== undefined && call["kind"] !== null) payload["kind"] = toolKind(call["kind"]);
  if (call["status"] !== undefined && call["status"] !== null) payload["status"] = toolStatus(call["status"]);
  if (Array.isArray(call["content"])) {
    const onlyTerminals = call["content"].length > 0 && call["content"].every((item) => isObject(item) && item["type"] === "terminal");
    if (!onlyTerminals) payload["content"] = toolContent(call["content"], cwd);
  }
  const where = locations(call["locations"]);
  if (where !== undefined) payload["locations"] = where;
  if (call["rawInput"] !== undefined) payload["rawInput"] = call["rawInput"];
  if (call["rawOutput"] !== undefined) payload["rawOutput"] = call["rawOutput"];
  return payload as DraftPayloadOf<"tool_call_update">;
}

/** Terminal output an agent reports beside the call (codex-acp: `_meta.terminal_output_delta.data`). */
function terminalOutput(call: Json): string | undefined {
  const meta = call["_meta"];
  if (!isObject(meta) || !isObject(meta["terminal_output_delta"])) return undefined;
  const data = meta["terminal_output_delta"]["data"];
  return typeof data === "string" && data !== "" ? data : undefined;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export class AcpMapper {
  private readonly messages = new Map<string, OpenMessage>();
  /** The open message of each kind per turn (a change of messageId starts a new message). */
  private readonly current = new Map<string, string>();
  private readonly segments = new Map<TurnId, number>();
  private readonly turnOfKey = new Map<string, TurnId>();
  private readonly toolTurns = new Map<string, TurnId>();
  private readonly finished = new Set<TurnId>();

  constructor(
    private readonly cwd: string,
    private readonly config: AcpConfigState,
  ) {}

  /** Map one `session/update` payload (`params.update`) while `active` is the driven turn in flight, if any. */
  map(update: unknown, active: TurnId | undefined): MapResult {
    const drafts: DraftPart[] = [];
    const diagnostics: Diagnostic[] = [];
    if (!isObject(update) || typeof update["sessionUpdate"] !== "string") {
      return { drafts, diagnostics: [{ key: "update:malformed", detail: describe(update) }] };
    }
    const kind = update["sessionUpdate"];
    switch (kind) {
      case "agent_message_chunk":
      case "agent_thought_chunk":
        this.chunk(kind === "agent_message_chunk" ? "message" : "thought", update, active, drafts, diagnostics);
        break;
      case "tool_call":
      case "tool_call_update":
        this.tool(update, active, drafts, diagnostics);
        break;
      case "plan": {
        const turnId = this.live(active, `update:${kind}`, update, diagnostics);
        if (turnId === undefined) break;
        const entries = Array.isArray(update["entries"]) ? update["entries"].filter(isObject) : [];
        drafts.push(
          part(
            "plan_update",
            {
              planId: `pl_${turnId}`,
              entries: entries.map((entry) => ({
                content: str(entry["content"]) ?? "",
                status: str(entry["status"]) ?? "pending",
                ...(typeof entry["priority"] === "string" ? { priority: entry["priority"] } : {}),
              })),
            },
            turnId,
          ),
        );
        break;
      }
      case "available_commands_update": {
        const commands = Array.isArray(update["availableCommands"]) ? update["availableCommands"].filter(isObject) : [];
        drafts.push(
          part(
            "available_commands_update",
            {
              commands: commands
                .filter((command) => typeof command["name"] === "string")
                .map((command) => ({
                  name: String(command["name"]),
                  ...(typeof command["description"] === "string" ? { description: command["description"] } : {}),
                  ...(isObject(command["input"]) && typeof command["input"]["hint"] === "string" ? { input: { hint: command["input"]["hint"] } } : {}),
                })),
            },
            active,
          ),
        );
        break;
      }
      case "current_mode_update":
        if (typeof update["currentModeId"] === "string") this.config.setCurrentMode(update["currentModeId"]);
        drafts.push(part("config_option_update", { options: this.config.snapshot() }, active));
        break;
      case "config_option_update":
        if (Array.isArray(update["configOptions"])) this.config.replaceOptions(update["configOptions"] as never);
        drafts.push(part("config_option_update", { options: this.config.snapshot() }, active));
        break;
      case "usage_update": {
        const cost = isObject(update["cost"]) && typeof update["cost"]["amount"] === "number" && typeof update["cost"]["currency"] === "string" ? { amount: update["cost"]["amount"], currency: update["cost"]["currency"] } : undefined;
        drafts.push(
          part(
            "context_usage_update",
            {
              ...(typeof update["used"] === "number" ? { contextUsed: update["used"] } : {}),
              ...(typeof update["size"] === "number" ? { contextSize: update["size"] } : {}),
              ...(cost !== undefined ? { cost } : {}),
            },
            active,
          ),
        );
        break;
      }
      default:
        // user_message_chunk (Baton wrote the user message), session_info_update, notice, compaction_*, …
        diagnostics.push({ key: `update:${kind}`, detail: describe(update) });
    }
    return { drafts, diagnostics };
  }

  /** The tool call inside a permission request: it may be the first sighting of the id (upsert). */
  permissionToolCall(toolCall: unknown, turnId: TurnId): DraftPart[] {
    if (!isObject(toolCall) || typeof toolCall["toolCallId"] !== "string") return [];
    if (!this.toolTurns.has(toolCall["toolCallId"])) this.toolTurns.set(toolCall["toolCallId"], turnId);
    return [part("tool_call_update", toolCallPayload(toolCall, this.cwd), turnId)];
  }

  /** Close a turn: its open messages and thoughts are completed; its later updates are inert. */
  finishTurn(turnId: TurnId): DraftPart[] {
    const drafts = this.closeMessages(turnId);
    this.finished.add(turnId);
    this.segments.delete(turnId);
    return drafts;
  }

  private live(active: TurnId | undefined, key: string, update: Json, diagnostics: Diagnostic[]): TurnId | undefined {
    if (active === undefined) diagnostics.push({ key: `${key} outside a turn`, detail: describe(update) });
    return active;
  }

  private closeMessage(messageId: string): DraftPart[] {
    const message = this.messages.get(messageId);
    if (message === undefined) return [];
    this.messages.delete(messageId);
    const slot = `${message.turnId}:${message.kind}`;
    if (this.current.get(slot) === messageId) this.current.delete(slot);
    if (message.blocks.length === 0) return [];
    return [part(message.kind === "message" ? "agent_message" : "agent_thought", { messageId, content: message.blocks }, message.turnId)];
  }

  private closeMessages(turnId: TurnId): DraftPart[] {
    const drafts: DraftPart[] = [];
    for (const [messageId, message] of [...this.messages]) if (message.turnId === turnId) drafts.push(...this.closeMessage(messageId));
    return drafts;
  }

  private chunk(kind: MessageKind, update: Json, active: TurnId | undefined, drafts: DraftPart[], diagnostics: Diagnostic[]): void {
    const nativeId = str(update["messageId"]);
    const key = nativeId === undefined || nativeId === "" ? undefined : `${kind}:${nativeId}`;
    const known = key === undefined ? undefined : this.turnOfKey.get(key);
    const turnId = known ?? active;
    const label = kind === "message" ? "agent_message_chunk" : "agent_thought_chunk";
    if (turnId === undefined) return void diagnostics.push({ key: `update:${label} outside a turn`, detail: describe(update) });
    if (this.finished.has(turnId)) return void diagnostics.push({ key: `update:${label} of a finished turn`, detail: describe(update) });
    if (key !== undefined && known === undefined) this.turnOfKey.set(key, turnId);
    const messageId =
      key === undefined
        ? `m_acp_${turnId}_${this.segments.get(turnId) ?? 0}${kind === "thought" ? "_thought" : ""}`
        : kind === "thought"
          ? `${nativeId}:thought`
          : (nativeId as string);
    const slot = `${turnId}:${kind}`;
    const previous = this.current.get(slot);
    if (previous !== undefined && previous !== messageId) drafts.push(...this.closeMessage(previous));
    this.current.set(slot, messageId);
    const block = update["content"];
    if (!isObject(block) || typeof block["type"] !== "string") return;
    if (block["type"] === "text" && (typeof block["text"] !== "string" || block["text"] === "")) return;
    let open = this.messages.get(messageId);
    if (open === undefined) {
      open = { turnId, kind, blocks: [] };
      this.messages.set(messageId, open);
    }
    const last = open.blocks.at(-1);
    if (block["type"] === "text" && last?.type === "text" && typeof last["text"] === "string") {
      open.blocks[open.blocks.length - 1] = { ...last, text: last["text"] + String(block["text"]) };
    } else open.blocks.push(block as ContentBlock);
    drafts.push(part(kind === "message" ? "agent_message_chunk" : "agent_thought_chunk", { messageId, content: block as ContentBlock }, turnId));
  }

  private tool(update: Json, active: TurnId | undefined, drafts: DraftPart[], diagnostics: Diagnostic[]): void {
    const toolCallId = str(update["toolCallId"]);
    if (toolCallId === undefined || toolCallId === "") return void diagnostics.push({ key: "update:tool call without id", detail: describe(update) });
    const known = this.toolTurns.get(toolCallId);
    const turnId = known ?? active;
    const label = String(update["sessionUpdate"]);
    if (turnId === undefined) return void diagnostics.push({ key: `update:${label} outside a turn`, detail: describe(update) });
    if (this.finished.has(turnId)) return void diagnostics.push({ key: `update:${label} of a finished turn`, detail: describe(update) });
    if (known === undefined) {
      this.toolTurns.set(toolCallId, turnId);
      // What was said before the tool is complete; text after it is a new message.
      drafts.push(...this.closeMessages(turnId));
      this.segments.set(turnId, (this.segments.get(turnId) ?? 0) + 1);
    }
    const output = terminalOutput(update);
    if (output !== undefined) drafts.push(part("tool_call_content_chunk", { toolCallId, content: { type: "text", text: output } }, turnId));
    drafts.push(part("tool_call_update", toolCallPayload(update, this.cwd), turnId));
  }
}
