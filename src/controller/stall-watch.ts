/**
 * Stall watch (TURN-08): after a silence on a running turn, say so (L1); if the adapter can reconcile,
 * ask it (L2): idle → synthesize the terminal, active/waiting → refine the notice and keep waiting, unknown →
 * leave the choice to the user. Notices are not activity: repeats double their interval up to a cap, and
 * output from the harness withdraws the notice. There is no wall-clock kill.
 */
import { BATON_SOURCE, type EventDraft } from "../event/envelope.ts";
import { canReconcile, type ReconcileResult } from "../harness/capabilities.ts";
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { Logger } from "../shared/log.ts";
import type { HarnessBinding } from "./binding.ts";
import type { AppendFn } from "./pipeline.ts";
import type { TargetId, TurnId } from "../shared/ids.ts";
import type { TurnRecord } from "./turn-record.ts";

const RECONCILE_TIMEOUT_MS = 10_000;
/** Repeated notices double their interval up to this (unless the configured silence is longer). */
export const STALL_NOTICE_CAP_MS = 10 * 60_000;

export interface StallDeps {
  readonly append: AppendFn;
  readonly clock: Clock;
  readonly silenceMs: number;
  readonly record: (turnId: TurnId) => TurnRecord | undefined;
  readonly binding: (targetId: TargetId) => HarnessBinding | undefined;
  readonly log: Logger;
}

interface Watch {
  readonly record: TurnRecord;
  timer: TimerHandle | undefined;
  lastActivity: number;
  /** Notices since the last activity; each wait doubles so a long silence is not a stream of notices. */
  strikes: number;
  lastNoticeAt: number;
  paused: boolean;
}

export class StallWatch {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly deps: StallDeps) {}

  start(record: TurnRecord): void {
    this.stop(record.turnId);
    const now = this.deps.clock.now();
    const watch: Watch = { record, timer: undefined, lastActivity: now, strikes: 0, lastNoticeAt: now, paused: false };
    this.watches.set(record.turnId, watch);
    this.arm(watch);
  }

  /**
   * Output from the harness (never Baton's own notices). Cheap on the streaming hot path: the timer checks
   * the last activity when it fires. After a stall notice, the notice is withdrawn once.
   */
  touch(turnId: string): void {
    const watch = this.watches.get(turnId);
    if (!watch) return;
    const now = this.deps.clock.now();
    if (watch.strikes > 0) {
      // After a notice the armed wait is a long one: the next silence is measured afresh.
      const silentMs = now - watch.lastActivity;
      watch.strikes = 0;
      watch.lastActivity = now;
      this.write(watch.record, { kind: "_baton_stall_cleared", payload: { silentMs } });
      if (!watch.paused) this.arm(watch);
      return;
    }
    watch.lastActivity = now;
    if (!watch.paused && watch.timer === undefined) this.arm(watch);
  }

  /** A pending interaction makes silence expected: the wait is on the user. */
  pause(turnId: string): void {
    const watch = this.watches.get(turnId);
    if (!watch) return;
    watch.paused = true;
    if (watch.timer) this.deps.clock.clearTimeout(watch.timer);
    watch.timer = undefined;
  }

  resume(turnId: string): void {
    const watch = this.watches.get(turnId);
    if (!watch || !watch.paused) return;
    watch.paused = false;
    watch.lastActivity = this.deps.clock.now();
    watch.strikes = 0;
    this.arm(watch);
  }

  stop(turnId: string): void {
    const watch = this.watches.get(turnId);
    if (watch?.timer) this.deps.clock.clearTimeout(watch.timer);
    this.watches.delete(turnId);
  }

  stopAll(): void {
    for (const turnId of [...this.watches.keys()]) this.stop(turnId);
  }

  /** When the next notice is due: a silence after activity, then doubling waits after each notice, capped. */
  private dueAt(watch: Watch): number {
    if (watch.strikes === 0) return watch.lastActivity + this.deps.silenceMs;
    const cap = Math.max(this.deps.silenceMs, STALL_NOTICE_CAP_MS);
    return watch.lastNoticeAt + Math.min(this.deps.silenceMs * 2 ** watch.strikes, cap);
  }

  private arm(watch: Watch): void {
    if (watch.timer) this.deps.clock.clearTimeout(watch.timer);
    const wait = Math.max(0, this.dueAt(watch) - this.deps.clock.now());
    watch.timer = this.deps.clock.setTimeout(() => void this.fire(watch), wait);
  }

  private async fire(watch: Watch): Promise<void> {
    watch.timer = undefined;
    const record = watch.record;
    if (record.finalized || this.watches.get(record.turnId) !== watch || watch.paused) return;
    const now = this.deps.clock.now();
    if (now < this.dueAt(watch)) {
      this.arm(watch);
      return;
    }
    const silentMs = now - watch.lastActivity;
    watch.strikes += 1;
    watch.lastNoticeAt = now;
    this.notice(record, { silentMs, level: "L1", detail: `No output from ${record.targetId} for ${Math.round(silentMs / 1000)} s. Esc interrupts the turn.` });
    const binding = this.deps.binding(record.targetId);
    const handle = binding?.handle;
    if (binding && handle && canReconcile(binding.adapter)) {
      const result = await withTimeout(binding.adapter.reconcile(handle, record.turnId), RECONCILE_TIMEOUT_MS).catch(
        (error: unknown): ReconcileResult => ({ state: "unknown", detail: error instanceof Error ? error.message : String(error) }),
      );
      if (record.finalized) return;
      // Output that arrived while the harness was being asked already answered the question.
      if (this.watches.get(record.turnId) !== watch || watch.strikes === 0) return;
      this.notice(record, { silentMs, level: "L2", verdict: result.state, ...(result.detail ? { detail: result.detail } : {}) });
      if (result.state === "idle") {
        // A definite idle: the turn is closed through the normal path; the finalizer repairs what it left open.
        this.deps.append({
          kind: "state_update",
          payload: { state: "idle", stopReason: "unknown" },
          source: BATON_SOURCE,
          turnId: record.turnId,
          harnessTargetId: record.targetId,
        });
        return;
      }
    }
    if (this.watches.get(record.turnId) === watch && !watch.paused && watch.timer === undefined) this.arm(watch);
  }

  private notice(record: TurnRecord, payload: Extract<EventDraft, { kind: "_baton_stall_notice" }>["payload"]): void {
    this.write(record, { kind: "_baton_stall_notice", payload });
  }

  private write(record: TurnRecord, draft: Pick<Extract<EventDraft, { kind: "_baton_stall_notice" | "_baton_stall_cleared" }>, "kind" | "payload">): void {
    try {
      this.deps.append({ ...draft, source: BATON_SOURCE, turnId: record.turnId, harnessTargetId: record.targetId } as EventDraft);
    } catch (error) {
      this.deps.log.log("warn", `could not record ${draft.kind}`, { error });
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
