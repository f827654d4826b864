/**
 * One live ACP session behind one Baton handle: the agent process, the SDK connection, the native session id, the
 * driven turn in flight, and its single terminal. Rules (HAR-05, pinned by the contract suite):
 * - one prompt at a time: a second one while a prompt is in flight is refused `busy` (the host queues it);
 * - the prompt result closes the turn (its stopReason passes through the closed vocabulary; missing → unknown);
 *   a JSON-RPC error → one error + `failed`; the agent dying or the transport closing → one error + `failed`;
 * - cancel sends `session/cancel` and answers the turn's pending permission requests `cancelled` at once (the
 *   spec requires it); the host cancels the Interaction cards themselves when the terminal arrives;
 * - while `session/load` runs, every update (the replayed history, already in the ledger) is counted, not mapped.
 */
import type { ClientConnection, RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";
import type { StopReason } from "../../event/stop-reasons.ts";
import type { InteractionResolution } from "../../event/interaction-types.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import { isObjectRecord } from "../../shared/shape.ts";
import type { TurnId } from "../../shared/ids.ts";
import type { Logger } from "../../shared/log.ts";
import type { BindingSink, EventSink, InteractionHandler, PromptInput, SendTurnResult } from "../contract.ts";
import { AcpConfigState } from "./config.ts";
import { describeExit, type AgentProcess, type ClientHandlers } from "./connection.ts";
import { Diagnostics } from "./diagnostics.ts";
import { part, toAdapterDraft, type DraftPart } from "../drafts.ts";
import { AcpMapper } from "./mapper.ts";
import { permissionDraft, permissionOutcome } from "./permissions.ts";
import { toAcpBlocks } from "./prompt.ts";
import { acpStopReason } from "./stop-reason.ts";
import { turnUsage } from "./usage.ts";

export interface SessionDeps {
  readonly process: AgentProcess;
  readonly sink: EventSink;
  readonly interactions: InteractionHandler;
  /** Told when the native session turns out to be gone after all (a prompt's "not found"). */
  readonly binding?: BindingSink;
  readonly log: Logger;
  readonly cwd: string;
  /** How Baton names this agent in messages (the target id). */
  readonly label: string;
}

interface PendingPermission {
  /** Answer the agent `cancelled` now (turn cancelled or ended). */
  cancel(): void;
  /** Withdraw the Interaction (the agent went away). */
  readonly withdraw: AbortController;
}

interface AcpTurn {
  readonly turnId: TurnId;
  finished: boolean;
  readonly permissions: Set<PendingPermission>;
}

/** How long a closed transport waits for the exit status before reporting the death. */
const EXIT_GRACE_MS = 300;

function realDelay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
  });
}

/** A JSON-RPC error the agent answered (as opposed to the transport going away). */
export function rpcErrorOf(error: unknown): { code: number; message: string; data?: unknown } | undefined {
  if (!(error instanceof Error) || error.name !== "RequestError") return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" ? { code, message: error.message, data: (error as { data?: unknown }).data } : undefined;
}

