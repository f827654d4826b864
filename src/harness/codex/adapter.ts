/**
 * The Codex adapter: drives `codex app-server` (JSON-RPC over stdio) per HAR-05.
 * A handle whose app-server died stays dead: `sendTurn` then throws BatonError("harness_dead")
 * before accepting, and the host re-opens with the stored resumeState (the thread is resumed).
 */
import { CODEX_CAPABILITIES } from "./capabilities.ts";
import { supportedPromptBlocks, type ApprovalRouting, type Capabilities, type Compactable, type Configurable, type ContextSynchronizable, type Reconcilable, type ReconcileResult, type SessionConfigOption, type TextGenerating, type TextGenRequest } from "../capabilities.ts";
import fs from "node:fs";
import path from "node:path";
import type { PromptBlock } from "../../event/content.ts";
import { unsupportedBlocks, type BindingSink, type EventSink, type HarnessAdapter, type HarnessHandle, type HarnessOpenOptions, type PromptInput, type ResumeState, type SendTurnResult } from "../contract.ts";
import { BatonError, describeError, isBatonError } from "../../shared/errors.ts";
import type { HandleId, TurnId } from "../../shared/ids.ts";
import { silentLogger, type Logger } from "../../shared/log.ts";
import { CodexConfig } from "./config.ts";
import type { ConfigId } from "../../shared/config-ids.ts";
import { INSTALL_HINT, resolveCodexCommand } from "./executable.ts";
import { JsonRpcError, type WireTrace } from "../../rpc/jsonrpc.ts";
import { inheritedEnv } from "../../rpc/child-process.ts";
import { describeExit, type ProcessHandle } from "../../rpc/process-handle.ts";
import type { SpawnPort } from "../../rpc/rpc-child.ts";
import { CLIENT_VERSION } from "./app-server.ts";
import { HookTrustStore } from "./hook-trust-store.ts";
import { HOOK_BYPASS_CONFIG, needsHookPreflight, preflightHookTrust, verifyHookTrust, withHookBypass } from "./hook-trust.ts";
import { CodexSession } from "./session.ts";
import { codexSettingsOf } from "./settings.ts";
import { generateStructuredWithCodex } from "./textgen.ts";
import { probeCodexModels } from "./model-probe.ts";
import { CONTROL_TIMEOUT_MS, RECONCILE_TIMEOUT_MS, SETUP_TIMEOUT_MS } from "./wire.ts";
import { trackFailedTurns } from "./failed-turns.ts";
import type { ExecutableReport } from "../definition.ts";
import type { AdapterDraft } from "../../event/envelope.ts";
import type { CodexPrelaunch } from "./prelaunch.ts";
import type { ThreadStartParams } from "./protocol/v2/ThreadStartParams";
import type { ThreadStartResponse } from "./protocol/v2/ThreadStartResponse";

export const RESUME_STATE_VERSION = 1;

export interface CodexAdapterOptions {
  /** The target's `harnesses.codex` settings: `command`, `approvalPolicy`, `sandbox`, `approvalsReviewer`. */
  readonly settings?: Readonly<Record<string, unknown>>;
  readonly log?: Logger;
  /** Raw native wire trace (the app writes it to `native-<target>.jsonl`). */
  readonly trace?: WireTrace;
  readonly clientVersion?: string;
  /** Where the installed @openai/codex package is looked up from (tests); null disables that step. */
  readonly installedFrom?: string | null;
  /** The process port (tests pass an in-memory app-server). */
  readonly spawn?: SpawnPort;
  /** Baton's state directory (`$BATON_HOME/state`): saved hook trust lives in `hook.json` there (COD-05). */
  readonly stateDir?: string;
  /** The target's environment overrides (e.g. CODEX_HOME), for processes started before any open. */
  readonly env?: Readonly<Record<string, string>>;
  /** Where an app-server started ahead of open waits (exec); a launch that matches it exactly adopts it. */
  readonly prelaunch?: CodexPrelaunch | undefined;
}

