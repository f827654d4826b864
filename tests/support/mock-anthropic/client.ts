/** Test-side handle on the mock Anthropic server process: start, script, read the log, stop by PID. */
import path from "node:path";
import type { LoggedRequest, ScriptedReply } from "./script.ts";

export interface MockAnthropic {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  script(...replies: ScriptedReply[]): Promise<void>;
  /** Every request so far (including side and count_tokens requests). */
  requests(): Promise<LoggedRequest[]>;
  /** Main-loop model requests only (scripted or unscripted). */
  modelRequests(): Promise<LoggedRequest[]>;
  queued(): Promise<ScriptedReply[]>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

const SERVER = path.join(import.meta.dir, "server.ts");

async function readFirstLine(stream: ReadableStream<Uint8Array>, timeoutMs: number): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  try {
    while (!text.includes("\n")) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("mock anthropic server did not print its port in time");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("mock anthropic server did not print its port in time")), left);
      });
      const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (chunk.done) throw new Error(`mock anthropic server exited before printing its port: ${text}`);
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return text.slice(0, text.indexOf("\n"));
}

export async function startMockAnthropic(): Promise<MockAnthropic> {
  const child = Bun.spawn([process.execPath, SERVER], { stdout: "pipe", stderr: "inherit", stdin: "ignore" });
  let port: number;
  try {
    const line = await readFirstLine(child.stdout, 10_000);
    port = (JSON.parse(line) as { port: number }).port;
  } catch (error) {
    child.kill("SIGKILL");
    await child.exited;
    throw error;
  }
  const url = `http://127.0.0.1:${port}`;
  const call = async <T>(route: string, init?: RequestInit): Promise<T> => {
    const response = await fetch(`${url}${route}`, init);
    if (!response.ok) throw new Error(`mock control ${route} → HTTP ${response.status}`);
    return (await response.json()) as T;
  };
  const post = (route: string, body: unknown): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  let stopped = false;
  return {
    url,
    port,
    pid: child.pid,
    async script(...replies) {
      await call("/__script", post("/__script", { replies }));
    },
    requests: () => call<LoggedRequest[]>("/__requests"),
    async modelRequests() {
      const all = await call<LoggedRequest[]>("/__requests");
      return all.filter((r) => r.class === "scripted" || r.class === "unscripted");
    },
    queued: () => call<ScriptedReply[]>("/__queue"),
    async reset() {
      await call("/__reset", post("/__reset", {}));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      process.kill(child.pid, "SIGTERM");
      const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(2_000).then(() => false)]);
      if (!exited) {
        process.kill(child.pid, "SIGKILL");
        await child.exited;
      }
    },
  };
}
