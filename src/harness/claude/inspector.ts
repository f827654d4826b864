/**
 * The Claude Code native-session inspector (NAT-04): finds the transcript, lets the SDK's
 * `getSessionInfo` / `getSessionMessages` build the conversation (through a read-only store over the
 * lines Baton read), and splits it into turns at the user's prompts. Tool calls, thoughts, plans and
 * diffs go through the live adapter's mapper, so an imported turn looks like one Baton drove.
 * The transcript does not say how a turn ended, so turns end `unknown` (never a made-up `end_turn`);
 * an interrupt marker says `cancelled`, an API error `failed`.
 */
import { getSessionInfo, getSessionMessages, type SDKAssistantMessage, type SDKUserMessage, type SessionMessage, type SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import type { AdapterDraft } from "../../event/envelope.ts";
import type { PromptBlock } from "../../event/content.ts";
import type { StopReason } from "../../event/stop-reasons.ts";
import { turnIdField } from "../../event/id-fields.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import type { TurnId } from "../../shared/ids.ts";
import { historyBoundary } from "../history-boundary.ts";
import type { HarnessSessionInspector, InspectContext, NativeEvent, NativeHistory, NativeSessionInfo, NativeTurn, ProbeResult } from "../inspector.ts";
import { ClaudeMapper } from "./mapper.ts";
import { isClaudeSessionId, locateTranscript, readOnlyStore, readTranscript } from "./transcript.ts";

type Block = { readonly type?: unknown; readonly [key: string]: unknown };
type Line = SessionStoreEntry;

/** Stop reasons after which the model said its last word for the turn. */
const FINAL_STOP_REASONS = new Set(["end_turn", "max_tokens", "stop_sequence", "refusal", "pause_turn", "model_context_window_exceeded"]);
const INTERRUPT_MARKER = /^\[Request interrupted by user/;

interface TurnBuilder {
  readonly nativeTurnId: string;
  /** The same uuid as the mapper's turn id (its drafts' envelope is dropped here; a plan id carries it). */
  readonly turnId: TurnId;
  readonly prompt: PromptBlock[];
  readonly events: NativeEvent[];
  readonly pendingTools: Set<string>;
  startedAt: string | undefined;
  endedAt: string | undefined;
  lastStop: string | null | undefined;
  answered: boolean;
  interrupted: boolean;
  failed: boolean;
}

/** The door for a prompt line's uuid: parsed to the branded turn id the mapper takes, or the transcript is unreadable. */
function turnIdOf(uuid: string): TurnId {
  const parsed = turnIdField.safeParse(uuid);
  if (!parsed.success) throw new BatonError("native_unreadable", `a prompt of this Claude Code transcript has no uuid (${JSON.stringify(uuid)})`);
  return parsed.data;
}

const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {});

function blocksOf(message: unknown): Block[] {
  const content = record(message)["content"];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

function promptBlocks(blocks: readonly Block[]): PromptBlock[] {
  const out: PromptBlock[] = [];
  for (const block of blocks) {
    if (block.type === "text" && typeof block["text"] === "string") out.push({ type: "text", text: block["text"] });
    else if (block.type === "image") {
      const source = record(block["source"]);
      const mimeType = typeof source["media_type"] === "string" ? source["media_type"] : "image/png";
      out.push({ type: "image", mimeType, ...(typeof source["data"] === "string" ? { data: source["data"] } : {}), ...(typeof source["url"] === "string" ? { uri: source["url"] } : {}) });
    }
  }
  return out;
}

type UserLineKind = "prompt" | "tool_results" | "interrupt" | "meta";

function classifyUser(blocks: readonly Block[], line: Line | undefined): UserLineKind {
  if (line?.["isMeta"] === true || line?.["isCompactSummary"] === true || line?.["isVisibleInTranscriptOnly"] === true) return "meta";
  if (blocks.some((block) => block.type === "tool_result")) return "tool_results";
  const text = blocks.filter((block) => block.type === "text").map((block) => String(block["text"] ?? "")).join("\n").trim();
  if (INTERRUPT_MARKER.test(text)) return "interrupt";
  return blocks.length === 0 ? "meta" : "prompt";
}

function toEvents(drafts: readonly AdapterDraft[]): NativeEvent[] {
  return drafts.map((draft) => ({ kind: draft.kind, payload: draft.payload }) as NativeEvent);
}

function stopReasonOf(turn: TurnBuilder): StopReason {
  if (turn.interrupted) return "cancelled";
  if (turn.failed) return "failed";
  return "unknown";
}

/** Splits the SDK's message chain into turns; the raw lines add what the SDK leaves out. */
export function buildClaudeTurns(messages: readonly SessionMessage[], lines: readonly Line[], cwd: string): { turns: TurnBuilder[]; preamble: number } {
  const byUuid = new Map<string, Line>();
  for (const line of lines) if (typeof line.uuid === "string") byUuid.set(line.uuid, line);
  const mapper = new ClaudeMapper(cwd);
  const turns: TurnBuilder[] = [];
  let preamble = 0;
  for (const message of messages) {
    const line = byUuid.get(message.uuid);
    const timestamp = typeof line?.timestamp === "string" ? line.timestamp : undefined;
    const current = turns.at(-1);
    if (message.type === "user") {
      const blocks = blocksOf(message.message);
      const kind = classifyUser(blocks, line);
      if (kind === "meta") continue;
      if (kind === "prompt") {
        turns.push({
          nativeTurnId: message.uuid,
          turnId: turnIdOf(message.uuid),
          prompt: promptBlocks(blocks),
          events: [],
          pendingTools: new Set(),
          startedAt: timestamp,
          endedAt: timestamp,
          lastStop: undefined,
          answered: false,
          interrupted: false,
          failed: false,
        });
        continue;
      }
      if (current === undefined) {
        preamble++;
        continue;
      }
      current.endedAt = timestamp ?? current.endedAt;
      if (kind === "interrupt") {
        current.interrupted = true;
        continue;
      }
      const decision = record(line?.["permissionDecision"])["decision"];
      for (const block of blocks) {
        if (block.type !== "tool_result" || typeof block["tool_use_id"] !== "string") continue;
        current.pendingTools.delete(block["tool_use_id"]);
        if (decision === "reject") mapper.markDeclined(block["tool_use_id"]);
      }
      const sdkUser = { ...message, tool_use_result: line?.["toolUseResult"] } as unknown as SDKUserMessage;
      current.events.push(...toEvents(mapper.user(sdkUser, current.turnId)));
      continue;
    }
    if (message.type !== "assistant") continue;
    if (current === undefined) {
      preamble++;
      continue;
    }
    current.endedAt = timestamp ?? current.endedAt;
    current.answered = true;
    const api = record(message.message);
    current.lastStop = typeof api["stop_reason"] === "string" ? api["stop_reason"] : null;
    if (line?.["isApiErrorMessage"] === true || line?.["error"] !== undefined) {
      current.failed = true;
      const text = blocksOf(api).map((block) => (typeof block["text"] === "string" ? block["text"] : "")).join("").trim();
      current.events.push({ kind: "_baton_error_update", payload: { message: text === "" ? "Claude Code reported an API error" : text } });
      continue;
    }
    for (const block of blocksOf(api)) if (block.type === "tool_use" && typeof block["id"] === "string" && message.parent_tool_use_id === null) current.pendingTools.add(block["id"]);
    current.events.push(...toEvents(mapper.assistant(message as unknown as SDKAssistantMessage, current.turnId)));
  }
  return { turns, preamble };
}

/** Why the last turn is not finished yet, or undefined when it is. */
export function unfinishedReason(turn: TurnBuilder): string | undefined {
  if (turn.interrupted || turn.failed) return undefined;
  if (!turn.answered) return "its last prompt has no answer yet";
  if (turn.pendingTools.size > 0) return "a tool call of its last turn has no result yet";
  if (turn.lastStop === undefined || turn.lastStop === null || !FINAL_STOP_REASONS.has(turn.lastStop)) {
    return `its last turn stopped at '${turn.lastStop ?? "no stop reason"}' without a final answer`;
  }
  return undefined;
}

function finish(turn: TurnBuilder): NativeTurn {
  return {
    nativeTurnId: turn.nativeTurnId,
    prompt: turn.prompt,
    events: turn.events,
    stopReason: stopReasonOf(turn),
    ...(turn.startedAt === undefined ? {} : { startedAt: turn.startedAt }),
    ...(turn.endedAt === undefined ? {} : { endedAt: turn.endedAt }),
  };
}

async function sessionInfo(id: string, file: string, entries: readonly SessionStoreEntry[]): Promise<NativeSessionInfo> {
  const info = await getSessionInfo(id, { sessionStore: readOnlyStore(id, entries) }).catch(() => undefined);
  const cwdLine = entries.find((entry) => typeof entry["cwd"] === "string");
  const cwd = info?.cwd ?? (cwdLine?.["cwd"] as string | undefined);
  const title = info?.customTitle;
  const preview = info?.firstPrompt;
  return {
    id,
    location: file,
    ...(cwd === undefined ? {} : { cwd }),
    ...(title === undefined || title === "" ? {} : { title }),
    ...(preview === undefined || preview === "" ? {} : { preview }),
  };
}

export const claudeInspector: HarnessSessionInspector = {
  async probe(nativeId: string, context: InspectContext): Promise<ProbeResult> {
    const id = nativeId.trim().toLowerCase();
    if (!isClaudeSessionId(id)) return { kind: "not_found" };
    let file: string | undefined;
    try {
      file = locateTranscript(id, context.env, context.cwd);
      if (file === undefined) return { kind: "not_found" };
      return { kind: "found", session: await sessionInfo(id, file, readTranscript(file)) };
    } catch (error) {
      // Being written right now: it exists; reading it for adoption will explain why it cannot be used yet.
      if (file !== undefined && error instanceof BatonError && error.code === "native_incomplete") return { kind: "found", session: { id, location: file } };
      return { kind: "error", message: describeError(error) };
    }
  },

  async read(nativeId: string, context: InspectContext): Promise<NativeHistory> {
    const id = nativeId.trim().toLowerCase();
    const file = isClaudeSessionId(id) ? locateTranscript(id, context.env, context.cwd) : undefined;
    if (file === undefined) throw new BatonError("session_not_found", `no Claude Code session ${nativeId}`);
    const entries = readTranscript(file);
    const store = readOnlyStore(id, entries);
    let messages: SessionMessage[];
    try {
      messages = await getSessionMessages(id, { sessionStore: store });
    } catch (error) {
      throw new BatonError("native_unreadable", `the Claude Code SDK could not read session ${id}: ${describeError(error)}`, { cause: error });
    }
    const session = await sessionInfo(id, file, entries);
    const { turns } = buildClaudeTurns(messages, entries, session.cwd ?? context.cwd);
    const last = turns.at(-1);
    const unfinished = last === undefined ? undefined : unfinishedReason(last);
    if (unfinished !== undefined) {
      throw new BatonError("native_incomplete", `Claude Code session ${id} is not finished: ${unfinished}`, {
        hint: "let the turn finish in Claude Code (or interrupt it there), then try again",
      });
    }
    const finished = turns.map(finish);
    return {
      session,
      harnessSessionId: id,
      resumeState: { version: 1, data: { sessionId: id } },
      turns: finished,
      boundary: historyBoundary(finished),
    };
  },
};
