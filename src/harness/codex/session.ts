/**
 * One live `codex app-server` connection bound to one thread: the process, the JSON-RPC peer,
 * the active turn and its single terminal (COD-04, COD-06, COD-10). Notification mapping lives
 * in notifications.ts, server requests in requests.ts.
 */
import type { PromptBlock } from "../../event/content.ts";
import type { StopReason } from "../../event/stop-reasons.ts";
import type { InteractionDraft, InteractionResolution } from "../../event/interaction-types.ts";
import type { Clock } from "../../shared/clock.ts";
import { BatonError, describeError, isBatonError } from "../../shared/errors.ts";
import type { IdSource, TurnId } from "../../shared/ids.ts";
import type { Logger } from "../../shared/log.ts";
import type { EventSink, InteractionHandler, PromptInput, SendTurnResult } from "../contract.ts";
import { part, toAdapterDraft, type DraftPart } from "../drafts.ts";
import { contextItems, toUserInput } from "./prompt-items.ts";
import { JsonRpcError, type JsonRpcPeer, type RpcId, type WireTrace } from "../../rpc/jsonrpc.ts";
import { exitWithin } from "../../rpc/child-process.ts";
import { describeExit, type ExitInfo, type ProcessHandle } from "../../rpc/process-handle.ts";
import type { RpcChild } from "../../rpc/rpc-child.ts";
import { APP_SERVER_STOP, CLIENT_VERSION, initialize, SESSION_TITLE, startAppServer, type AppServerLaunch } from "./app-server.ts";
import type { PrelaunchedAppServer } from "./prelaunch.ts";
import { createNotificationTable, type NotificationTable } from "./notifications.ts";
import { createRequestTable, type RequestTable } from "./requests.ts";
import type { CodexSessionPort } from "./session-port.ts";
import { CodexTurn } from "./turn.ts";
import type { FailedTurns } from "./failed-turns.ts";
import { CONTROL_TIMEOUT_MS, SETUP_TIMEOUT_MS, type ClientMethod, type ClientMethods } from "./wire.ts";
import type { ThreadStartResponse } from "./protocol/v2/ThreadStartResponse";
import type { TokenUsageBreakdown } from "./protocol/v2/TokenUsageBreakdown";
import type { TurnStartParams } from "./protocol/v2/TurnStartParams";
import type { FileUpdateChange } from "./protocol/v2/FileUpdateChange";

export interface SessionDeps {
  /** The app-server to start (the session owns its process from then on). */
  readonly launch: AppServerLaunch;
  /** An app-server already started for exactly this launch (prelaunch.ts): adopted instead of spawning one. */
  readonly adopt?: PrelaunchedAppServer | undefined;
  readonly sink: EventSink;
  readonly interactions: InteractionHandler;
  readonly ids: IdSource;
  readonly clock: Clock;
  readonly log: Logger;
  readonly trace?: WireTrace;
}

/** After a fatal `error` notification, finish the turn as failed if `turn/completed` does not follow. */
const FATAL_FALLBACK_MS = 3_000;
/** How long a closed stdout waits for the exit status before reporting the death. */
const EXIT_GRACE_MS = 300;

export class CodexSession implements CodexSessionPort {
  private readonly child: RpcChild;
  private readonly peer: JsonRpcPeer;
  private readonly deps: SessionDeps;
  readonly log: Logger;
  readonly ids: IdSource;
  /** What thread/start|resume reported, and the thread's failed turns (failed-turns.ts); written only by `adoptThread`. */
  private thread: { readonly id: string; readonly model?: string; readonly approvalsReviewer?: string; readonly failedTurns?: FailedTurns } = { id: "" };
  /** Why the app-server is gone; set once, by `markDead`. */
  private death: string | undefined;
  private closing = false;
  /**
   * Reasoning summaries ("auto", COD-04) are a sticky turn/start override, "for this turn and subsequent turns":
   * sent until a turn/start carrying it is answered, not with every turn — Codex spends ≈ 5–10 ms of each turn that
   * carries it (measured with codex 0.171.0 against the mock model; docs/codex.md "Turns").
   */
  private summarySent = false;
  private current: CodexTurn | undefined;
  private usageTotal: TokenUsageBreakdown | undefined;
  private readonly finishedNative = new Set<string>();
  /** Baton turn ids this connection has run (or is running): a reconcile about any other turn has nothing to go on. */
  readonly knownTurns = new Set<string>();
  private readonly pendingRequests = new Map<string, AbortController>();
  /** fileChange item id → its changes (with Codex's diffs), for the approval card. */
  private readonly changesByItem = new Map<string, readonly FileUpdateChange[]>();
  private readonly warnedShapes = new Set<string>();
  private readonly notifications: NotificationTable;
  private readonly requests: RequestTable;

