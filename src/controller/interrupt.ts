/**
 * Cancel (TURN-05): nothing dispatched yet → close at once; otherwise ask the harness and arm a grace
 * timer. Expiry or a failing cancel call → a Baton error and a synthesized idle(cancelled); the harness
 * is then treated as wedged and the next turn gets a fresh (resumed) process.
 */
import type { StopReason } from "../event/stop-reasons.ts";
import type { Clock } from "../shared/clock.ts";
import { describeError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import type { HarnessBinding } from "./binding.ts";
import type { AppendFn } from "./pipeline.ts";
import type { TurnRecord } from "./turn-record.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

export interface InterruptDeps {
  readonly append: AppendFn;
  readonly clock: Clock;
  readonly log: Logger;
  readonly graceMs: number;
  readonly binding: HarnessBinding | undefined;
  readonly synthesize: (stopReason: StopReason) => void;
}

export function interruptTurn(record: TurnRecord, deps: InterruptDeps): void {
  record.cancelRequested = true;
  if (record.phase === "preparing") {
    deps.synthesize("cancelled");
    return;
  }
  const handle = deps.binding?.handle;
  const grace = (): void => {
    if (record.finalized) return;
    try {
      deps.append({
        kind: "_baton_error_update",
        payload: { message: `${record.targetId} did not confirm the interrupt in time; Baton closed the turn`, retryable: false },
        source: BATON_SOURCE,
        turnId: record.turnId,
        harnessTargetId: record.targetId,
      });
    } catch (error) {
      deps.log.log("error", "could not record the interrupt timeout", { error });
    }
    deps.synthesize("cancelled");
    void deps.binding?.reset();
  };
  // Pressing Esc again asks again but never postpones the deadline of the first request.
  record.graceTimer ??= deps.clock.setTimeout(grace, deps.graceMs);
  if (!deps.binding || !handle) {
    grace();
    return;
  }
  deps.binding.adapter.cancel(handle, record.turnId).catch((error: unknown) => {
    deps.log.log("warn", `cancel failed: ${describeError(error)}`, { error, turnId: record.turnId });
    grace();
  });
}
