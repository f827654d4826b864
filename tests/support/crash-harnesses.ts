/** The harnesses the crash matrix runs against, each with its mock model server and scripting verbs. */
import { startMockAnthropic, type MockAnthropic } from "./mock-anthropic/client.ts";
import { lastUserText, reply } from "./mock-anthropic/script.ts";
import { makeClaudeEnv, type ClaudeTestEnv } from "./claude-env.ts";

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
  scriptSlow(when: string): Promise<void>;
  /** The turn asks to run a shell command (an approval). */
  scriptApproval(when: string): Promise<void>;
  /** Drop queued replies and the request log. */
  resetScript(): Promise<void>;
  /** The newest user text of every model request so far, in order. */
  promptsSeen(): Promise<string[]>;
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
    scriptSlow: (when) => mock!.script(reply.text("slow ".repeat(100), { chunkSize: 5, chunkDelayMs: 100, match: { lastUserIncludes: when } })),
    scriptApproval: (when) =>
      mock!.script(reply.tool("Bash", { command: "touch x.txt", description: "make a file" }, { match: { lastUserIncludes: when } }), reply.text("done", { match: { hasToolResult: true } })),
    resetScript: () => mock!.reset(),
    async promptsSeen() {
      return (await mock!.modelRequests()).map((request) => lastUserText(request.body));
    },
  };
}

export function crashHarnesses(): CrashHarness[] {
  return [claudeHarness()];
}