  constructor(deps: SessionDeps) {
    this.deps = deps;
    this.log = deps.log;
    this.ids = deps.ids;
    this.notifications = createNotificationTable(this);
    this.requests = createRequestTable(this);
    const taps = {
      onNotification: (method: string, params: unknown) => this.notifications.dispatch(method, params),
      onRequest: (method: string, params: unknown, id: RpcId) => this.requests.dispatch(method, params, id),
      onClose: (reason: string) => this.onPeerClose(reason),
    };
    this.child = deps.adopt?.child ?? startAppServer(deps.launch, { name: "codex app-server", clock: deps.clock, ...(deps.trace !== undefined ? { trace: deps.trace } : {}), ...taps });
    this.peer = this.child.peer;
    void this.child.process.exited.then((exit) => this.onExit(exit));
    // What the prelaunched process said before this session existed arrives now, in order.
    deps.adopt?.attach({ ...taps, trace: deps.trace, log: deps.launch.log });
  }

  get threadId(): string { return this.thread.id; }
  get model(): string | undefined { return this.thread.model; }

  /** Who answers approvals on this thread, as Codex reported it (IX-08). */
  get approvalsReviewer(): string | undefined {
    return this.thread.approvalsReviewer;
  }

  /** Failed driven turns to take out of the thread before the next turn (set once the thread is known). */
  get failedTurns(): FailedTurns | undefined {
    return this.thread.failedTurns;
  }

  get active(): CodexTurn | undefined { return this.current; }
  get dead(): boolean { return this.death !== undefined; }
  get deadReason(): string | undefined { return this.death; }

  /** The app-server process (pid, argv, stderr, exit) for diagnostics; the session alone signals it. */
  get process(): ProcessHandle {
    return this.child.process;
  }

  /** The handshake (initialize → initialized) before anything else is sent. */
  initialize(clientVersion: string = CLIENT_VERSION): Promise<void> {
    // An adopted process was sent the same handshake when it started (its key includes the client version).
    return this.deps.adopt?.initialized ?? initialize(this.peer, SESSION_TITLE, clientVersion);
  }

  /** Bind the session to the thread thread/start|resume answered with. */
  adoptThread(response: Pick<ThreadStartResponse, "thread" | "model" | "approvalsReviewer">, failedTurns?: FailedTurns): void {
    this.thread = { id: response.thread.id, model: response.model, approvalsReviewer: response.approvalsReviewer, ...(failedTurns !== undefined ? { failedTurns } : {}) };
  }

  swapUsageTotal(total: TokenUsageBreakdown): TokenUsageBreakdown | undefined {
    const previous = this.usageTotal;
    this.usageTotal = total;
    return previous;
  }

  rememberFileChanges(itemId: string, changes: readonly FileUpdateChange[]): void {
    this.changesByItem.set(itemId, changes);
  }

  forgetFileChanges(itemId: string): void {
    this.changesByItem.delete(itemId);
  }

  fileChanges(itemId: string): readonly FileUpdateChange[] {
    return this.changesByItem.get(itemId) ?? [];
  }

  serverRequestResolved(requestId: string): void {
    this.pendingRequests.get(requestId)?.abort();
  }

  call<M extends ClientMethod>(method: M, params: ClientMethods[M]["params"], timeoutMs?: number): Promise<ClientMethods[M]["result"]> {
    return this.peer.request(method, params, timeoutMs === undefined ? {} : { timeoutMs }) as Promise<ClientMethods[M]["result"]>;
  }

