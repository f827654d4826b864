/**
 * A scriptable mock of the OpenAI Responses API (`POST /v1/responses`, SSE) for driving the real
 * `codex` binary offline. Run as its own process: `bun tests/support/mock-responses/server.ts`;
 * it listens on 127.0.0.1 port 0 and prints `LISTENING <port>`. Control endpoints:
 *   POST /__script  {replies: MockReply[], append?: boolean}   set (or extend) the reply queue
 *   GET  /__requests                                          every request received so far
 *   POST /__reset                                             clear queue and log
 */
import { DEFAULT_USAGE, type MockReply, type MockRequest, type MockUsage } from "./script.ts";

let queue: MockReply[] = [];
let requests: MockRequest[] = [];
let counter = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

function usageOf(usage: MockUsage) {
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}

function chunks(text: string, size: number): string[] {
  if (text.length === 0) return [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

type Event = { type: string; [key: string]: unknown };
type Step = Event | { type: "__delay"; ms: number };
const delay = (ms: number): Step => ({ type: "__delay", ms });

function steps(reply: MockReply, responseId: string): Step[] {
  const created: Event = { type: "response.created", response: { id: responseId } };
  const completed = (usage: MockUsage = DEFAULT_USAGE): Event => ({
    type: "response.completed",
    response: { id: responseId, usage: usageOf(usage), output: [] },
  });
  switch (reply.kind) {
    case "text": {
      const out: Step[] = [created];
      let index = 0;
      if (reply.reasoning !== undefined && reply.reasoning.length > 0) {
        const id = `rs_${responseId}`;
        out.push({ type: "response.output_item.added", output_index: index, item: { type: "reasoning", id, summary: [] } });
        reply.reasoning.forEach((part, summaryIndex) => {
          out.push({ type: "response.reasoning_summary_part.added", item_id: id, output_index: index, summary_index: summaryIndex, part: { type: "summary_text", text: "" } });
          out.push({ type: "response.reasoning_summary_text.delta", item_id: id, output_index: index, summary_index: summaryIndex, delta: part });
        });
        out.push({
          type: "response.output_item.done",
          output_index: index,
          item: { type: "reasoning", id, summary: reply.reasoning.map((text) => ({ type: "summary_text", text })) },
        });
        index++;
      }
      const id = `msg_${responseId}`;
      out.push({ type: "response.output_item.added", output_index: index, item: { type: "message", id, role: "assistant", content: [] } });
      const pieces = chunks(reply.text, reply.chunkSize ?? Math.max(1, Math.ceil(reply.text.length / 3)));
      pieces.forEach((delta, i) => {
        if (i > 0 && (reply.delayMs ?? 0) > 0) out.push(delay(reply.delayMs as number));
        out.push({ type: "response.output_text.delta", item_id: id, output_index: index, content_index: 0, delta });
      });
      out.push({
        type: "response.output_item.done",
        output_index: index,
        item: { type: "message", id, role: "assistant", status: "completed", content: [{ type: "output_text", text: reply.text, annotations: [] }] },
      });
      out.push(completed(reply.usage));
      return out;
    }
    case "exec": {
      const args: Record<string, unknown> = { cmd: reply.cmd, yield_time_ms: 10_000 };
      if (reply.escalate === true) {
        args["sandbox_permissions"] = "require_escalated";
        args["justification"] = reply.justification ?? "The mock model needs to write a file.";
      }
      const item = { type: "function_call", id: `fc_${responseId}`, call_id: reply.callId ?? `call_${responseId}`, name: "exec_command", arguments: JSON.stringify(args) };
      return [created, { type: "response.output_item.added", output_index: 0, item }, { type: "response.output_item.done", output_index: 0, item }, completed()];
    }
    case "apply_patch": {
      const item = { type: "custom_tool_call", id: `ctc_${responseId}`, call_id: reply.callId ?? `call_${responseId}`, name: "apply_patch", input: reply.patch };
      return [created, { type: "response.output_item.added", output_index: 0, item }, { type: "response.output_item.done", output_index: 0, item }, completed()];
    }
    case "fail":
      return [created, { type: "response.failed", response: { id: responseId, error: { code: reply.code ?? "server_error", message: reply.message } } }];
    case "hang":
      return [created, delay(3_600_000)];
    case "http_error":
      return [];
  }
}

function sse(plan: Step[], entry: MockRequest): Response {
  const encoder = new TextEncoder();
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const step of plan) {
        if (cancelled) return;
        if (step.type === "__delay") {
          const until = Date.now() + (step.ms as number);
          while (!cancelled && Date.now() < until) await sleep(Math.min(20, until - Date.now()));
          continue;
        }
        try {
          controller.enqueue(encoder.encode(`event: ${step.type}\ndata: ${JSON.stringify(step)}\n\n`));
        } catch {
          cancelled = true;
          entry.aborted = true;
          return;
        }
      }
      if (!cancelled) controller.close();
    },
    cancel() {
      cancelled = true;
      entry.aborted = true;
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

async function responses(req: Request, url: URL): Promise<Response> {
  const text = await req.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the raw text
  }
  const reply = queue.shift();
  const entry: MockRequest = {
    index: requests.length,
    method: req.method,
    path: url.pathname,
    headers: Object.fromEntries(req.headers.entries()),
    body,
    receivedAt: Date.now(),
    reply: reply?.kind ?? "default",
  };
  requests.push(entry);
  req.signal.addEventListener("abort", () => (entry.aborted = true));
  const effective: MockReply = reply ?? { kind: "text", text: "ok" };
  if (effective.kind === "http_error") {
    return new Response(effective.body, { status: effective.status, headers: { "content-type": "application/json" } });
  }
  return sse(steps(effective, `resp_${++counter}`), entry);
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (req.method === "POST" && url.pathname.endsWith("/responses")) return responses(req, url);
    if (req.method === "POST" && url.pathname === "/__script") {
      const body = (await req.json()) as { replies: MockReply[]; append?: boolean };
      queue = body.append === true ? [...queue, ...body.replies] : [...body.replies];
      return json({ queued: queue.length });
    }
    if (req.method === "GET" && url.pathname === "/__requests") return json(requests);
    if (req.method === "GET" && url.pathname === "/__queue") return json(queue);
    if (req.method === "POST" && url.pathname === "/__reset") {
      queue = [];
      requests = [];
      return json({ ok: true });
    }
    requests.push({ index: requests.length, method: req.method, path: url.pathname, headers: Object.fromEntries(req.headers.entries()), body: null, receivedAt: Date.now() });
    return json({ error: { message: `mock: no route for ${req.method} ${url.pathname}` } }, 404);
  },
});

process.stdout.write(`LISTENING ${server.port}\n`);
// Exit when the parent goes away: it holds our stdin open, so EOF means it is gone.
void (async () => {
  for await (const _ of Bun.stdin.stream()) {
    // ignore input
  }
  void server.stop(true);
  process.exit(0);
})();
process.on("SIGTERM", () => {
  void server.stop(true);
  process.exit(0);
});
