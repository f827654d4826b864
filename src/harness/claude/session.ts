/**
 * One Claude harness session: a long-lived streaming `query()` (started by the first turn, restarted with `resume`
 * after the process died), its prompt channel, and the binding of SDK output to Baton turns.
 */
import { randomUUID } from "node:crypto";
import type { Options, Query, SDKControlInitializeResponse, SDKMessage, SDKResultMessage, SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import type { query as sdkQuery } from "@anthropic-ai/claude-agent-sdk";
import type { BindingSink, EventSink, HarnessHandle, HarnessOpenOptions, PromptInput, SendTurnResult } from "../contract.ts";
import type { SessionConfigOption } from "../capabilities.ts";
import type { AdapterDraft } from "../../event/envelope.ts";
import type { StopReason } from "../../event/stop-reasons.ts";
import type { TurnId } from "../../shared/ids.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import { PromptChannel } from "./channel.ts";
import { ClaudeProcesses } from "./process.ts";
import { applyConfigToQuery, buildConfigOptions, parseEffort, toBatonMode, updateConfigState, type ClaudeConfigState, type ConfigId } from "./config.ts";
import { adapterDraft } from "./drafts.ts";
import { ClaudeMapper, commandNamesDraft } from "./mapper.ts";
import { buildRunOptions, type ClaudeSessionSettings } from "./options.ts";
import { errorCodeOf, errorTextOf, isAborted, isUnretryable, terminalOf, unretryableMessage } from "./terminal.ts";
import { TurnBook, type ClaudeTurn } from "./turns.ts";

export type ClaudeTrace = (direction: "in" | "out", message: unknown) => void;

export interface ClaudeSessionDeps {
  readonly handle: HarnessHandle;
  readonly open: HarnessOpenOptions;
  readonly sink: EventSink;
  readonly binding: BindingSink;
  readonly settings: ClaudeSessionSettings;
  readonly queryFn: typeof sdkQuery;
  readonly trace?: ClaudeTrace | undefined;
  readonly onInitialization?: ((init: SDKControlInitializeResponse) => void) | undefined;
}

interface QueryRun {
  readonly query: Query;
  readonly channel: PromptChannel;
  readonly resumeId: string | undefined;
  initSeen: boolean;
  closing: boolean;
  /** Messages pushed before the first system/init, re-sent if a resume turns out to be impossible. */
  unconfirmed: SDKUserMessage[];
  startingTurn: TurnId | undefined;
  done: Promise<void>;
}

const IGNORED_TYPES = new Set(["command_lifecycle", "rate_limit_event", "tool_progress", "tool_use_summary", "prompt_suggestion", "auth_status", "thinking_tokens"]);
const NO_CONVERSATION = /No conversation found with session ID/;

export class ClaudeSession {
  private run: QueryRun | undefined;
  private readonly turns = new TurnBook();
  private readonly mapper: ClaudeMapper;
  private sessionId: string | undefined;
  private publishedId: string | undefined;
  private activeModel: string | undefined;
  private commandsKey: string | undefined;
  private initInfo: SDKControlInitializeResponse | undefined;
  private closed = false;
  private readonly warned = new Set<string>();
  readonly desired: ClaudeConfigState;
  private applied: ClaudeConfigState;
  private readonly processes = new ClaudeProcesses((text) => this.log("debug", `claude stderr: ${text}`));

  constructor(private readonly deps: ClaudeSessionDeps) {
    const { open } = deps;
    const resumeId = open.resumeState?.version === 1 ? open.resumeState.data["sessionId"] : undefined;
    if (typeof resumeId === "string" && resumeId.length > 0 && !resumeId.startsWith("hs_")) this.sessionId = resumeId;
    this.mapper = new ClaudeMapper(open.cwd);
    this.desired = {
      model: open.model && open.model !== "default" ? open.model : undefined,
      effort: parseEffort(open.effort),
      mode: toBatonMode(open.mode),
    };
    this.applied = { ...this.desired };
  }

  get handle(): HarnessHandle {
    return this.deps.handle;
  }

  get nativeSessionId(): string | undefined {
    return this.sessionId;
  }

  isBusy(): boolean {
    return this.turns.active()?.role === "driven";
  }

  /** `probed` models (from a session-less probe) serve until this session's own init arrives. */
  configOptions(probed?: Parameters<typeof buildConfigOptions>[1]): SessionConfigOption[] {
    return buildConfigOptions(this.desired, this.initInfo?.models ?? probed, this.activeModel);
  }

  /** True once a query runs (or ran): its own initialization tells the models, no probe needed. */
  hasStarted(): boolean {
    return this.run !== undefined || (this.initInfo?.models.length ?? 0) > 0;
  }

  /** Where this session runs (for a session-less probe). */
  context(): { cwd: string; env: Readonly<Record<string, string>> } {
    return { cwd: this.deps.open.cwd, env: this.deps.open.env };
  }

  private emit(draft: AdapterDraft): void {
    this.deps.sink.emit(draft);
  }

  private log(level: "debug" | "info" | "warn" | "error", message: string, error?: unknown): void {
    this.deps.open.log.log(level, message, error === undefined ? {} : { error });
  }

  // ── turns ────────────────────────────────────────────────────────────────

  async sendTurn(input: PromptInput, content: string | { type: "text"; text: string }[]): Promise<SendTurnResult> {
    if (this.closed) return { accepted: false, effective: "rejected", reason: "the Claude session is closed" };
    const active = this.turns.active();
    if (active?.role === "driven") {
      if (active.turnId !== input.turnId) return { accepted: false, effective: "rejected", reason: `Claude is still working on turn ${active.turnId}` };
      if (active.cancelRequested) return { accepted: false, effective: "rejected", reason: "the turn is being cancelled" };
      const run = this.run;
      if (!run || run.channel.closed) return { accepted: false, effective: "rejected", reason: "the Claude process is not running" };
      // The controller records the steer's user_message once the adapter accepts it (IN-05).
      this.push(run, active, content);
      return { accepted: true, effective: "steer" };
    }
    return this.startTurn(input.turnId, content);
  }

  private async startTurn(turnId: TurnId, content: string | { type: "text"; text: string }[]): Promise<SendTurnResult> {
    const observed = this.turns.active();
    if (observed?.role === "observed") this.finish(observed, "end_turn");
    if (this.run && !this.run.channel.closed) await this.applyConfig(this.run);
    const turn = this.turns.begin(turnId, "driven");
    const run = this.ensureRun(turn.turnId);
    this.push(run, turn, content);
    return { accepted: true, effective: "new_turn" };
  }

  async cancel(turnId: TurnId): Promise<void> {
    const turn = this.turns.active();
    if (!turn || turn.turnId !== turnId) return;
    turn.cancelRequested = true;
    const run = this.run;
    if (!run) {
      this.finish(turn, "cancelled");
      return;
    }
    await this.interrupt(run);
  }

  private async interrupt(run: QueryRun): Promise<void> {
    this.deps.trace?.("out", { control: "interrupt", cancelQueued: true });
    // The d.ts has no arguments; the SDK honours {cancelQueued} so an accepted steer never runs after a cancel (IN-07).
    const interrupt = run.query.interrupt as (options?: { cancelQueued?: boolean }) => ReturnType<Query["interrupt"]>;
    await interrupt.call(run.query, { cancelQueued: true }).catch((error: unknown) => this.log("warn", "claude interrupt failed", error));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const active = this.turns.active();
    if (active) this.finish(active, "cancelled");
    const run = this.run;
    if (!run) return;
    run.closing = true;
    run.channel.end();
    if (active) run.query.close();
    else {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 3_000)));
      const ended = await Promise.race([run.done.then(() => true), grace]);
      clearTimeout(timer);
      if (!ended) run.query.close();
    }
    this.run = undefined;
    await this.processes.stop({ eofGraceMs: active ? 0 : 1_000, termGraceMs: 1_000 });
  }

  /** `/compact` as a control turn (CLA-10). */
  async compact(turnId: TurnId): Promise<SendTurnResult> {
    if (this.sessionId === undefined) throw new BatonError("usage", "Claude has no conversation to compact yet");
    if (this.turns.active()?.role === "driven") return { accepted: false, effective: "rejected", reason: "Claude is busy" };
    if (this.closed) return { accepted: false, effective: "rejected", reason: "the Claude session is closed" };
    return this.startTurn(turnId, "/compact");
  }

  async setConfig(id: ConfigId, value: string): Promise<void> {
    updateConfigState(this.desired, id, value);
    if (this.run && !this.run.channel.closed && !this.turns.active()) await this.applyConfig(this.run);
    this.emit(adapterDraft("config_option_update", { options: this.configOptions() }));
  }

  private async applyConfig(run: QueryRun): Promise<void> {
    await applyConfigToQuery(run.query, this.desired, this.applied, this.deps.trace);
  }

  private push(run: QueryRun, turn: ClaudeTurn, content: string | { type: "text"; text: string }[]): void {
    const uuid = randomUUID();
    const message: SDKUserMessage = { type: "user", message: { role: "user", content }, parent_tool_use_id: null, uuid: uuid as SDKUserMessage["uuid"] & string };
    this.turns.attach(turn, uuid);
    if (!run.initSeen) run.unconfirmed.push(message);
    this.deps.trace?.("out", message);
    if (!run.channel.push(message)) this.turns.detach(turn, uuid);
  }

  private finish(turn: ClaudeTurn, stopReason: StopReason, nativeStopReason?: string | null): void {
    if (!this.turns.finalize(turn)) return;
    const native = typeof nativeStopReason === "string" ? { nativeStopReason } : {};
    this.emit(adapterDraft("state_update", { state: "idle", stopReason, ...native }, { turnId: turn.turnId }));
  }

  private fail(turn: ClaudeTurn, message: string, code: string | undefined, raw?: unknown, retryable = true): void {
    this.emit(adapterDraft("_baton_error_update", { message, ...(code ? { code } : {}), retryable }, { turnId: turn.turnId, raw }));
  }

  /** The turn harness activity belongs to: the active one, or a new observed turn (CLA-04). */
  private turnForActivity(): ClaudeTurn {
    const active = this.turns.active();
    if (active) return active;
    const turn = this.turns.begin(this.deps.open.ids.mint("turn"), "observed");
    this.emit(adapterDraft("state_update", { state: "running" }, { turnId: turn.turnId }));
    return turn;
  }

  // ── the query ────────────────────────────────────────────────────────────

  private ensureRun(turnId: TurnId): QueryRun {
    if (this.run && !this.run.channel.closed) return this.run;
    return this.startRun(this.sessionId, turnId);
  }

  private startRun(resumeId: string | undefined, turnId: TurnId | undefined): QueryRun {
    const channel = new PromptChannel();
    const options = this.buildOptions(resumeId);
    let query: Query;
    try {
      query = this.deps.queryFn({ prompt: channel, options });
    } catch (error) {
      throw new BatonError("harness_start_failed", `could not start Claude Code: ${describeError(error)}`, { cause: error });
    }
    const run: QueryRun = { query, channel, resumeId, initSeen: false, closing: false, unconfirmed: [], startingTurn: turnId, done: Promise.resolve() };
    this.run = run;
    this.applied = { ...this.desired };
    if (turnId !== undefined) this.emit(adapterDraft("_baton_run_status", { phase: "starting", title: "Starting Claude Code…" }, { turnId }));
    query.initializationResult().then(
      (init) => {
        this.initInfo = init;
        this.deps.onInitialization?.(init);
      },
      () => undefined,
    );
    run.done = this.consume(run);
    return run;
  }

  private buildOptions(resumeId: string | undefined): Options {
    return buildRunOptions({
      open: this.deps.open,
      settings: this.deps.settings,
      desired: this.desired,
      permissions: {
        turnFor: () => this.turnForActivity().turnId,
        sessionId: () => this.sessionId,
        mode: () => this.applied.mode,
        planOf: (id) => this.mapper.planOf(id),
        onDeclined: (id) => this.mapper.markDeclined(id),
      },
      spawn: this.processes.spawn,
      ...(resumeId === undefined ? {} : { resume: { sessionId: resumeId } }),
    });
  }

  private async consume(run: QueryRun): Promise<void> {
    try {
      for await (const message of run.query) {
        if (run !== this.run) continue;
        this.deps.trace?.("in", message);
        this.route(run, message);
      }
      if (run === this.run && !run.closing && !this.closed) this.died(run, undefined);
    } catch (error) {
      if (run !== this.run || run.closing || this.closed) return;
      if (!run.initSeen && run.resumeId !== undefined && NO_CONVERSATION.test(describeError(error))) {
        this.log("warn", `Claude session ${run.resumeId} is gone; starting a new one`);
        this.sessionId = undefined;
        const next = this.startRun(undefined, run.startingTurn);
        for (const message of run.unconfirmed) next.channel.push(message);
        next.unconfirmed = [...run.unconfirmed];
        return;
      }
      this.died(run, error);
    }
  }

  private died(run: QueryRun, error: unknown): void {
    run.channel.end();
    this.run = undefined;
    const turn = this.turns.active();
    const reason = error === undefined ? "the Claude Code process ended" : this.processes.withStderr(describeError(error));
    this.log("warn", `claude query ended: ${reason}`, error);
    if (!turn) return;
    if (!run.initSeen && run.startingTurn !== undefined) this.emit(adapterDraft("_baton_run_status", { phase: null }, { turnId: run.startingTurn }));
    if (run.initSeen) this.fail(turn, `Claude Code stopped: ${reason}`, "harness_dead");
    else this.fail(turn, `Claude Code could not start: ${reason}`, "harness_start_failed", undefined, false);
    this.finish(turn, "failed");
  }

  private route(run: QueryRun, message: SDKMessage): void {
    switch (message.type) {
      case "system":
        if (message.subtype === "init") return this.onInit(run, message);
        if (message.subtype === "status" && message.permissionMode !== undefined) this.onModeReported(message.permissionMode);
        if (message.subtype === "api_retry" && isUnretryable(message.error_status)) return this.stopUnretryable(run, message.error_status, String(message.error), message);
        for (const draft of this.mapper.system(message, this.turns.active()?.turnId)) this.emit(draft);
        return;
      case "stream_event":
        return this.emitAll(this.mapper.stream(message, this.turnForActivity().turnId));
      case "assistant":
        return this.emitAll(this.mapper.assistant(message, this.turnForActivity().turnId));
      case "user":
        if ((message as { isReplay?: unknown }).isReplay === true) return;
        return this.emitAll(this.mapper.user(message, this.turnForActivity().turnId));
      case "result":
        return this.onResult(run, message);
      default:
        if (!IGNORED_TYPES.has(message.type) && !this.warned.has(message.type)) {
          this.warned.add(message.type);
          this.log("warn", `unhandled Claude SDK message type '${message.type}'`);
        }
    }
  }

  private emitAll(drafts: readonly AdapterDraft[]): void {
    for (const draft of drafts) this.emit(draft);
  }

  private onInit(run: QueryRun, message: Extract<SDKMessage, { type: "system"; subtype: "init" }>): void {
    if (!run.initSeen) {
      run.initSeen = true;
      run.unconfirmed = [];
      if (run.startingTurn !== undefined) this.emit(adapterDraft("_baton_run_status", { phase: null }, { turnId: run.startingTurn }));
    }
    const id = message.session_id;
    this.sessionId = id;
    if (id !== this.publishedId) {
      this.publishedId = id;
      this.deps.binding.publishIdentity({ harnessSessionId: id, resumeState: { version: 1, data: { sessionId: id } }, fresh: run.resumeId !== id });
    }
    this.activeModel = message.model;
    this.onModeReported(message.permissionMode);
    const key = message.slash_commands.join("\n");
    if (key !== this.commandsKey) {
      this.commandsKey = key;
      this.emit(commandNamesDraft(message.slash_commands, { turnId: this.turns.active()?.turnId, raw: message }));
    }
  }

  /** Claude Code retries even what cannot succeed by retrying (a 401): fail the turn now, stop the query. */
  private stopUnretryable(run: QueryRun, status: number, category: string, raw: unknown): void {
    const turn = this.turns.active();
    if (!turn || turn.failed || turn.cancelRequested) return;
    turn.failed = true;
    this.fail(turn, unretryableMessage(status, category), `http_${status}`, raw, false);
    void this.interrupt(run);
  }

  private onModeReported(mode: string): void {
    const reported = toBatonMode(mode);
    if (this.desired.mode === this.applied.mode) this.desired.mode = reported;
    this.applied.mode = reported;
  }

  private onResult(run: QueryRun, result: SDKResultMessage): void {
    const uuids = result.user_message_uuids ?? (result.user_message_uuid !== undefined ? [result.user_message_uuid] : []);
    if (!run.initSeen && result.is_error && result.subtype !== "success" && result.errors.some((e) => NO_CONVERSATION.test(e))) return;
    const turn = this.turns.ownerOf(uuids);
    if (!turn) {
      this.log("debug", `ignoring a stale Claude result (${uuids.join(", ") || "no uuids"})`);
      return;
    }
    const settled = this.turns.settle(turn, uuids);
    this.emitAll(this.mapper.usage(result, turn.turnId, this.activeModel));
    if (isAborted(result) || turn.cancelRequested) return this.finish(turn, turn.failed && !turn.cancelRequested ? "failed" : "cancelled"); // stopped by stopUnretryable
    if (result.is_error) {
      this.fail(turn, errorTextOf(result), errorCodeOf(result), result, !isUnretryable(result.subtype === "success" ? result.api_error_status : undefined));
      turn.failed = true;
    }
    if (!settled) return;
    if (turn.failed) return this.finish(turn, "failed");
    const terminal = terminalOf(result);
    if (terminal.unknown !== undefined) {
      const title = `Claude Code ended the turn with stop reason '${terminal.unknown}', which Baton does not know; the turn counts as failed`;
      this.emit(adapterDraft("_baton_notice", { level: "warning", title }, { turnId: turn.turnId, raw: result }));
    }
    this.finish(turn, terminal.stopReason, result.subtype === "success" ? result.stop_reason : undefined);
  }
}