  emit(turn: CodexTurn | undefined, draft: DraftPart, raw?: unknown): void {
    try {
      this.deps.sink.emit(toAdapterDraft(draft, { harnessSessionId: this.threadId, turnId: turn?.turnId, raw }));
    } catch (error) {
      this.deps.log.log("error", "event sink threw", { error });
    }
  }

  /**
   * The turn a Codex turn id belongs to. Only `turn/started` (openOrBind) binds an unknown id to the
   * active turn or opens an observed turn: other notifications may carry an older turn's id (e.g.
   * the token usage replayed after thread/resume) and must not be adopted.
   */
  turnFor(nativeTurnId: string | null | undefined, openOrBind = false): CodexTurn | undefined {
    if (nativeTurnId === null || nativeTurnId === undefined || this.finishedNative.has(nativeTurnId)) return undefined;
    const active = this.active;
    if (active !== undefined && !active.finished) {
      if (active.nativeTurnId === nativeTurnId) return active;
      if (openOrBind && active.nativeTurnId === undefined) {
        this.bindNative(active, nativeTurnId);
        return active;
      }
      return undefined;
    }
    if (!openOrBind) return undefined;
    const turn = new CodexTurn(this.deps.ids.mint("turn"), "observed");
    this.knownTurns.add(turn.turnId);
    turn.nativeTurnId = nativeTurnId;
    this.current = turn;
    this.emit(turn, part("state_update", { state: "running" }));
    return turn;
  }

  bindNative(turn: CodexTurn, nativeTurnId: string): void {
    if (turn.nativeTurnId !== undefined) return;
    turn.nativeTurnId = nativeTurnId;
    if (turn.pendingCancel) {
      turn.pendingCancel = false;
      void this.interrupt(turn);
    }
  }

  /** Start a driven turn. Accepted once written; the outcome arrives as events. */
  startTurn(input: PromptInput, extra: Partial<TurnStartParams>): SendTurnResult {
    if (this.dead) throw new BatonError("harness_dead", `Codex app-server is not running (${this.deadReason ?? "dead"})`, { hint: "Re-open the harness; the thread is resumed." });
    const turn = new CodexTurn(input.turnId, "driven");
    this.knownTurns.add(turn.turnId);
    this.current = turn;
    const params: TurnStartParams = { ...(this.summarySent ? {} : { summary: "auto" }), ...extra, threadId: this.threadId, input: toUserInput(input.blocks) };
    this.call("turn/start", params).then(
      (result) => {
        if (params.summary !== undefined) this.summarySent = true;
        if (turn.finished) return;
        this.bindNative(turn, result.turn.id);
        const status = result.turn.status;
        if (status !== "inProgress") this.notifications.dispatch("turn/completed", { threadId: this.threadId, turn: result.turn });
      },
      (error: unknown) => {
        if (turn.finished || isBatonError(error, "harness_dead")) return;
        this.emitError(turn, `Codex did not start the turn: ${describeError(error)}`, "turn_start_failed", false);
        this.finish(turn, "failed");
      },
    );
    return { accepted: true, effective: "new_turn" };
  }

  /**
   * Give the thread history without a turn (CTX-03 sync_context). Measured with codex 0.171.0: a stable
   * method, ~50 ms, no notifications; the item is in the next request before the prompt, survives a resume
   * even when the app-server is SIGKILLed right after answering, and is not a turn item in thread/read.
   */
  async injectContext(blocks: readonly PromptBlock[]): Promise<void> {
    if (this.dead) throw new BatonError("harness_dead", `Codex app-server is not running (${this.deadReason ?? "dead"})`, { hint: "Re-open the harness; the thread is resumed." });
    const items = contextItems(blocks);
    if (items.length === 0) return;
    await this.call("thread/inject_items", { threadId: this.threadId, items }, CONTROL_TIMEOUT_MS);
  }

