/** The SDK `query()` options of one Claude run: where it runs, how it asks, which model, what it resumes. */
import type { Options, SettingSource } from "@anthropic-ai/claude-agent-sdk";
import type { HarnessOpenOptions } from "../contract.ts";
import type { ClaudeConfigState } from "./config.ts";
import { createCanUseTool, type PermissionDeps } from "./permissions.ts";

export interface RunOptionsInput {
  readonly open: HarnessOpenOptions;
  readonly settingSources: SettingSource[];
  readonly executable: string | undefined;
  readonly desired: ClaudeConfigState;
  readonly permissions: Omit<PermissionDeps, "interactions" | "cwd" | "log">;
  /** Spawns Claude Code in its own process group (the SDK's `spawnClaudeCodeProcess`). */
  readonly spawn: NonNullable<Options["spawnClaudeCodeProcess"]>;
  /** The native session to resume, and (after a failed prompt) the last entry to keep. */
  readonly resume?: { readonly sessionId: string; readonly at?: string | undefined } | undefined;
}

export function buildRunOptions(input: RunOptionsInput): Options {
  const { open, desired } = input;
  const options: Options = {
    cwd: open.cwd,
    env: { ...open.env },
    includePartialMessages: true,
    systemPrompt: { type: "preset", preset: "claude_code" },
    settingSources: input.settingSources,
    permissionMode: desired.mode,
    canUseTool: createCanUseTool({ interactions: open.interactions, cwd: open.cwd, log: open.log, ...input.permissions }),
    spawnClaudeCodeProcess: input.spawn,
  };
  if (input.executable !== undefined) options.pathToClaudeCodeExecutable = input.executable;
  if (desired.model !== undefined) options.model = desired.model;
  if (desired.effort !== undefined) options.effort = desired.effort;
  if (input.resume !== undefined) {
    options.resume = input.resume.sessionId;
    if (input.resume.at !== undefined) options.resumeSessionAt = input.resume.at;
  }
  return options;
}
