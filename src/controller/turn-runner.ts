/**
 * Running one admitted driven turn: cold start (TURN-04), context delivery (CTX-03), the Delivery
 * Attempt (ATT-01/02) and dispatch. Failures become events (TURN-06) through `fail`.
 */
import { canCompact, canSyncContext, supportedPromptBlocks } from "../harness/capabilities.ts";
import type { HarnessHandle, SendTurnResult } from "../harness/contract.ts";
import { unsupportedBlocks } from "../harness/contract.ts";
import type { ProjectionState } from "../projection/index.ts";
import { BatonError, isBatonError } from "../shared/errors.ts";
import type { IdSource, TargetId } from "../shared/ids.ts";
import type { Logger } from "../shared/log.ts";
import { recordAttempt } from "./attempts.ts";
import type { HarnessBinding } from "./binding.ts";
import { appendReceipt, applyDelivery, planAttachments, planDelivery, type PlannedDelivery } from "./context-delivery.ts";
import type { AppendFn } from "./pipeline.ts";
import type { ControllerSettings, TurnCheckpoints } from "./ports.ts";
import type { TurnRecord } from "./turn-record.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

export interface RunnerDeps {
  readonly sessionId: string;
  readonly append: AppendFn;
  readonly sync: () => Promise<void>;
  readonly state: () => ProjectionState;
  readonly ids: IdSource;
  readonly log: Logger;
  readonly settings: ControllerSettings;
  readonly binding: (targetId: TargetId) => HarnessBinding;
  readonly fail: (record: TurnRecord, error: unknown) => void;
  readonly label: (targetId: TargetId) => string;
  /** File checkpoints around driven turns (none: off). */
  readonly fileCheckpoints?: TurnCheckpoints | undefined;
}

export class TurnRunner {
  constructor(private readonly deps: RunnerDeps) {}

  async run(record: TurnRecord): Promise<void> {
    // The before-turn file checkpoint starts at admission, beside the cold start; dispatch waits for it.
    if (this.deps.fileCheckpoints && !record.compact) record.checkpoint = this.deps.fileCheckpoints.before(record);
    try {
      await this.dispatch(record, true);
    } catch (error) {
      this.deps.log.log("warn", `turn ${record.turnId} failed to start`, { error, turnId: record.turnId });
      this.deps.fail(record, error);
    }
  }

  private async dispatch(record: TurnRecord, mayRetry: boolean): Promise<void> {
    const binding = this.deps.binding(record.targetId);
    const handle = await this.open(record, binding);
    if (record.finalized) return; // cancelled while starting: the binding stays open for the next turn
    const blocks = record.input?.submission.blocks ?? [];
    const unsupported = unsupportedBlocks(blocks, supportedPromptBlocks(binding.adapter.capabilities));
    if (unsupported.length > 0) {
      throw new BatonError("prompt_unsupported", `${record.targetId} does not accept ${unsupported.join(", ")} blocks`);
    }
    const history = record.compact ? undefined : planDelivery(this.deliveryDeps(), this.deps.state(), binding, record.turnId);
    const attached = record.compact ? [] : planAttachments(this.deliveryDeps(), this.deps.state(), binding, record.turnId, record.input?.submission.context ?? []);
    const deliveries = [...(history === undefined ? [] : [history]), ...attached];

    // The working tree is checkpointed before the harness can touch it (a no-op when it already was).
    if (record.checkpoint) await record.checkpoint;
    if (record.finalized) return;

    record.attemptId = this.deps.ids.mint("attempt");
    delete record.attemptPhase;
    recordAttempt(this.deps.append, record, "prepared", {
      ...(record.input ? { inputId: record.input.messageId } : {}),
      launchSnapshot: binding.launchSnapshot(),
    });
    // Facts before effects: the user message and `prepared` are on disk before the harness sees anything.
    await this.deps.sync();
    if (record.finalized) return;
    recordAttempt(this.deps.append, record, "dispatching");
    record.phase = "dispatched";

    let result: SendTurnResult;
    try {
      for (const delivery of deliveries) {
        if (delivery.transport !== "sync_context" || !canSyncContext(binding.adapter)) continue;
        await binding.adapter.syncContext(handle, [{ type: "text", text: delivery.text }]);
        appendReceipt(this.deps.append, delivery, record.turnId, record.targetId);
      }
      result = await this.send(record, binding, handle, deliveries);
    } catch (error) {
      if (record.attemptPhase === "dispatching") {
        recordAttempt(this.deps.append, record, "finalized", { outcome: "not_accepted", detail: describe(error) });
      }
      if (mayRetry && isBatonError(error, "harness_dead") && !record.finalized) {
        // The harness died before accepting: start a fresh process, resume, and make a new attempt.
        record.phase = "preparing";
        await binding.reset();
        return this.dispatch(record, false);
      }
      throw error;
    }
    if (!result.accepted) {
      recordAttempt(this.deps.append, record, "finalized", { outcome: "not_accepted", detail: result.reason ?? "rejected" });
      throw new BatonError("harness_start_failed", `${record.targetId} did not accept the turn${result.reason ? `: ${result.reason}` : ""}`);
    }
    if (result.effective !== "new_turn") {
      throw new BatonError("contract_violation", `${record.targetId} answered a new turn with '${result.effective}'`);
    }
    if (record.attemptPhase === "dispatching") recordAttempt(this.deps.append, record, "accepted");
    binding.markUsed();
    for (const delivery of deliveries) if (delivery.transport !== "sync_context") appendReceipt(this.deps.append, delivery, record.turnId, record.targetId);
  }

  private async open(record: TurnRecord, binding: HarnessBinding): Promise<HarnessHandle> {
    if (binding.handle) return binding.handle;
    this.deps.append({
      kind: "_baton_run_status",
      payload: { phase: "starting", title: `Starting ${this.deps.label(record.targetId)}…` },
      source: BATON_SOURCE,
      turnId: record.turnId,
      harnessTargetId: record.targetId,
    });
    try {
      return await binding.ensureOpen(record.turnId);
    } finally {
      if (!record.finalized) {
        this.deps.append({
          kind: "_baton_run_status",
          payload: { phase: null },
          source: BATON_SOURCE,
          turnId: record.turnId,
          harnessTargetId: record.targetId,
        });
      }
    }
  }

  private send(record: TurnRecord, binding: HarnessBinding, handle: HarnessHandle, deliveries: readonly PlannedDelivery[]): Promise<SendTurnResult> {
    if (record.compact) {
      if (!canCompact(binding.adapter)) throw new BatonError("prompt_unsupported", `${record.targetId} cannot compact its context`);
      return binding.adapter.compactContext(handle, record.turnId);
    }
    const input = record.input;
    if (!input) throw new BatonError("internal", `turn ${record.turnId} has no input`);
    return binding.adapter.sendTurn(handle, { turnId: record.turnId, messageId: input.messageId, blocks: applyDelivery(input.submission.blocks, deliveries) });
  }

  private deliveryDeps() {
    return {
      append: this.deps.append,
      ids: this.deps.ids,
      sessionId: this.deps.sessionId,
      budgetChars: this.deps.settings.mentionBudgetChars,
      label: this.deps.label,
    };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
