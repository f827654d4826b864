/**
 * The real Codex and the real Claude Code in one test file: both mock model servers for the file, fresh homes for
 * each test, and one environment that serves both agents (Codex reads CODEX_HOME, Claude Code its
 * CLAUDE_CONFIG_DIR). `each` receives the current set before every test.
 */
import { afterAll, beforeAll, beforeEach } from "bun:test";
import { makeClaudeEnv, type ClaudeTestEnv } from "./claude-env.ts";
import { makeCodexHome, type CodexHome } from "./codex-home.ts";
import { startMockAnthropic, type MockAnthropic } from "./mock-anthropic/client.ts";
import { startMockResponses, type MockResponses } from "./mock-responses/index.ts";

export interface TwoAgents {
  readonly codexMock: MockResponses;
  readonly claudeMock: MockAnthropic;
  readonly codex: CodexHome;
  readonly claude: ClaudeTestEnv;
  readonly env: Record<string, string>;
  readonly cwd: string;
}

export interface TwoAgentOptions {
  /** Changes Claude's environment before Codex's home is added (e.g. a git identity). */
  readonly wrapEnv?: (env: Record<string, string>) => Record<string, string>;
  /** Added last. */
  readonly extraEnv?: Record<string, string>;
}

export function useTwoAgents(each: (agents: TwoAgents) => void, options: TwoAgentOptions = {}): void {
  let codexMock: MockResponses;
  let claudeMock: MockAnthropic;
  let codex: CodexHome | undefined;
  let claude: ClaudeTestEnv | undefined;
  beforeAll(async () => {
    [codexMock, claudeMock] = await Promise.all([startMockResponses(), startMockAnthropic()]);
  });
  afterAll(async () => {
    await Promise.all([codexMock.stop(), claudeMock.stop()]);
    codex?.cleanup();
    claude?.cleanup();
  });
  beforeEach(async () => {
    await Promise.all([codexMock.reset(), claudeMock.reset()]);
    codex?.cleanup();
    claude?.cleanup();
    // Commands run without asking (Codex's own policy), so its tool activity shows.
    codex = makeCodexHome({ baseUrl: codexMock.baseUrl, approvalPolicy: "never", sandboxMode: "danger-full-access" });
    claude = makeClaudeEnv({ baseUrl: claudeMock.url });
    const base = options.wrapEnv?.(claude.env) ?? claude.env;
    const env = { ...base, CODEX_HOME: codex.env["CODEX_HOME"]!, MOCK_API_KEY: "mock-key", ...options.extraEnv };
    each({ codexMock, claudeMock, codex, claude, env, cwd: claude.cwd });
  });
}
