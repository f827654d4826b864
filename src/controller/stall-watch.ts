/**
 * Stall watch (TURN-08): after a silence on a running turn, say so (L1); if the adapter can reconcile,
 * ask it (L2): idle → synthesize the terminal, active/waiting → note it and keep waiting, unknown → leave
 * the choice to the user. There is no wall-clock kill.
 */
import type { EventDraft } from "../event/envelope.ts";
import { canReconcile, type ReconcileResult } from "../harness/capabilities.ts";
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { Logger } from "../shared/log.ts";
import type { HarnessBinding } from "./binding.ts";
import type { AppendFn } from "./pipeline.ts";
import type { TurnRecord } from "./turn-record.ts";

const RECONCILE_TIMEOUT_MS = 10_000;

export interface StallDeps {
  readonly append: AppendFn;
  readonly clock: Clock;
  readonly silenceMs: number;
  readonly record: (turnId: string) => TurnRecord | undefined;
  readonly binding: (targetId: string) => HarnessBinding | undefined;
  readonly log: Logger;
}

interface Watch {
  readonly record: TurnRecord;
  timer: TimerHandle | undefined;
  lastActivity: number;
  /** Consecutive stall notices; the next wait doubles so a long silence is not a stream of notices. */
  strikes: number;
  paused: boolean;
}

export class StallWatch {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly deps: StallDeps) {}

  start(record: TurnRecord): void {
    this.stop(record.turnId);
    const watch: Watch = { record, timer: undefined, lastActivity: this.deps.clock.now(), strikes: 0, paused: false };
    this.watches.set(record.turnId, watch);
    this.arm(watch);
  }

  touch(turnId: string): void {
    const watch = this.watches.get(turnId);
    if (!watch) return;
    // Cheap on the streaming hot path: the timer checks the last activity when it fires.
    watch.lastActivity = this.deps.clock.now();
    watch.strikes = 0;
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

  private arm(watch: Watch, wait = this.deps.silenceMs * 2 ** watch.strikes): void {
    if (watch.timer) this.deps.clock.clearTimeout(watch.timer);
    watch.timer = this.deps.clock.setTimeout(() => void this.fire(watch), wait);
  }

  private async fire(watch: Watch): Promise<void> {
    watch.timer = undefined;
    const record = watch.record;
    if (record.finalized || this.watches.get(record.turnId) !== watch || watch.paused) return;
    const silentMs = this.deps.clock.now() - watch.lastActivity;
    const due = this.deps.silenceMs * 2 ** watch.strikes;
    if (silentMs < due) {
      this.arm(watch, due - silentMs);
      return;
    }
    watch.strikes += 1;
    this.append(record, { silentMs, level: "L1", detail: `No output from ${record.targetId} for ${Math.round(silentMs / 1000)} s. Esc interrupts the turn.` });
    const binding = this.deps.binding(record.targetId);
    const handle = binding?.handle;
    if (binding && handle && canReconcile(binding.adapter)) {
      const result = await withTimeout(binding.adapter.reconcile(handle, record.turnId), RECONCILE_TIMEOUT_MS).catch(
        (error: unknown): ReconcileResult => ({ state: "unknown", detail: error instanceof Error ? error.message : String(error) }),
      );
      if (record.finalized) return;
      this.append(record, { silentMs, level: "L2", verdict: result.state, ...(result.detail ? { detail: result.detail } : {}) });
      if (result.state === "idle") {
        this.deps.append({
          kind: "state_update",
          payload: { state: "idle", stopReason: "unknown" },
          source: { type: "baton" },
          turnId: record.turnId,
          harnessTargetId: record.targetId,
        });
        return;
      }
    }
    if (this.watches.get(record.turnId) === watch && !watch.paused) this.arm(watch);
  }

  private append(record: TurnRecord, payload: Extract<EventDraft, { kind: "_baton_stall_notice" }>["payload"]): void {
    try {
      this.deps.append({ kind: "_baton_stall_notice", payload, source: { type: "baton" }, turnId: record.turnId, harnessTargetId: record.targetId });
    } catch (error) {
      this.deps.log.log("warn", "could not record a stall notice", { error });
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
