/** The Claude Code adapter (inventory §2.12): one ClaudeSession per handle; capabilities compact, config, textgen. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { query as sdkQuery, type ModelInfo } from "@anthropic-ai/claude-agent-sdk";
import {
  supportedPromptBlocks,
  type Capabilities,
  type Compactable,
  type Configurable,
  type SessionConfigOption,
  type TextGenerating,
  type TextGenRequest,
} from "../capabilities.ts";
import { unsupportedBlocks, type BindingSink, type EventSink, type HarnessAdapter, type HarnessHandle, type HarnessOpenOptions, type PromptInput, type SendTurnResult } from "../contract.ts";
import type { HandleId, TurnId } from "../../shared/ids.ts";
import { silentLogger, type Logger } from "../../shared/log.ts";
import { BatonError } from "../../shared/errors.ts";
import { buildConfigOptions, updateConfigState, type ClaudeConfigState } from "./config.ts";
import { resolveClaudeExecutable } from "./executable.ts";
import { ClaudeSession, type ClaudeTrace } from "./session.ts";
import { generateStructured } from "./textgen.ts";
import { probeModels } from "./probe.ts";
import { CLAUDE_CAPABILITIES } from "./capabilities.ts";
import { settingSourcesOf } from "./settings.ts";
import type { ConfigId } from "../../shared/config-ids.ts";

export interface ClaudeAdapterOptions {
  /** The target's settings: `executable`, `settingSources` (default user, project, local). */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Environment for work without a session (textgen); sessions use HarnessOpenOptions.env. */
  readonly env?: Readonly<Record<string, string>>;
  readonly log?: Logger;
  /** Raw SDK traffic: "in" = SDK messages, "out" = pushed user messages and control calls. */
  readonly trace?: ClaudeTrace;
  /** The SDK's query(), replaceable for tests. */
  readonly queryFn?: typeof sdkQuery;
}

/**
 * How often Claude Code retries a failed API request (429, 529, 5xx, connection errors), passed as
 * CLAUDE_CODE_MAX_RETRIES: `harnesses.claude.maxRetries`, else the user's own CLAUDE_CODE_MAX_RETRIES, else
 * Baton's default (Claude Code's own default waits minutes before a turn fails).
 */
export const DEFAULT_MAX_RETRIES = 4;

export function maxRetriesOf(configured: unknown, env: Readonly<Record<string, string>>): number {
  if (typeof configured === "number" && Number.isInteger(configured) && configured >= 0) return configured;
  const inherited = Number(env["CLAUDE_CODE_MAX_RETRIES"]);
  return env["CLAUDE_CODE_MAX_RETRIES"] !== undefined && env["CLAUDE_CODE_MAX_RETRIES"] !== "" && Number.isInteger(inherited) && inherited >= 0 ? inherited : DEFAULT_MAX_RETRIES;
}

export class ClaudeAdapter implements HarnessAdapter, Compactable, Configurable, TextGenerating {
  readonly capabilities: Capabilities = CLAUDE_CAPABILITIES;
  private readonly sessions = new Map<HandleId, ClaudeSession>();
  private readonly settings: Readonly<Record<string, unknown>>;
  private readonly queryFn: typeof sdkQuery;
  private readonly log: Logger;
  private readonly defaults: ClaudeConfigState = { mode: "default" };
  private models: ModelInfo[] | undefined;

  constructor(private readonly options: ClaudeAdapterOptions = {}) {
    this.settings = options.settings ?? {};
    this.queryFn = options.queryFn ?? sdkQuery;
    this.log = options.log ?? silentLogger;
  }

  async open(options: HarnessOpenOptions, sink: EventSink, binding: BindingSink): Promise<HarnessHandle> {
    const executable = resolveClaudeExecutable(this.settings, options.env);
    if (!executable.ok) throw new BatonError("harness_missing", "Claude Code executable not found", { hint: executable.hint });
    if (path.isAbsolute(executable.path) && !fs.existsSync(executable.path)) {
      throw new BatonError("harness_missing", `Claude Code executable not found: ${executable.path} (from ${executable.source})`, {
        hint: "Fix harnesses.claude.executable / BATON_CLAUDE_BIN, or unset them to use the bundled binary.",
      });
    }
    const handle: HarnessHandle = { id: options.ids.mint("handle") };
    const resumable = resumeIdOf(options) === undefined || transcriptExists(options.env, resumeIdOf(options)!);
    if (!resumable) binding.markFresh?.(`Claude Code has no transcript for session ${resumeIdOf(options)}`);
    const { resumeState: _unusable, ...withoutResume } = options;
    const withDefaults: HarnessOpenOptions = {
      ...(resumable ? options : withoutResume),
      ...(options.model === undefined && this.defaults.model !== undefined ? { model: this.defaults.model } : {}),
      ...(options.effort === undefined && this.defaults.effort !== undefined ? { effort: this.defaults.effort } : {}),
      ...(options.mode === undefined ? { mode: this.defaults.mode } : {}),
    };
    const session = new ClaudeSession({
      handle,
      open: withDefaults,
      sink,
      binding,
      settings: { executable: executable.path, settingSources: settingSourcesOf(this.settings), maxRetries: maxRetriesOf(this.settings["maxRetries"], options.env) },
      queryFn: this.queryFn,
      trace: this.options.trace,
      onInitialization: (init) => {
        if (init.models.length > 0) this.models = init.models;
      },
    });
    this.sessions.set(handle.id, session);
    return handle;
  }

