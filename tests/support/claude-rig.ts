/**
 * A ClaudeAdapter opened on the real Claude Code against the mock Anthropic API, in a temp HOME, for the
 * length of one test body; the adapter is closed and the temp env removed afterwards. Not a test file.
 */
import { ClaudeAdapter } from "../../src/harness/claude/adapter.ts";
import type { ClaudeTrace } from "../../src/harness/claude/session.ts";
import type { HarnessHandle, ResumeState } from "../../src/harness/contract.ts";
import { makeClaudeEnv, type ClaudeTestEnv } from "./claude-env.ts";
import { ClaudeHost } from "./claude-host.ts";

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