  /** Native compaction as a control turn (thread/compact/start); its terminal arrives like any turn's. */
  async compact(turnId: TurnId): Promise<SendTurnResult> {
    if (this.dead) throw new BatonError("harness_dead", `Codex app-server is not running (${this.deadReason ?? "dead"})`);
    if (this.current !== undefined && !this.current.finished) return { accepted: false, effective: "rejected", reason: "a turn is running" };
    await this.failedTurns?.leaveBehind(turnId);
    const turn = new CodexTurn(turnId, "control");
    this.knownTurns.add(turn.turnId);
    turn.visible = true;
    this.current = turn;
    this.call("thread/compact/start", { threadId: this.threadId }, SETUP_TIMEOUT_MS).catch((error: unknown) => {
      if (turn.finished || isBatonError(error, "harness_dead")) return;
      this.emitError(turn, `Codex could not compact the thread: ${describeError(error)}`, "compact_failed", false);
      this.finish(turn, "failed");
    });
    return { accepted: true, effective: "new_turn" };
  }

  /** Steer the active turn (COD-04): only when the Baton turn matches and the Codex turn id is known. */
  async steer(input: PromptInput): Promise<SendTurnResult> {
    const turn = this.active;
    if (turn === undefined || turn.finished || turn.turnId !== input.turnId) {
      return { accepted: false, effective: "rejected", reason: "another turn is running" };
    }
    if (turn.nativeTurnId === undefined) return { accepted: false, effective: "rejected", reason: "the Codex turn id is not known yet" };
    try {
      await this.call("turn/steer", { threadId: this.threadId, expectedTurnId: turn.nativeTurnId, input: toUserInput(input.blocks) }, CONTROL_TIMEOUT_MS);
    } catch (error) {
      return { accepted: false, effective: "rejected", reason: describeError(error) };
    }
    // The controller records the steer's user_message once, as the user's (IN-05); the adapter drafts none.
    return { accepted: true, effective: "steer" };
  }

  async cancel(turnId: TurnId): Promise<void> {
    const turn = this.active;
    if (turn === undefined || turn.finished || turn.turnId !== turnId) return;
    if (turn.nativeTurnId === undefined) {
      turn.pendingCancel = true;
      return;
    }
    await this.interrupt(turn);
  }

  /**
   * Send turn/interrupt. The start response can precede the turn becoming interruptible; then
   * Codex answers "no active turn" and the cancel stays pending until `turn/started`.
   */
  async interrupt(turn: CodexTurn): Promise<void> {
    turn.pendingCancel = false;
    if (turn.nativeTurnId === undefined || turn.finished || this.dead) return;
    try {
      await this.call("turn/interrupt", { threadId: this.threadId, turnId: turn.nativeTurnId }, CONTROL_TIMEOUT_MS);
    } catch (error) {
      if (!turn.finished && !turn.started && error instanceof JsonRpcError && /no active turn/i.test(error.message)) {
        turn.pendingCancel = true;
        return;
      }
      this.deps.log.log("warn", "turn/interrupt failed", { error, turnId: turn.turnId });
    }
  }

  /** `code` is Baton's (a limit code, else Codex's own); `nativeCode` Codex's word when they differ. */
  emitError(turn: CodexTurn | undefined, message: string, code: string | { readonly code?: string; readonly nativeCode?: string } | undefined, willRetry: boolean, raw?: unknown): void {
    if (turn !== undefined && !willRetry) turn.errorShown = true;
    const codes = typeof code === "string" ? { code } : (code ?? {});
    this.emit(turn, part("_baton_error_update", { message, ...codes, willRetry }), raw);
  }

  noteFatal(turn: CodexTurn, message: string): void {
    turn.fatalError = message;
    if (turn.fallbackTimer !== undefined) return;
    turn.fallbackTimer = this.deps.clock.setTimeout(() => this.finish(turn, "failed"), FATAL_FALLBACK_MS);
  }

