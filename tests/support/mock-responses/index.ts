/**
 * Test helper for the mock Responses API server: starts it as its own process on 127.0.0.1
 * port 0, scripts it, reads its request log, and stops it by PID.
 */
import path from "node:path";
import type { MockReply, MockRequest } from "./script.ts";

export type { MockReply, MockRequest, MockUsage } from "./script.ts";

const SERVER = path.join(import.meta.dir, "server.ts");

export interface MockResponses {
  readonly port: number;
  /** `http://127.0.0.1:<port>/v1` — what a model provider's base_url should be. */
  readonly baseUrl: string;
  readonly pid: number;
  /** Replace the reply queue (or append to it). */
  script(replies: readonly MockReply[], options?: { append?: boolean }): Promise<void>;
  /** Every `/v1/responses` request received so far, oldest first. */
  requests(): Promise<MockRequest[]>;
  /** Replies not consumed yet. */
  queue(): Promise<MockReply[]>;
  reset(): Promise<void>;
  /** Kill the server process by PID and wait for it to exit. Idempotent. */
  stop(): Promise<void>;
}

export async function startMockResponses(): Promise<MockResponses> {
  const child = Bun.spawn([process.execPath, SERVER], { stdout: "pipe", stderr: "inherit", stdin: "pipe" });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const deadline = Date.now() + 10_000;
  let port: number | undefined;
  while (port === undefined) {
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("mock responses server did not print LISTENING within 10 s");
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`mock responses server exited before listening (code ${String(await child.exited)})`);
    buffered += decoder.decode(value, { stream: true });
    const match = /LISTENING (\d+)/.exec(buffered);
    if (match) port = Number(match[1]);
  }
  reader.releaseLock();
  // Keep the stdin pipe referenced for the server's lifetime: the server exits on EOF, and an
  // unreferenced pipe would be collected (and closed) by the GC.
  const stdin = child.stdin;
  const root = `http://127.0.0.1:${port}`;
  const pid = child.pid;
  let stopped = false;
  const call = async (method: string, route: string, body?: unknown): Promise<unknown> => {
    const init: RequestInit = body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } };
    const response = await fetch(`${root}${route}`, init);
    return response.json();
  };
  return {
    port,
    baseUrl: `${root}/v1`,
    pid,
    async script(replies, options = {}) {
      await call("POST", "/__script", { replies, append: options.append === true });
    },
    async requests() {
      return (await call("GET", "/__requests")) as MockRequest[];
    },
    async queue() {
      return (await call("GET", "/__queue")) as MockReply[];
    },
    async reset() {
      await call("POST", "/__reset");
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        void stdin.end();
      } catch {
        // already closed
      }
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, 2_000);
      await child.exited;
      clearTimeout(timer);
    },
  };
}

/** The texts of every `message` input item of a request, with its role. */
export function inputMessages(request: MockRequest): { role: string; text: string }[] {
  const body = request.body as { input?: unknown } | null;
  const input = Array.isArray(body?.input) ? (body.input as Record<string, unknown>[]) : [];
  const out: { role: string; text: string }[] = [];
  for (const item of input) {
    if (item["type"] !== "message" && !("role" in item)) continue;
    const content = item["content"];
    let text = "";
    if (typeof content === "string") text = content;
    else if (Array.isArray(content)) {
      for (const part of content as Record<string, unknown>[]) if (typeof part["text"] === "string") text += part["text"];
    }
    out.push({ role: String(item["role"]), text });
  }
  return out;
}

/** The `input` items of a request (for asserting on function_call / custom_tool_call history). */
export function inputItems(request: MockRequest): Record<string, unknown>[] {
  const body = request.body as { input?: unknown } | null;
  return Array.isArray(body?.input) ? (body.input as Record<string, unknown>[]) : [];
}