type Launch = Extract<ExecutableReport, { ok: true }>;

export { CODEX_CAPABILITIES };

/** The thread id inside a v1 resume state; other versions are not reinterpreted. */
export function resumeThreadId(state: ResumeState | undefined): string | undefined {
  if (state === undefined || state.version !== RESUME_STATE_VERSION) return undefined;
  const threadId = state.data["threadId"];
  return typeof threadId === "string" && threadId !== "" ? threadId : undefined;
}

/** A definite "this thread does not exist" from thread/resume (then a fresh thread is started). */
export function isThreadNotFound(error: unknown): boolean {
  return error instanceof JsonRpcError && /no rollout found|thread not found|not found for thread|unknown thread/i.test(error.message);
}

export class CodexAdapter implements HarnessAdapter, Compactable, Configurable, ContextSynchronizable, Reconcilable, ApprovalRouting, TextGenerating {
  readonly capabilities: Capabilities = CODEX_CAPABILITIES;
  private readonly settings: Readonly<Record<string, unknown>>;
  private readonly log: Logger;
  private readonly options: CodexAdapterOptions;
  private readonly sessions = new Map<HandleId, CodexSession>();
  private readonly hookTrust: HookTrustStore | undefined;
  private config: CodexConfig = new CodexConfig({});
  /** The environment of the last open (textgen runs with the same one). */
  private lastEnv: Readonly<Record<string, string>> | undefined;

  constructor(options: CodexAdapterOptions = {}) {
    this.options = options;
    this.settings = options.settings ?? {};
    this.log = options.log ?? silentLogger;
    this.hookTrust = options.stateDir === undefined ? undefined : new HookTrustStore(path.join(options.stateDir, "hook.json"));
  }

  /** thread/start|resume overrides: only what the user set in Baton's config (COD-03); Codex's own config otherwise. */
  threadOverrides(): Pick<ThreadStartParams, "approvalPolicy" | "sandbox" | "approvalsReviewer"> {
    const { approvalPolicy, sandbox, approvalsReviewer } = codexSettingsOf(this.settings);
    return {
      ...(approvalPolicy !== undefined ? { approvalPolicy } : {}),
      ...(sandbox !== undefined ? { sandbox } : {}),
      ...(approvalsReviewer !== undefined ? { approvalsReviewer } : {}),
    };
  }