/** ACP's "resource not found", and the words agents use when a session is gone (-32603 with details, -32602). */
const RESOURCE_NOT_FOUND = -32002;
const SESSION_GONE = /(session|thread|conversation)[^"]{0,40}not found|no (such )?(session|thread|conversation)|unknown session/i;

export function isSessionGone(rpc: { code: number; message: string; data?: unknown }): boolean {
  return rpc.code === RESOURCE_NOT_FOUND || SESSION_GONE.test(`${rpc.message} ${JSON.stringify(rpc.data ?? "")}`);
}

export class AcpSession {
  connection: ClientConnection | undefined;
  sessionId = "";
  readonly config = new AcpConfigState();
  readonly mapper: AcpMapper;
  readonly diagnostics: Diagnostics;
  active: AcpTurn | undefined;
  dead = false;
  deadReason: string | undefined;
  closing = false;
  /** Set while `session/load` replays history: the count of updates kept out of the ledger. */
  replaying: { count: number } | undefined;
  private lastConfig = "";
  readonly handlers: ClientHandlers;

  constructor(readonly deps: SessionDeps) {
    this.mapper = new AcpMapper(deps.cwd, this.config);
    this.diagnostics = new Diagnostics(deps.log);
    this.handlers = {
      onUpdate: (params) => this.onUpdate(params),
      onPermission: (params, signal) => this.onPermission(params, signal),
      onOtherNotification: (method, params) => this.diagnostics.record(`notification:${method}`, JSON.stringify(params)?.slice(0, 300) ?? ""),
      onDiagnostic: (key, detail) => this.diagnostics.record(key, detail),
    };
    void deps.process.exited.then((exit) => {
      if (!this.closing) this.markDead(`the agent ${describeExit(exit)}`);
    });
  }

  /** Connected: a closed transport is a death too (after a short wait for the exit status). */
  attach(connection: ClientConnection): void {
    this.connection = connection;
    void connection.closed.then(async () => {
      if (this.closing || this.dead) return;
      await Promise.race([this.deps.process.exited, realDelay(EXIT_GRACE_MS)]);
      this.markDead(`the connection closed; ${describeExit(this.deps.process.exitInfo())}`);
    });
  }

  get wire(): ClientConnection["agent"] {
    if (this.connection === undefined) throw new BatonError("internal", "ACP session used before it was connected");
    return this.connection.agent;
  }

  emit(draft: DraftPart, raw?: unknown): void {
    try {
      this.deps.sink.emit(toAdapterDraft(draft, { harnessSessionId: this.sessionId, raw }));
    } catch (error) {
      this.deps.log.log("error", "event sink threw", { error });
    }
  }

  /** Publish the model/effort/mode snapshot when it changed since the last one. */
  emitConfig(turnId?: TurnId): void {
    const options = this.config.snapshot();
    const key = JSON.stringify(options);
    if (key === this.lastConfig) return;
    this.lastConfig = key;
    this.emit(part("config_option_update", { options }, turnId));
  }

  private onUpdate(params: unknown): void {
    const sessionId = isObjectRecord(params) ? params["sessionId"] : undefined;
    if (this.replaying !== undefined && (sessionId === this.sessionId || this.sessionId === "")) {
      this.replaying.count++;
      return;
    }
    if (this.sessionId !== "" && sessionId !== this.sessionId) {
      this.diagnostics.record("update:for another session", String(sessionId));
      return;
    }
    const update = isObjectRecord(params) ? params["update"] : undefined;
    const result = this.mapper.map(update, this.active?.finished === false ? this.active.turnId : undefined);
    for (const draft of result.drafts) {
      if (draft.kind === "config_option_update") this.emitConfig(draft.turnId);
      else this.emit(draft, params);
    }
    for (const diagnostic of result.diagnostics) this.diagnostics.record(diagnostic.key, diagnostic.detail);
  }

  private async onPermission(params: unknown, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const cancelled: RequestPermissionResponse = { outcome: { outcome: "cancelled" } };
    const turn = this.active;
    const request = isObjectRecord(params) ? params : {};
    if (turn === undefined || turn.finished || request["sessionId"] !== this.sessionId) {
      this.diagnostics.record("permission:outside a turn", JSON.stringify(params)?.slice(0, 300) ?? "");
      return cancelled;
    }
    const toolCall = isObjectRecord(request["toolCall"]) ? request["toolCall"] : {};
    for (const draft of this.mapper.permissionToolCall(toolCall, turn.turnId)) this.emit(draft, params);
    const mapped = permissionDraft({
      ...(typeof toolCall["toolCallId"] === "string" ? { toolCallId: toolCall["toolCallId"] } : {}),
      title: typeof toolCall["title"] === "string" ? toolCall["title"] : null,
      options: Array.isArray(request["options"]) ? request["options"].filter(isObjectRecord) : [],
      kind: toolCall["kind"],
      rawInput: toolCall["rawInput"],
      locations: toolCall["locations"],
    });
    if (mapped.unknownKinds.length > 0) this.diagnostics.record("permission:unknown option kind", mapped.unknownKinds.join(", "));
    if (mapped.draft.options.length === 0) {
      this.emit(part("_baton_notice", { level: "warning", title: `${this.deps.label} asked for a permission Baton cannot offer (no option of a known kind); it was declined` }, turn.turnId), params);
      return cancelled;
    }
    let answerNow: ((resolution: InteractionResolution) => void) | undefined;
    const early = new Promise<InteractionResolution>((resolve) => (answerNow = resolve));
    const pending: PendingPermission = { cancel: () => answerNow?.({ outcome: "cancelled", reason: "turn" }), withdraw: new AbortController() };
    const onAbort = () => pending.withdraw.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    turn.permissions.add(pending);
    try {
      const asked = this.deps.interactions.request(mapped.draft, { turnId: turn.turnId, harnessSessionId: this.sessionId, signal: pending.withdraw.signal, raw: params });
      const resolution = await Promise.race([asked, early]);
      return permissionOutcome(resolution, mapped.draft.options);
    } catch (error) {
      this.deps.log.log("warn", "interaction handler failed; answering cancelled", { error, turnId: turn.turnId });
      return cancelled;
    } finally {
      signal.removeEventListener("abort", onAbort);
      turn.permissions.delete(pending);
    }
  }

  /** Send a driven turn. Accepted once the prompt is on its way; the outcome arrives as events. */
  sendTurn(input: PromptInput): SendTurnResult {
    if (this.dead) throw new BatonError("harness_dead", `${this.deps.label} is not running (${this.deadReason ?? "dead"})`, { hint: "The next prompt starts it again and resumes the session." });
    if (this.active !== undefined && !this.active.finished) return { accepted: false, effective: "rejected", reason: "busy" };
    const turn: AcpTurn = { turnId: input.turnId, finished: false, permissions: new Set() };
    this.active = turn;
    this.wire.request("session/prompt", { sessionId: this.sessionId, prompt: toAcpBlocks(input.blocks) }).then(
      (result) => {
        if (turn.finished) return;
        const usage = turnUsage(result.usage);
        if (usage !== undefined) this.emit(part("usage_update", usage, turn.turnId), result);
        this.finish(turn, acpStopReason(result.stopReason), result.stopReason, result);
      },
      (error: unknown) => {
        if (turn.finished || this.closing) return;
        const rpc = rpcErrorOf(error);
        if (rpc === undefined) return this.markDead(`the connection closed (${describeError(error)}); ${describeExit(this.deps.process.exitInfo())}`);
        const gone = isSessionGone(rpc);
        const detail = typeof (rpc.data as { details?: unknown } | undefined)?.details === "string" ? ` (${String((rpc.data as { details: string }).details)})` : "";
        this.emit(
          part(
            "_baton_error_update",
            { message: `${this.deps.label}: ${rpc.message}${detail}${gone ? "; its session is gone, the next prompt starts a new one with the history" : ""}`, code: String(rpc.code) },
            turn.turnId,
          ),
          { error: rpc },
        );
        this.finish(turn, "failed");
        if (gone) this.lose(`${this.deps.label} no longer has session ${this.sessionId}: ${rpc.message}${detail}`);
      },
    );
    return { accepted: true, effective: "new_turn" };
  }

  async cancel(turnId: TurnId): Promise<void> {
    const turn = this.active;
    if (turn === undefined || turn.finished || turn.turnId !== turnId || this.dead) return;
    for (const pending of turn.permissions) pending.cancel();
    await this.wire.notify("session/cancel", { sessionId: this.sessionId }).catch((error: unknown) => this.deps.log.log("warn", "session/cancel failed", { error, turnId }));
  }

  /** Close a turn exactly once: pending permissions answered, open messages completed, then the one idle. */
  finish(turn: AcpTurn, closed: StopReason, nativeStopReason?: unknown, raw?: unknown): void {
    if (turn.finished) return;
    turn.finished = true;
    for (const pending of turn.permissions) pending.cancel();
    for (const draft of this.mapper.finishTurn(turn.turnId)) this.emit(draft);
    const native = typeof nativeStopReason === "string" && nativeStopReason !== closed ? { nativeStopReason } : {};
    this.emit(part("state_update", { state: "idle", stopReason: closed, ...native }, turn.turnId), raw);
    if (this.active === turn) this.active = undefined;
  }

  /** The agent is gone: one error and one failed terminal for the turn in flight; the handle stays dead. */
  markDead(reason: string): void {
    if (this.dead || this.closing) return;
    this.dead = true;
    this.deadReason = reason;
    this.deps.log.log("error", `${this.deps.label} died: ${reason}`);
    const turn = this.active;
    if (turn !== undefined && !turn.finished) {
      for (const pending of turn.permissions) pending.withdraw.abort();
      this.emit(part("_baton_error_update", { message: `${this.deps.label} stopped unexpectedly (${reason})`, code: "harness_dead" }, turn.turnId));
      this.finish(turn, "failed");
    }
    this.connection?.close();
    this.deps.process.signal("SIGKILL");
  }

  /**
   * The agent answered for a session it no longer has: the host is told (it delivers the whole history to the
   * next native session) and this handle is retired quietly, so the next prompt opens a new session.
   */
  private lose(reason: string): void {
    this.deps.binding?.markFresh?.(reason);
    this.dead = true;
    this.deadReason = reason;
    this.closing = true;
    void this.shutdown();
  }

  /**
   * Host close: the turn in flight ends `cancelled`; `session/close` when the agent has it; then stdin EOF, up to
   * 3 s for the agent to exit, SIGTERM, 2 s more, SIGKILL (to its whole process group).
   */
  async close(sessionClose: boolean): Promise<void> {
    const turn = this.active;
    if (turn !== undefined && !turn.finished) this.finish(turn, "cancelled");
    this.closing = true;
    if (sessionClose && !this.dead && this.sessionId !== "" && this.connection !== undefined) {
      await Promise.race([this.wire.request("session/close", { sessionId: this.sessionId }).catch(() => undefined), realDelay(1_000)]);
    }
    await this.shutdown();
  }

  /** Stop the process without emitting anything (also when open fails). */
  async shutdown(): Promise<void> {
    this.closing = true;
    this.connection?.close();
    const counts = this.diagnostics.snapshot();
    if (Object.keys(counts).length > 0) this.deps.log.log("info", "acp: not mapped (counts)", { attributes: counts });
    await this.deps.process.stop({ eofGraceMs: 3_000, termGraceMs: 2_000 });
  }
}