  private session(handle: HarnessHandle): ClaudeSession {
    const session = this.sessions.get(handle.id);
    if (!session) throw new BatonError("contract_violation", `unknown Claude handle ${handle.id}`);
    return session;
  }

  async sendTurn(handle: HarnessHandle, input: PromptInput): Promise<SendTurnResult> {
    const session = this.session(handle);
    const unsupported = unsupportedBlocks(input.blocks, supportedPromptBlocks(this.capabilities));
    if (unsupported.length > 0) {
      throw new BatonError("prompt_unsupported", `Claude does not accept ${unsupported.join(", ")} prompt blocks`);
    }
    const texts = input.blocks.flatMap((block) => (block.type === "text" ? [{ type: "text" as const, text: block.text }] : []));
    const content = texts.length === 1 && texts[0] ? texts[0].text : texts;
    return session.sendTurn(input, content);
  }

  async cancel(handle: HarnessHandle, turnId: TurnId): Promise<void> {
    await this.sessions.get(handle.id)?.cancel(turnId);
  }

  async close(handle: HarnessHandle): Promise<void> {
    const session = this.sessions.get(handle.id);
    if (!session) return;
    this.sessions.delete(handle.id);
    await session.close();
  }

  async compactContext(handle: HarnessHandle, turnId: TurnId): Promise<SendTurnResult> {
    return this.session(handle).compact(turnId);
  }

  async getConfig(handle: HarnessHandle | undefined): Promise<readonly SessionConfigOption[]> {
    const session = handle === undefined ? undefined : this.session(handle);
    // Before any query ran there is nothing to ask but a session-less probe (HAR-08).
    if (session?.hasStarted() !== true && this.models === undefined) await this.discoverModels(session?.context());
    if (session !== undefined) return session.configOptions(this.models);
    return buildConfigOptions(this.defaults, this.models, undefined);
  }

  /** HAR-08: ask Claude Code for its models without a session; on failure the fallback list stays. */
  private async discoverModels(context: { cwd: string; env: Readonly<Record<string, string>> } | undefined): Promise<void> {
    const env = context?.env ?? this.options.env ?? {};
    const executable = resolveClaudeExecutable(this.settings, env);
    if (!executable.ok) return;
    try {
      const models = await probeModels({ queryFn: this.queryFn, cwd: context?.cwd ?? process.cwd(), env, executable: executable.path });
      if (models.length > 0) this.models ??= models;
    } catch (error) {
      this.log.log("warn", `could not list Claude Code's models: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async setConfig(handle: HarnessHandle | undefined, id: ConfigId, value: string): Promise<void> {
    if (handle !== undefined) return this.session(handle).setConfig(id, value);
    updateConfigState(this.defaults, id, value);
  }

  async generateStructured(request: TextGenRequest): Promise<unknown> {
    const env = this.options.env ?? {};
    const executable = resolveClaudeExecutable(this.settings, env);
    if (!executable.ok) throw new BatonError("harness_missing", "Claude Code executable not found", { hint: executable.hint });
    return generateStructured(request, { env, executable: executable.path, queryFn: this.queryFn });
  }
}

function resumeIdOf(options: HarnessOpenOptions): string | undefined {
  const id = options.resumeState?.version === 1 ? options.resumeState.data["sessionId"] : undefined;
  return typeof id === "string" && id.length > 0 ? id : undefined;
}

/** Claude Code keeps one transcript per session under `<config dir>/projects/<project>/<id>.jsonl`. */
function transcriptExists(env: Readonly<Record<string, string>>, sessionId: string): boolean {
  const configDir = env["CLAUDE_CONFIG_DIR"] ?? path.join(env["HOME"] ?? os.homedir(), ".claude");
  const projects = path.join(configDir, "projects");
  let dirs: string[];
  try {
    dirs = fs.readdirSync(projects);
  } catch {
    return false;
  }
  return dirs.some((dir) => fs.existsSync(path.join(projects, dir, `${sessionId}.jsonl`)));
}
