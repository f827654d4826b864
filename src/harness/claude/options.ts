/** The SDK `query()` options of one Claude run: where it runs, how it asks, which model, what it resumes. */
import type { Options, SettingSource } from "@anthropic-ai/claude-agent-sdk";
import type { HarnessOpenOptions } from "../contract.ts";
import type { ClaudeConfigState } from "./config.ts";
import { createCanUseTool, type PermissionDeps } from "./permissions.ts";

export interface ClaudeSessionSettings {
  readonly executable?: string | undefined;
  readonly settingSources: SettingSource[];
  /** CLAUDE_CODE_MAX_RETRIES for the Claude Code process (retries of 429/529/5xx); undefined leaves its default. */
  readonly maxRetries?: number | undefined;
}

export interface RunOptionsInput {
  readonly open: HarnessOpenOptions;
  readonly settings: ClaudeSessionSettings;
  readonly desired: ClaudeConfigState;
  readonly permissions: Omit<PermissionDeps, "interactions" | "cwd" | "log">;
  /** Spawns Claude Code in its own process group (the SDK's `spawnClaudeCodeProcess`). */
  readonly spawn: NonNullable<Options["spawnClaudeCodeProcess"]>;
  /** The native session to resume, and (after a failed prompt) the last entry to keep. */
  readonly resume?: { readonly sessionId: string; readonly at?: string | undefined } | undefined;
}

export function buildRunOptions(input: RunOptionsInput): Options {
  const { open, desired, settings } = input;
  const options: Options = {
    cwd: open.cwd,
    // The SDK's env replaces the child's environment: the user's, plus Baton's retry bound.
    env: { ...open.env, ...(settings.maxRetries === undefined ? {} : { CLAUDE_CODE_MAX_RETRIES: String(settings.maxRetries) }) },
    includePartialMessages: true,
    systemPrompt: { type: "preset", preset: "claude_code" },
    settingSources: settings.settingSources,
    permissionMode: desired.mode,
    canUseTool: createCanUseTool({ interactions: open.interactions, cwd: open.cwd, log: open.log, ...input.permissions }),
    spawnClaudeCodeProcess: input.spawn,
  };
  if (settings.executable !== undefined) options.pathToClaudeCodeExecutable = settings.executable;
  if (desired.model !== undefined) options.model = desired.model;
  if (desired.effort !== undefined) options.effort = desired.effort;
  if (input.resume !== undefined) {
    options.resume = input.resume.sessionId;
    if (input.resume.at !== undefined) options.resumeSessionAt = input.resume.at;
  }
  return options;
}
