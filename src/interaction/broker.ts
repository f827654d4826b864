/**
 * Interactions (IX-01..05): adapters submit drafts and await; the broker mints `ix_`, appends
 * `interaction.opened`, and exactly one `interaction.resolved`. A stale answer writes nothing.
 */
import { BATON_SOURCE, type EventDraft } from "../event/envelope.ts";
import type { InteractionDraft, InteractionResolution, CancelReason, Requester } from "../event/interaction-types.ts";
import { BatonError } from "../shared/errors.ts";
import type { IdSource, InteractionId, TargetId, TurnId } from "../shared/ids.ts";

export interface PendingInteraction {
  readonly interactionId: InteractionId;
  /** Undefined for a question Baton itself asks outside any turn (e.g. plugin consent). */
  readonly turnId: TurnId | undefined;
  readonly targetId: TargetId | undefined;
  readonly draft: InteractionDraft;
}

/** Decides interactions without a person (e.g. `baton exec --approve allow`). */
export type InteractionPolicy = (interaction: PendingInteraction) => InteractionResolution | undefined;

interface Waiter {
  readonly pending: PendingInteraction;
  readonly settle: (resolution: InteractionResolution) => void;
  readonly cleanup: () => void;
}

export interface BrokerDeps {
  /** Stamp, write and broadcast one event (the controller's pipeline); throws when it cannot be written. */
  readonly append: (draft: EventDraft) => unknown;
  /** Make what was appended durable before the requester acts on it. */
  readonly ledger: { sync(): Promise<void> };
  readonly ids: IdSource;
  /** Called after an interaction opens (UI refresh, policies). */
  readonly onOpened?: (pending: PendingInteraction) => void;
}

export class InteractionBroker {
  private readonly waiters = new Map<string, Waiter>();
  private policy: InteractionPolicy | undefined;

  constructor(private readonly deps: BrokerDeps) {}

  setPolicy(policy: InteractionPolicy | undefined): void {
    this.policy = policy;
  }

  /** The adapter side: open a card and wait for its one resolution. */
  request(
    target: { readonly id: TargetId; readonly harness: string },
    draft: InteractionDraft,
    context: { readonly turnId: TurnId; readonly harnessSessionId?: string; readonly signal?: AbortSignal; readonly raw?: unknown },
  ): Promise<InteractionResolution> {
    const interactionId = this.deps.ids.mint("interaction");
    const requester: Requester = { type: "harness", harnessTargetId: target.id };
    this.deps.append({
      kind: "interaction.opened",
      payload: { interactionId, requester, draft },
      source: { type: "harness", harnessTargetId: target.id },
      harness: target.harness,
      harnessTargetId: target.id,
      turnId: context.turnId,
      ...(context.harnessSessionId === undefined ? {} : { harnessSessionId: context.harnessSessionId }),
      ...(context.raw === undefined ? {} : { raw: context.raw }),
    });
    const pending: PendingInteraction = { interactionId, turnId: context.turnId, targetId: target.id, draft };
    const promise = new Promise<InteractionResolution>((resolve) => {
      const onAbort = (): void => {
        void this.resolveQuietly(interactionId, { outcome: "cancelled", reason: "requester" });
      };
      context.signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.set(interactionId, {
        pending,
        settle: resolve,
        cleanup: () => context.signal?.removeEventListener("abort", onAbort),
      });
      if (context.signal?.aborted) onAbort();
    });
    this.deps.onOpened?.(pending);
    const automatic = this.policy?.(pending);
    if (automatic) void this.resolveQuietly(interactionId, automatic);
    return promise;
  }

  /**
   * Baton's own question outside any turn (e.g. consent to enable a plugin): requester and source `baton`,
   * no turn, so it blocks nothing; a dead process leaves it to recovery (cancelled on reopen).
   */
  requestFromBaton(draft: InteractionDraft, signal?: AbortSignal): Promise<InteractionResolution> {
    const interactionId = this.deps.ids.mint("interaction");
    this.deps.append({ kind: "interaction.opened", payload: { interactionId, requester: { type: "baton" }, draft }, source: BATON_SOURCE });
    const pending: PendingInteraction = { interactionId, turnId: undefined, targetId: undefined, draft };
    const promise = new Promise<InteractionResolution>((resolve) => {
      const onAbort = (): void => void this.resolveQuietly(interactionId, { outcome: "cancelled", reason: "requester" });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.set(interactionId, { pending, settle: resolve, cleanup: () => signal?.removeEventListener("abort", onAbort) });
      if (signal?.aborted === true) onAbort();
    });
    this.deps.onOpened?.(pending);
    return promise;
  }

  /** The user side: answer a pending card. Throws `not_pending` (writing nothing) for a stale id. */
  async resolve(interactionId: string, resolution: InteractionResolution): Promise<void> {
    const waiter = this.waiters.get(interactionId);
    if (!waiter) throw new BatonError("not_pending", `interaction ${interactionId} is no longer pending`);
    this.waiters.delete(interactionId);
    waiter.cleanup();
    try {
      this.deps.append({
        kind: "interaction.resolved",
        payload: { interactionId, resolution },
        source: { type: "user" },
        ...(waiter.pending.turnId === undefined ? {} : { turnId: waiter.pending.turnId }),
        ...(waiter.pending.targetId === undefined ? {} : { harnessTargetId: waiter.pending.targetId }),
      });
      // The resolution is on disk before the harness acts on it.
      await this.deps.ledger.sync();
    } catch (error) {
      // An answer that could not be recorded is not acted on: the harness is told to cancel.
      waiter.settle({ outcome: "cancelled", reason: "turn" });
      throw error;
    }
    waiter.settle(resolution);
  }

  /** Cancel every pending card of a turn (turn end, interrupt). */
  async cancelForTurn(turnId: string, reason: CancelReason): Promise<void> {
    for (const waiter of [...this.waiters.values()]) {
      if (waiter.pending.turnId === turnId) await this.resolveQuietly(waiter.pending.interactionId, { outcome: "cancelled", reason });
    }
  }

  async cancelAll(reason: CancelReason): Promise<void> {
    for (const waiter of [...this.waiters.values()]) await this.resolveQuietly(waiter.pending.interactionId, { outcome: "cancelled", reason });
  }

  pending(): PendingInteraction[] {
    return [...this.waiters.values()].map((waiter) => waiter.pending);
  }

  pendingForTurn(turnId: string): PendingInteraction[] {
    return this.pending().filter((pending) => pending.turnId === turnId);
  }

  /**
   * Resolve from Baton's side (cancel, policy, abort). The waiter is settled whatever happens: a resolution
   * that could not be written settles as cancelled (see `resolve`), and the write failure reaches the host
   * through its append port, so one failing card never stops the others from being cancelled.
   */
  private async resolveQuietly(interactionId: string, resolution: InteractionResolution): Promise<void> {
    try {
      await this.resolve(interactionId, resolution);
    } catch {
      // not pending any more, or not recorded (and settled as cancelled)
    }
  }
}
