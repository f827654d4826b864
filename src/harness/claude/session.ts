/**
 * One Claude harness session: a long-lived streaming `query()` (started by the first turn, restarted with `resume`
 * after the process died), its prompt channel, and the binding of SDK output to Baton turns.
 */
import type { Options, Query, query as sdkQuery, SDKControlInitializeResponse, SDKMessage, SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import type { BindingSink, EventSink, HarnessHandle, HarnessOpenOptions, PromptInput, SendTurnResult } from "../contract.ts";
import type { SessionConfigOption } from "../capabilities.ts";
import type { AdapterDraft } from "../../event/envelope.ts";
import type { StopReason } from "../../event/stop-reasons.ts";
import type { TurnId } from "../../shared/ids.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import { PromptChannel } from "./channel.ts";
import { ClaudeProcesses } from "./process.ts";
import { buildConfigOptions, ClaudeConfigTracker } from "./config.ts";
import type { ConfigId } from "../../shared/config-ids.ts";
import { adapterDraft } from "../drafts.ts";
import { rawExcerpt } from "./raw-excerpt.ts";
import { ClaudeMapper, commandNamesDraft } from "./mapper.ts";
import { buildRunOptions, type ClaudeSessionSettings } from "./options.ts";
import { ClaudeContinuity } from "./rewind.ts";
import { endRun, endsWithin, IGNORED_TYPES, isMissingConversation, isMissingResumePoint, NO_CONVERSATION, userMessage, type QueryRun } from "./run.ts";
import { errorCodesOf, errorTextOf, isAborted, isUnretryable, terminalOf, unknownStopNotice, unretryableMessage } from "./terminal.ts";
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

export class ClaudeSession {
  private run: QueryRun | undefined;
  private readonly turns = new TurnBook();
  private readonly mapper: ClaudeMapper;
  private readonly native: ClaudeContinuity;
  private activeModel: string | undefined;
  private commandsKey: string | undefined;
  private initInfo: SDKControlInitializeResponse | undefined;
  private closed = false;
  /** Claude Code's last rate_limit_event said the plan's usage limit is reached. */
  private usageRejected = false;
  private readonly warned = new Set<string>();
  private readonly config: ClaudeConfigTracker;
  private readonly processes = new ClaudeProcesses((text) => this.log("debug", `claude stderr: ${text}`));

  constructor(private readonly deps: ClaudeSessionDeps) {
    const { open } = deps;
    this.native = new ClaudeContinuity(
      {
        binding: deps.binding,
        env: open.env,
        cwd: open.cwd,
        notice: (turnId, title) => this.emit(adapterDraft("_baton_notice", { level: "info", title }, { turnId })),
        warn: (message, error) => this.log("warn", message, error),
      },
      open.resumeState,
    );
    this.mapper = new ClaudeMapper(open.cwd);
    this.config = new ClaudeConfigTracker(open);
  }

  get handle(): HarnessHandle { return this.deps.handle; }

  get nativeSessionId(): string | undefined { return this.native.sessionId; }

  isBusy(): boolean {
    return this.turns.active()?.role === "driven";
  }

  /** `probed` models (from a session-less probe) serve until this session's own init arrives. */
  configOptions(probed?: Parameters<typeof buildConfigOptions>[1]): SessionConfigOption[] {
    return buildConfigOptions(this.config.desired, this.initInfo?.models ?? probed, this.activeModel);
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
    if (observed?.role === "observed") {
      this.native.kept();
      this.finish(observed, "end_turn");
    }
    // After a failed prompt the idle process goes; the next run resumes where the conversation was good.
    const stale = this.native.leaveBehind() ? this.run : undefined;
    this.run = stale ? undefined : this.run;
    if (stale) await endRun(stale, () => this.processes.stop({ eofGraceMs: 1_000, termGraceMs: 1_000 }));
    if (this.run && !this.run.channel.closed) await this.config.apply(this.run.query, this.deps.trace);
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
    if (active || !(await endsWithin(run.done, 3_000))) run.query.close();
    this.run = undefined;
    await this.processes.stop({ eofGraceMs: active ? 0 : 1_000, termGraceMs: 1_000 });
  }

  /** `/compact` as a control turn (CLA-10). */
  async compact(turnId: TurnId): Promise<SendTurnResult> {
    if (this.native.sessionId === undefined) throw new BatonError("usage", "Claude has no conversation to compact yet");
    if (this.turns.active()?.role === "driven") return { accepted: false, effective: "rejected", reason: "Claude is busy" };
    if (this.closed) return { accepted: false, effective: "rejected", reason: "the Claude session is closed" };
    return this.startTurn(turnId, "/compact");
  }

  async setConfig(id: ConfigId, value: string): Promise<void> {
    this.config.set(id, value);
    if (this.run && !this.run.channel.closed && !this.turns.active()) await this.config.apply(this.run.query, this.deps.trace);
    this.emit(adapterDraft("config_option_update", { options: this.configOptions() }));
  }

  private push(run: QueryRun, turn: ClaudeTurn, content: string | { type: "text"; text: string }[]): void {
    const uuid = crypto.randomUUID();
    const message = userMessage(content, uuid);
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

  /** The API refused the turn: it ends failed and its prompt is left behind (#12.9). */
  private finishFailed(turn: ClaudeTurn): void {
    this.native.failed(turn.turnId, turn.prompt);
    this.finish(turn, "failed");
  }

  private fail(turn: ClaudeTurn, message: string, code: string | { readonly code: string; readonly nativeCode?: string } | undefined, raw?: unknown, retryable = true): void {
    const codes = typeof code === "string" ? { code } : code;
    this.emit(adapterDraft("_baton_error_update", { message, ...(codes?.code ? codes : {}), retryable }, { turnId: turn.turnId, raw }));
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
    return this.startRun(this.native.nextRun(), turnId);
  }

  private startRun(resumed: QueryRun["resumed"], turnId: TurnId | undefined): QueryRun {
    const channel = new PromptChannel();
    const options = this.buildOptions(resumed);
    let query: Query;
    try {
      query = this.deps.queryFn({ prompt: channel, options });
    } catch (error) {
      throw new BatonError("harness_start_failed", `could not start Claude Code: ${describeError(error)}`, { cause: error });
    }
    const run: QueryRun = { query, channel, resumed, initSeen: false, closing: false, unconfirmed: [], startingTurn: turnId, done: Promise.resolve() };
    this.run = run;
    this.config.restarted();
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

  private buildOptions(resumed: QueryRun["resumed"]): Options {
    return buildRunOptions({
      open: this.deps.open,
      settings: this.deps.settings,
      desired: this.config.desired,
      permissions: {
        turnFor: () => this.turnForActivity().turnId,
        sessionId: () => this.native.sessionId,
        mode: () => this.config.applied.mode,
        planOf: (id) => this.mapper.planOf(id),
        onDeclined: (id) => this.mapper.markDeclined(id),
      },
      spawn: this.processes.spawn,
      resume: resumed,
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
      if (!run.initSeen && run.resumed !== undefined && NO_CONVERSATION.test(describeError(error))) {
        this.log("warn", `Claude session ${run.resumed.sessionId} is gone; starting a new one`);
        this.native.sessionId = undefined;
        this.restart(run, undefined);
        return;
      }
      this.died(run, error);
    }
  }

  /** Start the run again (resuming `resumeId`, or fresh) with the messages the old one never confirmed. */
  private restart(run: QueryRun, resumed: QueryRun["resumed"]): void {
    run.closing = true;
    run.channel.end();
    const next = this.startRun(resumed, run.startingTurn);
    for (const message of run.unconfirmed) next.channel.push(message);
    next.unconfirmed = [...run.unconfirmed];
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
        if (message.subtype === "status" && message.permissionMode !== undefined) this.config.reported(message.permissionMode);
        if (message.subtype === "api_retry" && isUnretryable(message.error_status)) return this.stopUnretryable(run, message.error_status, String(message.error), message);
        for (const draft of this.mapper.system(message, this.turns.active()?.turnId)) this.emit(draft);
        return;
      case "stream_event":
        return this.emitAll(this.mapper.stream(message, this.turnForActivity().turnId));
      case "assistant":
        if (message.parent_tool_use_id === null) this.native.see(message.uuid);
        return this.emitAll(this.mapper.assistant(message, this.turnForActivity().turnId));
      case "user":
        if ((message as { isReplay?: unknown }).isReplay === true) return;
        if (message.parent_tool_use_id === null) this.native.see(message.uuid);
        return this.emitAll(this.mapper.user(message, this.turnForActivity().turnId));
      case "result":
        return this.onResult(run, message);
      case "rate_limit_event": // the plan's usage limit (claude.ai); an API rate limit never says rejected here
        return void (this.usageRejected = message.rate_limit_info.status === "rejected");
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
    this.native.initialized(message.session_id, run.resumed);
    this.activeModel = message.model;
    this.config.reported(message.permissionMode);
    const key = message.slash_commands.join("\n");
    if (key !== this.commandsKey) {
      this.commandsKey = key;
      // The names are the payload; the rest of init (tools, plugins, paths…) is in the native trace.
      this.emit(commandNamesDraft(message.slash_commands, { turnId: this.turns.active()?.turnId, raw: rawExcerpt(message, []) }));
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

  private onResult(run: QueryRun, result: SDKResultMessage): void {
    const uuids = result.user_message_uuids ?? (result.user_message_uuid !== undefined ? [result.user_message_uuid] : []);
    if (isMissingConversation(run, result)) return;
    if (isMissingResumePoint(run, result) && run.resumed !== undefined) {
      // The failed prompt may be seen again: resuming the whole session is all that is left.
      this.log("warn", `cannot resume Claude session ${run.resumed.sessionId} at ${run.resumed.at ?? ""}; resuming it whole`);
      return this.restart(run, { sessionId: run.resumed.sessionId, at: undefined });
    }
    const turn = this.turns.ownerOf(uuids);
    if (!turn) {
      this.log("debug", `ignoring a stale Claude result (${uuids.join(", ") || "no uuids"})`);
      return;
    }
    const settled = this.turns.settle(turn, uuids);
    this.emitAll(this.mapper.usage(result, turn.turnId, this.activeModel));
    if (isAborted(result) || turn.cancelRequested) {
      const failed = turn.failed && !turn.cancelRequested; // stopped by stopUnretryable: its prompt is left behind too
      if (failed) return this.finishFailed(turn);
      this.native.kept();
      return this.finish(turn, "cancelled");
    }
    if (result.is_error) {
      this.fail(turn, errorTextOf(result), errorCodesOf(result, this.usageRejected), result, !isUnretryable(result.subtype === "success" ? result.api_error_status : undefined));
      turn.failed = true;
    }
    if (!settled) return;
    if (turn.failed) return this.finishFailed(turn);
    this.native.kept();
    const terminal = terminalOf(result);
    const unknown = unknownStopNotice(terminal, turn.turnId, result);
    if (unknown !== undefined) this.emit(unknown);
    this.finish(turn, terminal.stopReason, result.subtype === "success" ? result.stop_reason : undefined);
  }
}