  /** Close a turn exactly once: dangling items, empty-turn notice, then the one idle terminal. */
  finish(turn: CodexTurn, stopReason: StopReason, raw?: unknown): void {
    if (turn.finished) return;
    turn.finished = true;
    if (turn.fallbackTimer !== undefined) this.deps.clock.clearTimeout(turn.fallbackTimer);
    for (const controller of turn.interactions) controller.abort();
    turn.interactions.clear();
    for (const [messageId, text] of turn.openMessages) this.emit(turn, part("agent_message", { messageId, content: text === "" ? [] : [{ type: "text", text }] }));
    for (const [messageId, text] of turn.openThoughts) this.emit(turn, part("agent_thought", { messageId, content: [{ type: "text", text }] }));
    // A tool Codex never finished has no result Baton saw: interrupted, not failed (and never completed).
    for (const toolCallId of turn.openTools) this.emit(turn, part("tool_call_update", { toolCallId, status: "interrupted" }));
    turn.openMessages.clear();
    turn.openThoughts.clear();
    turn.openTools.clear();
    if (stopReason === "end_turn" && !turn.visible) {
      this.emit(turn, part("_baton_notice", { level: "warning", title: "Codex returned an empty turn (no output)" }));
    }
    this.emit(turn, part("state_update", { state: "idle", stopReason }), raw);
    if (turn.nativeTurnId !== undefined) this.finishedNative.add(turn.nativeTurnId);
    if (this.current === turn) this.current = undefined;
  }

  /** Ask the host (IX-01); the item is recorded as "asked" for the bypass heuristic (IX-10). */
  async ask(draft: InteractionDraft, nativeTurnId: string | null, itemId: string, requestId: RpcId, raw: unknown): Promise<InteractionResolution> {
    const turn = this.turnFor(nativeTurnId) ?? (this.active?.finished === false ? this.active : undefined);
    if (turn === undefined) return { outcome: "cancelled", reason: "turn" };
    turn.asked.add(itemId);
    const controller = new AbortController();
    turn.interactions.add(controller);
    this.pendingRequests.set(String(requestId), controller);
    try {
      return await this.deps.interactions.request(draft, { turnId: turn.turnId, harnessSessionId: this.threadId, signal: controller.signal, raw });
    } catch (error) {
      this.deps.log.log("warn", "interaction handler failed; answering cancel", { error, turnId: turn.turnId });
      return { outcome: "cancelled", reason: "requester" };
    } finally {
      turn.interactions.delete(controller);
      this.pendingRequests.delete(String(requestId));
    }
  }

  /** IX-07: one warning per unrecognized decision shape per thread. */
  warnShape(shape: string): void {
    if (this.warnedShapes.has(shape)) return;
    this.warnedShapes.add(shape);
    this.emit(this.active, part("_baton_notice", { level: "warning", title: "Unrecognized approval choices from codex", detail: shape }));
  }

  private onPeerClose(reason: string): void {
    if (this.closing || this.dead) return;
    void exitWithin(this.child.process.exited, EXIT_GRACE_MS).then(() => this.markDead(`${reason}; ${describeExit(this.child.process.exitInfo())}`));
  }

  private onExit(exit: ExitInfo): void {
    if (this.closing) return;
    this.markDead(`codex app-server ${describeExit(exit)}`);
    this.peer.close(`process ${describeExit(exit)}`);
  }

  /** A dead app-server: one error and one failed terminal for the active turn; the handle is then unusable. */
  private markDead(reason: string): void {
    if (this.dead || this.closing) return;
    this.death = reason;
    this.deps.log.log("error", `codex app-server died: ${reason}`);
    const turn = this.active;
    if (turn !== undefined && !turn.finished) {
      this.emitError(turn, `Codex app-server stopped unexpectedly (${reason})`, "harness_dead", false);
      this.finish(turn, "failed");
    }
    this.child.process.kill("SIGKILL");
  }

  /** Host close: the turn ends as cancelled and the peer closes at once, then stdin EOF, then signals; resolves once reaped. */
  async close(): Promise<void> {
    const turn = this.active;
    if (turn !== undefined && !turn.finished) this.finish(turn, "cancelled");
    await this.shutdown();
  }

  /** Stop the process without emitting anything (also used when open fails). */
  async shutdown(): Promise<void> {
    this.closing = true;
    await this.child.close("closed by Baton", APP_SERVER_STOP);
  }
}
