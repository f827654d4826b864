/**
 * One-shot structured generation (CLA-12): a separate SDK query with no tools, MCP or settings, no session
 * persistence (`persistSession:false` — no transcript is written), a utility system prompt and a JSON schema.
 */
import type { Options, query as sdkQuery } from "@anthropic-ai/claude-agent-sdk";
import type { TextGenRequest } from "../capabilities.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import { ClaudeProcesses } from "./process.ts";

export const TEXTGEN_TIMEOUT_MS = 60_000;
export const TEXTGEN_DEFAULT_MODEL = "haiku";
const UTILITY_PROMPT = "You are a small utility inside a developer tool. Answer only with the structured output requested.";

export interface TextGenDeps {
  readonly env: Readonly<Record<string, string>>;
  readonly executable?: string | undefined;
  readonly queryFn: typeof sdkQuery;
  readonly timeoutMs?: number;
}

export async function generateStructured(request: TextGenRequest, deps: TextGenDeps): Promise<unknown> {
  const abort = new AbortController();
  const timeoutMs = deps.timeoutMs ?? TEXTGEN_TIMEOUT_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  const onAbort = (): void => abort.abort();
  request.signal?.addEventListener("abort", onAbort, { once: true });
  const processes = new ClaudeProcesses();
  const options: Options = {
    cwd: request.cwd,
    env: { ...deps.env },
    persistSession: false,
    tools: [],
    mcpServers: {},
    strictMcpConfig: true,
    settingSources: [],
    systemPrompt: UTILITY_PROMPT,
    model: request.model ?? TEXTGEN_DEFAULT_MODEL,
    outputFormat: { type: "json_schema", schema: { ...request.schema } },
    abortController: abort,
    spawnClaudeCodeProcess: processes.spawn,
  };
  if (deps.executable !== undefined) options.pathToClaudeCodeExecutable = deps.executable;
  const query = deps.queryFn({ prompt: request.prompt, options });
  try {
    for await (const message of query) {
      if (message.type !== "result") continue;
      if (message.subtype === "success" && !message.is_error && message.structured_output !== undefined) return message.structured_output;
      const detail = message.subtype === "success" ? message.result || "no structured output" : message.errors.join("; ") || message.subtype;
      throw new BatonError("internal", `Claude text generation failed: ${detail}`);
    }
    throw new BatonError("internal", "Claude text generation ended without a result");
  } catch (error) {
    if (timedOut) throw new BatonError("timeout", `Claude text generation timed out after ${timeoutMs} ms`, { cause: error });
    if (error instanceof BatonError) throw error;
    throw new BatonError("internal", `Claude text generation failed: ${describeError(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", onAbort);
    query.close();
    await processes.stop({ eofGraceMs: 1_000, termGraceMs: 1_000 });
  }
}
