/**
 * Target probe (HAR-08): the models Claude Code offers, read from a query that never receives a prompt
 * and persists nothing — no session file, no model request. Used by `/model` before the first turn.
 */
import type { ModelInfo, query as sdkQuery } from "@anthropic-ai/claude-agent-sdk";
import { BatonError, describeError } from "../../shared/errors.ts";
import { ClaudeProcesses } from "./process.ts";

export const PROBE_TIMEOUT_MS = 30_000;

export interface ProbeDeps {
  readonly queryFn: typeof sdkQuery;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly executable?: string | undefined;
  readonly timeoutMs?: number;
}

export async function probeModels(deps: ProbeDeps): Promise<ModelInfo[]> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  async function* noPrompt(): AsyncGenerator<never> {
    await released;
  }
  const processes = new ClaudeProcesses();
  const query = deps.queryFn({
    prompt: noPrompt(),
    options: {
      spawnClaudeCodeProcess: processes.spawn,
      cwd: deps.cwd,
      env: { ...deps.env },
      persistSession: false,
      settingSources: [],
      ...(deps.executable === undefined ? {} : { pathToClaudeCodeExecutable: deps.executable }),
    },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const init = await Promise.race([
      query.initializationResult(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BatonError("timeout", `Claude Code did not list its models within ${(deps.timeoutMs ?? PROBE_TIMEOUT_MS) / 1000} s`)), deps.timeoutMs ?? PROBE_TIMEOUT_MS);
      }),
    ]);
    return init.models;
  } catch (error) {
    if (error instanceof BatonError) throw error;
    throw new BatonError("harness_start_failed", `could not list Claude Code's models: ${describeError(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
    release();
    query.close();
    await processes.stop({ eofGraceMs: 1_000, termGraceMs: 1_000 });
  }
}
