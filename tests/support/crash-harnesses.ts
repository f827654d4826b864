/** The harnesses the crash matrix runs against, each with its mock model server and scripting verbs. */
import { startMockAnthropic, type MockAnthropic } from "./mock-anthropic/client.ts";
import { lastUserText, reply } from "./mock-anthropic/script.ts";
import { makeClaudeEnv, type ClaudeTestEnv } from "./claude-env.ts";
import { startMockResponses, type MockResponses } from "./mock-responses/index.ts";
import { makeCodexHome, type CodexHome } from "./codex-home.ts";
import fs from "node:fs";
import path from "node:path";
import { acpAgentCommand } from "./acp-rig.ts";

export interface CrashEnv {
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly batonHome: string;
}

export interface CrashHarness {
  readonly name: string;
  readonly target: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  freshEnv(): Promise<CrashEnv>;
  /** Scripted replies answer only a prompt whose newest user text includes `when`. */
  scriptText(text: string, when: string): Promise<void>;
  /** A text reply streamed slowly: `words` chunks (default 100), one every 100 ms. */
  scriptSlow(when: string, words?: number): Promise<void>;
  /** The turn asks to run a shell command (an approval). */
  scriptApproval(when: string): Promise<void>;
  /** Drop queued replies and the request log. */
  resetScript(): Promise<void>;
  /** The newest user text of every model request so far, in order. */
  promptsSeen(): Promise<string[]>;
  /** Every model request body so far as text (catch-up may travel outside the user message). */
  requestsSeen(): Promise<string[]>;
}

function claudeHarness(): CrashHarness {
  let mock: MockAnthropic | undefined;
  let env: ClaudeTestEnv | undefined;
  return {
    name: "claude",
    target: "claude",
    async start() {
      mock = await startMockAnthropic();
    },
    async stop() {
      env?.cleanup();
      await mock?.stop();
    },
    async freshEnv() {
      env?.cleanup();
      await mock!.reset();
      env = makeClaudeEnv({ baseUrl: mock!.url });
      return { env: env.env, cwd: env.cwd, batonHome: env.batonHome };
    },
    scriptText: (text, when) => mock!.script(reply.text(text, { match: { lastUserIncludes: when } })),
    scriptSlow: (when, words = 100) => mock!.script(reply.text("slow ".repeat(words), { chunkSize: 5, chunkDelayMs: 100, match: { lastUserIncludes: when } })),
    scriptApproval: (when) =>
      mock!.script(reply.tool("Bash", { command: "touch x.txt", description: "make a file" }, { match: { lastUserIncludes: when } }), reply.text("done", { match: { hasToolResult: true } })),
    resetScript: () => mock!.reset(),
    async promptsSeen() {
      return (await mock!.modelRequests()).map((request) => lastUserText(request.body));
    },
    async requestsSeen() {
      return (await mock!.modelRequests()).map((request) => JSON.stringify(request.body));
    },
  };
}

/** The newest user message text of a Responses API request body. */
export function codexLastUserText(body: unknown): string {
  const input = (body as { input?: unknown } | null)?.input;
  if (!Array.isArray(input)) return "";
  for (let index = input.length - 1; index >= 0; index--) {
    const item = input[index] as { type?: string; role?: string; content?: unknown };
    if (item.role !== "user" || !Array.isArray(item.content)) continue;
    return (item.content as { type?: string; text?: string }[]).map((part) => part.text ?? "").join("");
  }
  return "";
}

function codexHarness(): CrashHarness {
  let mock: MockResponses | undefined;
  let home: CodexHome | undefined;
  return {
    name: "codex",
    target: "codex",
    async start() {
      mock = await startMockResponses();
    },
    async stop() {
      home?.cleanup();
      await mock?.stop();
    },
    async freshEnv() {
      home?.cleanup();
      await mock!.reset();
      home = makeCodexHome({ baseUrl: mock!.baseUrl, approvalPolicy: "on-request", sandboxMode: "read-only" });
      const batonHome = path.join(home.root, "baton");
      return { env: { ...home.env, BATON_HOME: batonHome }, cwd: home.workdir, batonHome };
    },
    // Replies are consumed in order; a turn that never reached the model leaves its reply for resetScript.
    scriptText: (text) => mock!.script([{ kind: "text", text }], { append: true }),
    scriptSlow: (_when, words = 100) => mock!.script([{ kind: "text", text: "slow ".repeat(words), chunkSize: 5, delayMs: 100 }], { append: true }),
    scriptApproval: () => mock!.script([{ kind: "exec", cmd: "echo x > x.txt", escalate: true }, { kind: "text", text: "done" }], { append: true }),
    resetScript: () => mock!.reset(),
    async promptsSeen() {
      return (await mock!.requests()).map((request) => codexLastUserText(request.body));
    },
    async requestsSeen() {
      return (await mock!.requests()).map((request) => JSON.stringify(request.body));
    },
  };
}

/** claude-agent-acp as an ACP target (`claude-acp` in config.yaml), against the same mock Anthropic API. */
export function claudeAcpHarness(): CrashHarness {
  const inner = claudeHarness();
  return {
    ...inner,
    name: "claude-agent-acp",
    target: "claude-acp",
    async freshEnv() {
      const env = await inner.freshEnv();
      fs.mkdirSync(env.batonHome, { recursive: true });
      const command = JSON.stringify(acpAgentCommand("claude-agent-acp"));
      fs.writeFileSync(path.join(env.batonHome, "config.yaml"), `targets:\n  claude-acp:\n    harness: acp\n    command: ${command}\n    mode: default\n`);
      return env;
    },
  };
}

export function crashHarnesses(): CrashHarness[] {
  return [claudeHarness(), codexHarness()];
}
