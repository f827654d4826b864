/**
 * Exactly-once finalize by turn id (TURN-02/03): the first terminal closes the turn, later ones are inert
 * (except that a late harness terminal can still settle an `uncertain` attempt, ATT-03).
 */
import { BATON_SOURCE, type AnyEvent } from "../event/envelope.ts";
import { outcomeOfStopReason, readStopReason, type StopReason } from "../event/stop-reasons.ts";
import type { InputQueue } from "../input/queue.ts";
import { buildTurnSummary, type ProjectionState } from "../projection/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { AttemptId, TurnId } from "../shared/ids.ts";
import { recordAttempt } from "./attempts.ts";
import { compactionNotice, contextUsedOf } from "./compaction.ts";
import { repairOpenTools } from "./repair.ts";
import { withHint } from "./turn-errors.ts";
import { BatonError } from "../shared/errors.ts";
import type { InteractionBroker } from "../interaction/broker.ts";
import type { AppendFn } from "./pipeline.ts";
import type { TurnRecord } from "./turn-record.ts";
import { decideTerminal, type AttemptStep } from "./terminal-decision.ts";

export const INTERRUPTED_NOTICE = "Conversation interrupted — tell the agent what to do differently";

export interface FinalizerDeps {
  readonly append: AppendFn;
  readonly state: () => ProjectionState;
  readonly broker: InteractionBroker;
  readonly clock: Clock;
  readonly turns: Map<TurnId, TurnRecord>;
  readonly queue: InputQueue;
  readonly onReleased: (record: TurnRecord) => void;
}

export class TurnFinalizer {
  private readonly finalized = new Set<TurnId>();
  /** Attempts left `uncertain` by a synthesized terminal; a late harness terminal settles them. */
  private readonly uncertain = new Map<TurnId, { attemptId: AttemptId; record: TurnRecord }>();

  constructor(private readonly deps: FinalizerDeps) {}

  isFinalized(turnId: TurnId): boolean {
    return this.finalized.has(turnId);
  }

  /** Close a turn from Baton's side through the normal append path (the listener routes it back here). */
  synthesizeTerminal(record: TurnRecord, stopReason: StopReason): void {
    if (record.finalized) return;
    try {
      this.deps.append({
        kind: "state_update",
        payload: { state: "idle", stopReason },
        source: BATON_SOURCE,
        turnId: record.turnId,
        harnessTargetId: record.targetId,
      });
    } catch (error) {
      this.closeUnrecorded(record.turnId, stopReason, error);
    }
  }

  /** TURN-06: a startup or admission failure is an error event and an `error` terminal (the message stays). */
  fail(record: TurnRecord, error: unknown): void {
    try {
      this.deps.append({
        kind: "_baton_error_update",
        payload: { message: withHint(error), retryable: false, ...(error instanceof BatonError ? { code: error.code } : {}) },
        source: BATON_SOURCE,
        turnId: record.turnId,
        harnessTargetId: record.targetId,
      });
    } catch {
      // the terminal below closes the turn either way
    }
    this.synthesizeTerminal(record, "error");
  }

  /**
   * The ledger refused a turn's terminal (disk full, I/O error). The turn is closed in memory so the queue
   * moves on and nobody waits forever; the ledger still shows it running, so reopening the session closes
   * it with a recovery notice. Whatever else can still be recorded is, best effort.
   */
  closeUnrecorded(turnId: TurnId, stopReason: StopReason | undefined, error: unknown): void {
    const record = this.deps.turns.get(turnId);
    if (!record || record.finalized) return;
    record.finalized = true;
    this.deps.turns.delete(turnId);
    this.finalized.add(turnId);
    record.failure ??= error instanceof Error ? error : new Error(String(error));
    void this.deps.broker.cancelForTurn(turnId, "turn").catch(() => undefined);
    this.settleInputs(record, stopReason);
    this.deps.onReleased(record);
  }