  async open(options: HarnessOpenOptions, sink: EventSink, binding: BindingSink): Promise<HarnessHandle> {
    const log = options.log;
    const report = resolveCodexCommand(this.settings, options.env, this.options.installedFrom === undefined ? {} : { installedFrom: this.options.installedFrom });
    if (!report.ok) {
      throw new BatonError("harness_missing", `Codex is not installed or not configured. Searched: ${report.searched.join("; ")}.`, { hint: report.hint });
    }
    this.config = new CodexConfig({
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.effort !== undefined ? { effort: options.effort } : {}),
      ...(options.mode !== undefined ? { mode: options.mode } : {}),
    });
    this.lastEnv = options.env;
    let session = await this.launch(report, report.argv, options, sink);
    try {
      const bypassHooks = needsHookPreflight(report.argv) ? await this.preflightHooks(report, options, sink, session) : undefined;
      if (bypassHooks !== undefined) session = bypassHooks.session;
      const params: ThreadStartParams = {
        cwd: options.cwd,
        ...this.threadOverrides(),
        ...(this.config.model !== undefined ? { model: this.config.model } : {}),
        ...(bypassHooks?.bypass === true ? { config: { ...HOOK_BYPASS_CONFIG } } : {}),
      };
      const resumeId = resumeThreadId(options.resumeState);
      let response: ThreadStartResponse | undefined;
      let fresh = true;
      if (resumeId !== undefined) {
        try {
          response = await session.call("thread/resume", { ...params, threadId: resumeId, excludeTurns: true }, SETUP_TIMEOUT_MS);
          fresh = false;
        } catch (error) {
          if (!isThreadNotFound(error)) throw error;
          log.log("info", `codex thread ${resumeId} not found; starting a new thread`, { error });
        }
      }
      response ??= await session.call("thread/start", params, SETUP_TIMEOUT_MS);
      const threadId = response.thread.id;
      const revert = (beforeTurnId: string) => session.call("thread/revert", { threadId, beforeTurnId }, CONTROL_TIMEOUT_MS);
      session.adoptThread(response, trackFailedTurns({ threadId, revert, binding, sink, version: RESUME_STATE_VERSION, fresh, stored: options.resumeState, log }));
    } catch (error) {
      await session.shutdown();
      throw this.startupError(error, session.process, report);
    }
    const handle: HarnessHandle = { id: options.ids.mint("handle") };
    this.sessions.set(handle.id, session);
    return handle;
  }

  /** Spawn `argv` and run the handshake (initialize → initialized); a failure kills the child. */
  private async launch(report: Launch, argv: readonly string[], options: HarnessOpenOptions, sink: EventSink): Promise<CodexSession> {
    // Only a process started through the same port (the real spawn, or a test's) is adopted.
    const prelaunch = this.options.prelaunch?.spawn === this.options.spawn ? this.options.prelaunch : undefined;
    const adopt = prelaunch?.take({ argv, cwd: options.cwd, env: options.env, clientVersion: this.clientVersion }, options.log);
    const session = new CodexSession({
      launch: { argv, cwd: options.cwd, env: options.env, log: options.log, spawn: this.options.spawn },
      adopt,
      sink,
      interactions: options.interactions,
      ids: options.ids,
      clock: options.clock,
      log: options.log,
      ...(this.options.trace !== undefined ? { trace: this.options.trace } : {}),
    });
    try {
      await session.initialize(this.clientVersion);
      return session;
    } catch (error) {
      await session.shutdown();
      throw this.startupError(error, session.process, report);
    }
  }

  /**
   * COD-05 on a running app-server: list hooks, ask about new or changed ones, and when every hook that
   * needs trust is trusted, replace the process with one launched bypassing hook trust. Returns the session
   * to use and whether its threads bypass trust; undefined when the first process stays as it is.
   */
  private async preflightHooks(report: Launch, options: HarnessOpenOptions, sink: EventSink, session: CodexSession): Promise<{ session: CodexSession; bypass: boolean } | undefined> {
    const notice = (level: "info" | "warning", title: string, detail?: string): void => {
      const draft = { kind: "_baton_notice", payload: { level, title, ...(detail !== undefined && detail !== "" ? { detail } : {}) }, ...(options.turnId !== undefined ? { turnId: options.turnId } : {}) } as AdapterDraft;
      try {
        sink.emit(draft);
      } catch (error) {
        options.log.log("error", "event sink threw", { error });
      }
    };
    const listHooks = (on: CodexSession) => () => on.call("hooks/list", { cwds: [options.cwd] }, SETUP_TIMEOUT_MS);
    const outcome = await preflightHookTrust({
      targetId: options.targetId,
      turnId: options.turnId,
      store: this.hookTrust,
      interactions: options.interactions,
      listHooks: listHooks(session),
      notice,
      log: options.log,
    });
    if (outcome.kind !== "trusted") return undefined;
    await session.shutdown();
    const bypassed = await this.launch(report, withHookBypass(report.argv), options, sink);
    const verified = await verifyHookTrust(listHooks(bypassed), outcome.fingerprints).catch((error: unknown) => ({ ok: false as const, reason: describeError(error) }));
    if (verified.ok) return { session: bypassed, bypass: true };
    // A hook changed between the question and the relaunch: never run it unasked.
    await bypassed.shutdown();
    notice("warning", "Codex hooks changed while starting; continuing without them", verified.reason);
    return { session: await this.launch(report, report.argv, options, sink), bypass: false };
  }

  private startupError(error: unknown, process: ProcessHandle, report: Launch): BatonError {
    if (isBatonError(error, "harness_start_failed")) return error;
    const stderr = process.stderrTail().trim().split("\n").slice(-3).join("\n");
    const exit = process.exitInfo();
    const detail = exit?.error !== undefined ? `could not run ${process.argv[0] ?? "codex"} (${exit.error})` : describeError(error);
    return new BatonError("harness_start_failed", `Codex app-server failed to start: ${detail}${stderr !== "" ? `\n${stderr}` : ""}`, {
      cause: error,
      hint: `Command: ${process.argv.join(" ")} (from ${report.source}); exit: ${describeExit(exit)}.${exit?.error !== undefined ? ` ${INSTALL_HINT}` : ""}`,
    });
  }

  private get clientVersion(): string {
    return this.options.clientVersion ?? CLIENT_VERSION;
  }

  private session(handle: HarnessHandle): CodexSession {
    const session = this.sessions.get(handle.id);
    if (session === undefined) throw new BatonError("contract_violation", `unknown or closed codex handle ${handle.id}`);
    return session;
  }

  async sendTurn(handle: HarnessHandle, input: PromptInput): Promise<SendTurnResult> {
    const supported = supportedPromptBlocks(this.capabilities);
    const unsupported = unsupportedBlocks(input.blocks, supported);
    if (unsupported.length > 0) {
      throw new BatonError("prompt_unsupported", `Codex does not accept ${unsupported.join(", ")} blocks in Baton yet`);
    }
    const session = this.session(handle);
    if (session.dead) {
      throw new BatonError("harness_dead", `Codex app-server is not running (${session.deadReason ?? "dead"})`, { hint: "Re-open the harness; the thread is resumed." });
    }
    const active = session.active;
    if (active !== undefined && !active.finished) return session.steer(input);
    await session.failedTurns?.leaveBehind(input.turnId);
    return session.startTurn(input, this.config.turnParams(session));
  }

  /** CTX-03 sync_context: catch-up history goes into the thread before the turn (thread/inject_items). */
  async syncContext(handle: HarnessHandle, blocks: readonly PromptBlock[]): Promise<void> {
    await this.session(handle).injectContext(blocks);
  }

  async cancel(handle: HarnessHandle, turnId: TurnId): Promise<void> {
    const session = this.sessions.get(handle.id);
    if (session === undefined || session.dead) return;
    await session.cancel(turnId);
  }

  async close(handle: HarnessHandle): Promise<void> {
    const session = this.sessions.get(handle.id);
    if (session === undefined) return;
    this.sessions.delete(handle.id);
    // Its terminal is out and the peer closed when close() returns; the exit of a run with a prelaunch (exec) is
    // waited for by the run's release, beside the session's own close (prelaunch.ts).
    const closed = session.close();
    if (this.options.prelaunch !== undefined) this.options.prelaunch.awaitExit(closed);
    else await closed;
  }

  /** Native compaction as a control turn; its terminal arrives like any turn's. */
  async compactContext(handle: HarnessHandle, turnId: TurnId): Promise<SendTurnResult> {
    return this.session(handle).compact(turnId);
  }

  async getConfig(handle: HarnessHandle | undefined): Promise<readonly SessionConfigOption[]> {
    const session = handle === undefined ? undefined : this.sessions.get(handle.id);
    if (session !== undefined && !session.dead) {
      try {
        await this.config.refresh(session);
      } catch (error) {
        this.log.log("warn", "codex model/list failed", { error });
      }
    } else if (!this.config.hasCatalog) await this.discoverModels();
    return this.config.options(session);
  }

  /** Before any open: list the catalog through a short-lived app-server; on failure only the current choices stay. */
  private async discoverModels(): Promise<void> {
    const env = this.lastEnv ?? { ...inheritedEnv(), ...this.options.env };
    const report = resolveCodexCommand(this.settings, env, this.options.installedFrom === undefined ? {} : { installedFrom: this.options.installedFrom });
    if (!report.ok) return;
    try {
      this.config.adoptCatalog(await probeCodexModels({ argv: report.argv, cwd: process.cwd(), env, log: this.log, spawn: this.options.spawn, clientVersion: this.clientVersion }));
    } catch (error) {
      this.log.log("warn", `could not list Codex's models: ${describeError(error)}`);
    }
  }

  async setConfig(handle: HarnessHandle | undefined, id: ConfigId, value: string): Promise<void> {
    const session = handle === undefined ? undefined : this.sessions.get(handle.id);
    this.config.set(id, value, session);
  }

  async reconcile(handle: HarnessHandle, turnId: TurnId): Promise<ReconcileResult> {
    const session = this.sessions.get(handle.id);
    if (session === undefined || session.dead) return { state: "unknown", detail: "codex app-server is not running" };
    // A turn not sent yet (still being prepared) is not idle because the thread is: Codex never had it.
    if (!session.knownTurns.has(turnId)) return { state: "unknown", detail: "the turn has not been sent to Codex yet" };
    try {
      const read = await session.call("thread/read", { threadId: session.threadId, includeTurns: false }, RECONCILE_TIMEOUT_MS);
      const status = read.thread.status;
      switch (status.type) {
        case "idle": {
          // turn/start is answered before Codex marks the thread active (and a resumed thread takes a while to
          // start): idle while our turn is accepted but not yet reported started is not an ended turn.
          const turn = session.active;
          if (turn !== undefined && !turn.finished && !turn.started) return { state: "unknown", detail: "Codex has accepted the turn but not started it yet" };
          return { state: "idle" };
        }
        case "active":
          if (status.activeFlags.includes("waitingOnApproval")) return { state: "waiting_approval" };
          if (status.activeFlags.includes("waitingOnUserInput")) return { state: "waiting_input" };
          return { state: "active" };
        default:
          return { state: "unknown", detail: `thread status ${status.type}` };
      }
    } catch (error) {
      const pid = session.process.pid;
      const stopped = pid !== undefined && isStopped(pid) ? `; codex app-server (pid ${pid}) is stopped and cannot answer until it is continued` : "";
      return { state: "unknown", detail: `${describeError(error)}${stopped}` };
    }
  }

  /** One-shot structured output on an ephemeral thread of a separate app-server (no rollout, no resume). */
  async generateStructured(request: TextGenRequest): Promise<unknown> {
    const env = this.lastEnv ?? inheritedEnv();
    const report = resolveCodexCommand(this.settings, env, this.options.installedFrom === undefined ? {} : { installedFrom: this.options.installedFrom });
    if (!report.ok) throw new BatonError("harness_missing", `Codex is not installed or not configured. Searched: ${report.searched.join("; ")}.`, { hint: report.hint });
    return generateStructuredWithCodex(
      { argv: report.argv, env, log: this.log, spawn: this.options.spawn, clientVersion: this.clientVersion },
      request,
    );
  }

  /** IX-08: the route Codex reported for this thread, never Baton's config. */
  approvalRoute(handle: HarnessHandle): "user" | "delegated" | null {
    const reviewer = this.sessions.get(handle.id)?.approvalsReviewer;
    if (reviewer === "user") return "user";
    if (reviewer === "auto_review" || reviewer === "guardian_subagent") return "delegated";
    return null;
  }

  /** For tests and diagnostics: the app-server pid behind a handle. */
  processId(handle: HarnessHandle): number | undefined {
    return this.sessions.get(handle.id)?.process.pid;
  }

  /** For tests and diagnostics: the Codex thread id behind a handle. */
  threadId(handle: HarnessHandle): string | undefined {
    return this.sessions.get(handle.id)?.threadId;
  }
}

/** Linux: the process is in state T (stopped, e.g. SIGSTOP); false when it cannot be told. */
function isStopped(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
  } catch {
    return false;
  }
}
