/**
 * A mock of the Anthropic Messages API, run as its own process: `bun tests/support/mock-anthropic/server.ts`.
 * Listens on 127.0.0.1, port 0, and prints one line `{"port":N}` on stdout when ready.
 *
 * Model endpoints: POST /v1/messages (SSE when `stream:true`, else one JSON Message), POST /v1/messages/count_tokens,
 * HEAD|GET /api/hello. Control endpoints: POST /__script {replies:[…]} appends to the queue, POST /__reset clears queue
 * and log, GET /__requests returns the log, GET /__queue returns what is still queued.
 *
 * Side requests (answered without consuming the queue, logged with class "side"):
 *  - non-streaming requests with `max_tokens <= 1` (Claude Code's model check after setModel);
 *  - non-streaming requests that offer no tools (small-model utility calls such as titles or summaries).
 * Everything else is a main-loop request and takes the first queued reply whose `match` passes; with nothing queued it
 * gets a plain "(mock: nothing scripted)" text reply, logged with class "unscripted" so a test can notice.
 */
import { encodeSse, jsonMessage, sseEvents } from "./sse.ts";
import { matches, reply as build, type LoggedRequest, type RequestClass, type ScriptedReply } from "./script.ts";

const queue: { reply: ScriptedReply; index: number }[] = [];
let queuedCount = 0;
let log: LoggedRequest[] = [];
let messageCounter = 0;

const LOGGED_HEADERS = ["x-api-key", "anthropic-version", "anthropic-beta", "user-agent", "x-app", "x-claude-code-session-id"];

function pickHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of LOGGED_HEADERS) {
    const value = headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}

function isSideRequest(body: Record<string, unknown>): boolean {
  if (body["stream"] === true) return false;
  const maxTokens = typeof body["max_tokens"] === "number" ? body["max_tokens"] : Infinity;
  if (maxTokens <= 1) return true;
  const tools = body["tools"];
  return !Array.isArray(tools) || tools.length === 0;
}

function takeReply(body: unknown): { reply: ScriptedReply; index: number } | undefined {
  const at = queue.findIndex((entry) => matches(entry.reply.match, body));
  if (at === -1) return undefined;
  return queue.splice(at, 1)[0];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json", ...headers } });
}

async function answerMessages(request: Request, entry: LoggedRequest & { class: RequestClass }, body: Record<string, unknown>, chosen: ScriptedReply): Promise<Response> {
  const model = typeof body["model"] === "string" ? body["model"] : "claude-mock";
  const requestId = `req_mock_${entry.index}`;
  if (chosen.kind === "error") {
    return json(chosen.body ?? { type: "error", error: { type: "api_error", message: "mock error" } }, chosen.status, {
      "request-id": requestId,
      ...chosen.headers,
    });
  }
  if (chosen.firstByteDelayMs) await sleep(chosen.firstByteDelayMs);
  const messageId = `msg_mock_${String(++messageCounter).padStart(4, "0")}`;
  if (body["stream"] !== true) return json(jsonMessage(chosen, messageId, model), 200, { "request-id": requestId });
  const events = sseEvents(chosen, messageId, model);
  const encoder = new TextEncoder();
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        for (const event of events) {
          if (event.delayMs > 0) await sleep(event.delayMs);
          if (cancelled || request.signal.aborted) break;
          controller.enqueue(encoder.encode(encodeSse(event)));
        }
      } catch {
        cancelled = true;
      }
      if (cancelled || request.signal.aborted) entry.aborted = true;
      else controller.close();
    },
    cancel() {
      cancelled = true;
      entry.aborted = true;
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": requestId },
  });
}

async function handle(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === "/__requests") return json(log);
  if (url.pathname === "/__queue") return json(queue.map((entry) => entry.reply));
  if (url.pathname === "/__reset" && request.method === "POST") {
    queue.length = 0;
    log = [];
    return json({ ok: true });
  }
  if (url.pathname === "/__script" && request.method === "POST") {
    const payload = (await request.json()) as { replies?: ScriptedReply[] };
    for (const reply of payload.replies ?? []) queue.push({ reply, index: queuedCount++ });
    return json({ queued: queue.length });
  }

  const text = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    // keep the raw text; the mock tolerates anything
  }
  const entry: LoggedRequest & { class: RequestClass } = {
    index: log.length,
    method: request.method,
    path: url.pathname,
    search: url.search,
    headers: pickHeaders(request.headers),
    body,
    class: "other",
  };
  log.push(entry);

  if (url.pathname === "/v1/messages/count_tokens") {
    entry.class = "count_tokens";
    return json({ input_tokens: Math.max(1, Math.ceil(text.length / 4)) });
  }
  if (url.pathname === "/v1/messages" && request.method === "POST") {
    const record = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
    if (isSideRequest(record)) {
      entry.class = "side";
      return answerMessages(request, entry, record, build.text("Mock side reply"));
    }
    const taken = takeReply(record);
    if (taken) {
      entry.class = "scripted";
      Object.assign(entry, { replyIndex: taken.index });
      return answerMessages(request, entry, record, taken.reply);
    }
    entry.class = "unscripted";
    return answerMessages(request, entry, record, build.text("(mock: nothing scripted)"));
  }
  return json({ ok: true });
}

const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: handle });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);

const stop = (): void => {
  void server.stop(true);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