  onTerminal(turnId: TurnId, event: AnyEvent): void {
    const stopReason = readStopReason((event.payload as { stopReason?: unknown }).stopReason);
    const fromHarness = event.source.type === "harness";
    const live = this.deps.turns.get(turnId);
    const record = live?.finalized === false ? live : undefined;
    const decision = decideTerminal({
      fromHarness,
      stopReason,
      uncertain: this.uncertain.has(turnId),
      ...(record ? { open: { role: record.role, compact: record.compact === true, attemptPhase: record.attemptId ? record.attemptPhase : undefined } } : {}),
    });
    if (decision.kind === "inert") return;
    if (decision.kind === "settle_late" || record === undefined) {
      if (decision.kind === "settle_late") this.settleLateAttempt(turnId, decision.step);
      return;
    }
    record.finalized = true;
    this.deps.turns.delete(turnId);
    this.finalized.add(turnId);
    try {
      // (1) the delivery attempt observes the terminal
      for (const step of decision.attempt) this.appendStep(record, step);
      if (decision.awaitLate && record.attemptId) this.uncertain.set(record.turnId, { attemptId: record.attemptId, record });
      // (3) open cards of this turn are cancelled (appends happen synchronously, in order), and tool calls it
      // left pending or running are closed as interrupted (a repair, never a success)
      void this.deps.broker.cancelForTurn(turnId, "turn").catch(() => undefined);
      repairOpenTools(this.deps.state(), this.deps.append, turnId, record.targetId);
      // (4) a cancelled driven turn says what to do next
      if (decision.notice === "interrupted") {
        this.deps.append({
          kind: "_baton_notice",
          payload: { level: "info", title: INTERRUPTED_NOTICE },
          source: BATON_SOURCE,
          turnId: record.turnId,
          harnessTargetId: record.targetId,
        });
      }
      // (4b) a compaction says what it did to the context (#11.15)
      if (decision.notice === "compaction") {
        this.deps.append({
          kind: "_baton_notice",
          payload: compactionNotice(record.contextBefore, contextUsedOf(this.deps.state(), record.targetId), stopReason),
          source: BATON_SOURCE,
          turnId: record.turnId,
          harnessTargetId: record.targetId,
        });
      }
      // (5) one summary, built from the turn's in-memory state
      const endedAt = new Date(this.deps.clock.now()).toISOString();
      this.deps.append({
        kind: "_baton_turn_summary",
        payload: buildTurnSummary(this.deps.state(), turnId, stopReason ?? "unknown", endedAt),
        source: BATON_SOURCE,
        ...(record.admissionEventId !== undefined ? { parentEventId: record.admissionEventId } : {}),
        turnId: record.turnId,
        harnessTargetId: record.targetId,
      });
    } catch (error) {
      // The turn ended but its closing record could not be written (a full disk): its submitter hears why.
      record.failure ??= error instanceof Error ? error : new Error(String(error));
      void this.deps.broker.cancelForTurn(turnId, "turn").catch(() => undefined);
    } finally {
      // (6) inputs and steers settle, the queue moves on — whatever could or could not be written above
      this.settleInputs(record, stopReason);
      this.deps.onReleased(record);
    }
  }

  private appendStep(record: TurnRecord, step: AttemptStep): void {
    const { phase, ...fields } = step;
    recordAttempt(this.deps.append, record, phase, fields);
  }

  private settleLateAttempt(turnId: TurnId, step: AttemptStep): void {
    const entry = this.uncertain.get(turnId);
    if (!entry) return;
    this.uncertain.delete(turnId);
    try {
      this.appendStep(entry.record, step);
    } catch {
      // not recorded (storage failure): reopening settles the attempt from the ledger
    }
  }

  private settleInputs(record: TurnRecord, stopReason: StopReason | undefined): void {
    const outcome = outcomeOfStopReason(stopReason);
    const ids = [...(record.input ? [record.input.messageId] : []), ...record.steers];
    for (const messageId of ids) {
      if (record.failure && messageId === record.input?.messageId) {
        this.deps.queue.fail(messageId, record.failure);
        continue;
      }
      if (outcome === "cancelled") this.deps.queue.finish(messageId, "interrupted", "interrupted");
      else this.deps.queue.finish(messageId, "finalized", outcome);
    }
  }
}

export type Routed =
  | { readonly kind: "terminal"; readonly turnId: TurnId }
  | { readonly kind: "observed"; readonly record: TurnRecord }
  | { readonly kind: "activity"; readonly turnId: TurnId }
  | { readonly kind: "none" };

/**
 * Every appended event passes here: an idle closes its turn (TURN-02); the first harness-sourced
 * `running` with an unknown turn id starts an observed turn (TURN-01); anything else with a turn id that
 * Baton did not write itself is activity for the stall watch (its own notices are not, TURN-08).
 */
export function routeEvent(event: AnyEvent, turns: Map<TurnId, TurnRecord>, finalizer: TurnFinalizer): Routed {
  const turnId = event.turnId;
  if (turnId === undefined) return { kind: "none" };
  if (event.kind !== "state_update") return event.source.type === "baton" ? { kind: "none" } : { kind: "activity", turnId };
  const state = (event.payload as { state?: string }).state;
  if (state === "idle") {
    finalizer.onTerminal(turnId, event);
    return { kind: "terminal", turnId };
  }
  if (state === "running" && event.source.type === "harness" && !turns.has(turnId) && !finalizer.isFinalized(turnId)) {
    const record: TurnRecord = {
      turnId,
      role: "observed",
      targetId: event.harnessTargetId ?? event.source.harnessTargetId,
      steers: [],
      phase: "dispatched",
      cancelRequested: false,
      finalized: false,
    };
    turns.set(turnId, record);
    return { kind: "observed", record };
  }
  return event.source.type === "baton" ? { kind: "none" } : { kind: "activity", turnId };
}
