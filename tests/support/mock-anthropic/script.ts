/**
 * The scripting vocabulary of the mock Anthropic Messages API, shared by the server process and the test-side client.
 * A test queues replies; each main-loop `POST /v1/messages` takes the first queued reply whose `match` passes.
 */

export type ScriptBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature?: string }
  | { readonly type: "tool_use"; readonly name: string; readonly input: Readonly<Record<string, unknown>>; readonly id?: string };

/** Optional request features a queued reply waits for (all given fields must match). */
export interface ScriptMatch {
  /** The newest user text (after the last tool_result) contains this. */
  readonly lastUserIncludes?: string;
  /** The request's `model` contains this. */
  readonly model?: string;
  /** The request offers a tool of this name. */
  readonly hasTool?: string;
  /** The last user message carries a tool_result. */
  readonly hasToolResult?: boolean;
}

export interface ScriptUsage {
  readonly input_tokens?: number;
  readonly output_tokens?: number;
  readonly cache_read_input_tokens?: number;
  readonly cache_creation_input_tokens?: number;
}

export interface MessageReply {
  readonly kind: "message";
  readonly blocks: readonly ScriptBlock[];
  readonly stopReason?: string;
  readonly usage?: ScriptUsage;
  /** Split text/thinking into pieces of this many characters (default: 2 pieces). */
  readonly chunkSize?: number;
  /** Wait this long before each delta (slow stream). */
  readonly chunkDelayMs?: number;
  /** Wait this long before sending response headers. */
  readonly firstByteDelayMs?: number;
  readonly match?: ScriptMatch;
}

export interface ErrorReply {
  readonly kind: "error";
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly match?: ScriptMatch;
}

export type ScriptedReply = MessageReply | ErrorReply;

/** How the server classified a request (see server.ts for the side-request rules). */
export type RequestClass = "scripted" | "side" | "unscripted" | "count_tokens" | "other";

export interface LoggedRequest {
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly class: RequestClass;
  /** Index of the scripted reply used, in the order replies were queued. */
  readonly replyIndex?: number;
  /** True when the client went away before the reply stream finished. */
  aborted?: boolean;
}

type AnyBlock = { readonly type?: unknown; readonly [key: string]: unknown };
type AnyMessage = { readonly role?: unknown; readonly content?: unknown };

function messagesOf(body: unknown): AnyMessage[] {
  const messages = (body as { messages?: unknown } | null)?.messages;
  return Array.isArray(messages) ? (messages as AnyMessage[]) : [];
}

function blocksOf(message: AnyMessage | undefined): AnyBlock[] {
  if (!message) return [];
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? (message.content as AnyBlock[]) : [];
}

export function lastUserMessage(body: unknown): AnyMessage | undefined {
  const messages = messagesOf(body);
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === "user") return messages[i];
  return undefined;
}

/** The newest user text: the text blocks after the last tool_result of the last user message, joined. */
export function lastUserText(body: unknown): string {
  const blocks = blocksOf(lastUserMessage(body));
  let start = 0;
  blocks.forEach((block, index) => {
    if (block.type === "tool_result") start = index + 1;
  });
  const texts = blocks.slice(start).filter((b) => b.type === "text" && typeof b["text"] === "string");
  return texts.map((b) => String(b["text"])).join("\n");
}

/** The tool_result blocks of the last user message. */
export function toolResultsOf(body: unknown): AnyBlock[] {
  return blocksOf(lastUserMessage(body)).filter((b) => b.type === "tool_result");
}

/** Every text in the request's messages (all roles), for "the model saw X" assertions. */
export function allMessageText(body: unknown): string {
  const out: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object") Object.values(value).forEach(visit);
  };
  visit(messagesOf(body));
  return out.join("\n");
}

export function toolNamesOf(body: unknown): string[] {
  const tools = (body as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.map((t) => (t as { name?: unknown }).name).filter((n): n is string => typeof n === "string");
}

export function matches(match: ScriptMatch | undefined, body: unknown): boolean {
  if (!match) return true;
  if (match.lastUserIncludes !== undefined && !lastUserText(body).includes(match.lastUserIncludes)) return false;
  if (match.model !== undefined && !String((body as { model?: unknown }).model ?? "").includes(match.model)) return false;
  if (match.hasTool !== undefined && !toolNamesOf(body).includes(match.hasTool)) return false;
  if (match.hasToolResult !== undefined && toolResultsOf(body).length > 0 !== match.hasToolResult) return false;
  return true;
}

/** Builders for tests. */
export const reply = {
  text(text: string, extra: Partial<Omit<MessageReply, "kind" | "blocks">> = {}): MessageReply {
    return { kind: "message", blocks: [{ type: "text", text }], ...extra };
  },
  blocks(blocks: readonly ScriptBlock[], extra: Partial<Omit<MessageReply, "kind" | "blocks">> = {}): MessageReply {
    return { kind: "message", blocks, ...extra };
  },
  tool(name: string, input: Readonly<Record<string, unknown>>, extra: Partial<Omit<MessageReply, "kind" | "blocks">> & { id?: string; say?: string } = {}): MessageReply {
    const { id, say, ...rest } = extra;
    const blocks: ScriptBlock[] = [];
    if (say !== undefined) blocks.push({ type: "text", text: say });
    blocks.push(id === undefined ? { type: "tool_use", name, input } : { type: "tool_use", name, input, id });
    return { kind: "message", blocks, ...rest };
  },
  error(status: number, message: string, type = "api_error"): ErrorReply {
    return { kind: "error", status, body: { type: "error", error: { type, message } } };
  },
};
