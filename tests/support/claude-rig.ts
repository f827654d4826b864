/**
 * The Claude rigs of the end-to-end files, against the mock Anthropic API: a ClaudeAdapter opened on the real
 * Claude Code in a temp HOME for the length of one test body (closed and removed afterwards), the file's mock
 * (`useMockAnthropic`) and a fresh env per test for the CLI files (`useClaudeEnvEach`). Not a test file.
 */
import { afterAll, beforeAll, beforeEach } from "bun:test";
import { ClaudeAdapter } from "../../src/harness/claude/adapter.ts";
import type { ClaudeTrace } from "../../src/harness/claude/session.ts";
import type { HarnessHandle, ResumeState } from "../../src/harness/contract.ts";
import { makeClaudeEnv, type ClaudeTestEnv } from "./claude-env.ts";
import { ClaudeHost } from "./claude-host.ts";
import { startMockAnthropic, type MockAnthropic } from "./mock-anthropic/client.ts";

export interface ClaudeRig {
  readonly env: ClaudeTestEnv;
  readonly host: ClaudeHost;
  readonly adapter: ClaudeAdapter;
  readonly handle: HarnessHandle;
}

export interface ClaudeRigOptions {
  /** Extra environment for Claude Code (ignored when `env` is given). */
  readonly extraEnv?: Record<string, string>;
  /** A caller-owned env (not cleaned up here), e.g. to reopen the same HOME in a second rig. */
  readonly env?: ClaudeTestEnv;
  readonly trace?: ClaudeTrace;
  readonly resumeState?: ResumeState;
}

export async function withClaudeRig(baseUrl: string, body: (rig: ClaudeRig) => Promise<void>, options: ClaudeRigOptions = {}): Promise<void> {
  const env = options.env ?? makeClaudeEnv({ baseUrl, ...(options.extraEnv ? { extra: options.extraEnv } : {}) });
  const host = new ClaudeHost();
  const adapter = new ClaudeAdapter({ env: env.env, ...(options.trace ? { trace: options.trace } : {}) });
  const open = options.resumeState === undefined ? {} : { resumeState: options.resumeState };
  const handle = await adapter.open(host.openOptions(env.cwd, env.env, open), host.sink, host.binding);
  try {
    await body({ env, host, adapter, handle });
  } finally {
    await adapter.close(handle);
    if (!options.env) env.cleanup();
  }
}

/**
 * One mock Anthropic API for the test file, reset before each test: call it at the top of a test file (it
 * registers the hooks). The value stands for the file's mock inside tests and hooks.
 */
export function useMockAnthropic(): MockAnthropic {
  let current: MockAnthropic | undefined;
  beforeAll(async () => {
    current = await startMockAnthropic();
  });
  afterAll(async () => {
    await current?.stop();
  });
  beforeEach(async () => {
    await current?.reset();
  });
  const mock = (): MockAnthropic => {
    if (current === undefined) throw new Error("the mock Anthropic API runs only inside a test or hook");
    return current;
  };
  return {
    get url() {
      return mock().url;
    },
    get port() {
      return mock().port;
    },
    get pid() {
      return mock().pid;
    },
    script: (...replies) => mock().script(...replies),
    requests: () => mock().requests(),
    modelRequests: () => mock().modelRequests(),
    queued: () => mock().queued(),
    reset: () => mock().reset(),
    stop: () => mock().stop(),
  };
}

/**
 * A fresh Claude test env before each test, pointed at `mock`, with `extra` in its environment (default: Claude
 * as Baton's default agent); the last one is removed after the file. The value stands for the current test's env.
 */
export function useClaudeEnvEach(mock: MockAnthropic, extra: Record<string, string> = { BATON_DEFAULT_AGENT: "claude" }): ClaudeTestEnv {
  let current: ClaudeTestEnv | undefined;
  // After useMockAnthropic's hooks: the mock is reset first.
  beforeEach(() => {
    current?.cleanup();
    current = makeClaudeEnv({ baseUrl: mock.url, extra });
  });
  afterAll(() => current?.cleanup());
  const env = (): ClaudeTestEnv => {
    if (current === undefined) throw new Error("the Claude test env exists only inside a test or hook");
    return current;
  };
  const field = <K extends keyof ClaudeTestEnv>(key: K) => ({ get: () => env()[key], enumerable: true });
  return Object.defineProperties(
    {
      transcriptPath: (sessionId: string) => env().transcriptPath(sessionId),
      transcripts: () => env().transcripts(),
      cleanup: () => env().cleanup(),
    },
    { root: field("root"), home: field("home"), configDir: field("configDir"), tmpDir: field("tmpDir"), batonHome: field("batonHome"), cwd: field("cwd"), env: field("env"), projectDir: field("projectDir") },
  ) as ClaudeTestEnv;
}
