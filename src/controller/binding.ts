/**
 * A live binding of one target (HAR-04): builds the adapter, stamps its drafts with trusted attribution
 * (EV-02), records the launch snapshot before `open`, and persists the native identity it publishes.
 */
import type { AdapterDraft, EventDraft } from "../event/envelope.ts";
import type { LaunchSnapshot } from "../event/kinds.ts";
import { isStopReason } from "../event/stop-reasons.ts";
import { reportsApprovalRoute } from "../harness/capabilities.ts";
import type { BindingSink, EventSink, HarnessAdapter, HarnessHandle, HarnessIdentity, InteractionHandler } from "../harness/contract.ts";
import type { HarnessDefinition, HarnessTarget } from "../harness/definition.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import type { Clock } from "../shared/clock.ts";
import type { EpochId, IdSource, TurnId } from "../shared/ids.ts";
import type { Logger } from "../shared/log.ts";
import type { AppendFn } from "./pipeline.ts";
import { setHarnessSession, type MetaPort, type PreferencesPort } from "./ports.ts";
import type { SessionMeta } from "../store/meta.ts";

export interface BindingDeps {
  readonly append: AppendFn;
  readonly meta: MetaPort;
  readonly ids: IdSource;
  readonly clock: Clock;
  readonly log: Logger;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly interactions: InteractionHandler;
  readonly preferences?: PreferencesPort | undefined;
  readonly trace?: ((direction: "in" | "out", message: unknown) => void) | undefined;
  readonly stateDir?: string | undefined;
  /** True for a draft that would change nothing the projection holds (an unchanged snapshot): it is not stored. */
  readonly unchanged?: ((draft: EventDraft) => boolean) | undefined;
  /** Told when an adapter's draft could not be written (disk full, I/O). */
  readonly onAppendFailure?: (draft: EventDraft, error: unknown) => void;
  /** Told when Baton's own meta.json could not be written for the adapter (it is never the adapter's failure). */
  readonly onStorageFailure?: (error: unknown) => void;
  /** Told when the adapter publishes a new identity (fresh native sessions reset context delivery). */
  readonly onIdentity?: (binding: HarnessBinding, identity: HarnessIdentity) => void;
}

/** How long closing a binding waits for a harness that is still starting. */
export const OPEN_WAIT_ON_CLOSE_MS = 1_000;

/** What `promise` resolves to within `ms` (undefined when it rejects or takes longer); the timer does not hold the process. */
function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref?.();
  });
  return Promise.race([promise.catch(() => undefined), limit]).finally(() => clearTimeout(timer));
}

export class HarnessBinding {
  readonly adapter: HarnessAdapter;
  private handleValue: HarnessHandle | undefined;
  private opening: Promise<HarnessHandle> | undefined;
  private identityValue: HarnessIdentity | undefined;
  private closed = false;
  /** True while the native session has run no turn of ours (it needs the whole history). */
  private fresh: boolean;

  constructor(
    readonly target: HarnessTarget,
    readonly definition: HarnessDefinition,
    private readonly deps: BindingDeps,
  ) {
    this.fresh = deps.meta.read().harnessSessions[target.id]?.harnessSessionId === undefined;
    this.adapter = definition.create({
      target,
      log: deps.log.child(`harness.${target.id}`, { harness: definition.sessionKey, harnessTargetId: target.id }),
      ...(deps.trace ? { trace: deps.trace } : {}),
      ...(deps.stateDir !== undefined ? { stateDir: deps.stateDir } : {}),
    });
  }

  get handle(): HarnessHandle | undefined {
    return this.handleValue;
  }

  get identity(): HarnessIdentity | undefined {
    return this.identityValue;
  }

  get isOpen(): boolean {
    return this.handleValue !== undefined;
  }

  /**
   * Open once; concurrent callers share the same attempt. A failed open can be retried. `turnId` is the
   * turn that triggered the cold start (IX-02): setup interactions such as hook trust carry it.
   */
  ensureOpen(turnId?: TurnId): Promise<HarnessHandle> {
    if (this.closed) return Promise.reject(new BatonError("internal", `binding ${this.target.id} is closed`));
    if (this.handleValue) return Promise.resolve(this.handleValue);
    this.opening ??= this.open(turnId).finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** Drop a dead handle so the next turn opens a fresh process and resumes the native session. */
  async reset(): Promise<void> {
    const handle = this.handleValue;
    this.handleValue = undefined;
    if (handle) await this.adapter.close(handle).catch((error) => this.deps.log.log("warn", "closing a dead harness failed", { error }));
  }

  /**
   * Close: the open handle is closed. A harness still starting is waited for at most OPEN_WAIT_ON_CLOSE_MS (a
   * handshake that hangs would hold the shutdown for its whole timeout, 30 s for Codex); `open` closes what it
   * opened once it settles, since this binding is closed, and a Baton that exits meanwhile leaves its agent to
   * the child's watchdog.
   */
  async close(): Promise<void> {
    this.closed = true;
    const handle = this.handleValue ?? (this.opening === undefined ? undefined : await settledWithin(this.opening, OPEN_WAIT_ON_CLOSE_MS));
    this.handleValue = undefined;
    if (handle) await this.adapter.close(handle);
  }

  /** The immutable launch snapshot recorded in meta before `open`. */
  launchSnapshot(): LaunchSnapshot {
    const stored = this.deps.meta.read().harnessSessions[this.target.id];
    const model = stored?.model ?? this.deps.preferences?.get("model", this.target.id);
    const effort = stored?.effort ?? this.deps.preferences?.get("effort", this.target.id);
    return {
      harnessTargetId: this.target.id,
      harness: this.definition.id,
      harnessSessionKey: this.definition.sessionKey,
      cwd: this.deps.cwd,
      ...(model === undefined ? {} : { model }),
      ...(effort === undefined ? {} : { effort }),
      ...(stored?.mode === undefined ? {} : { mode: stored.mode }),
    };
  }

  get isFresh(): boolean {
    return this.fresh;
  }

  /** A turn was accepted on the current native session: it has now seen what it was given. */
  markUsed(): void {
    this.fresh = false;
  }

  /** The context epoch of the current native session; minted (and stored) on first need. */
  contextEpochId(): EpochId {
    const stored = this.deps.meta.read().harnessSessions[this.target.id]?.contextEpochId;
    if (stored) return stored;
    const minted = this.deps.ids.mint("epoch");
    this.deps.meta.update((meta) => setHarnessSession(meta, this.target.id, { harness: this.definition.id, contextEpochId: minted }));
    return minted;
  }

  private async open(turnId: TurnId | undefined): Promise<HarnessHandle> {
    const snapshot = this.launchSnapshot();
    this.deps.meta.update((meta) => setHarnessSession(meta, this.target.id, { harness: this.definition.id, launchSnapshot: snapshot }));
    const stored = this.deps.meta.read().harnessSessions[this.target.id];
    const resumeState = stored?.resumeState;
    const handle = await this.adapter.open(
      {
        targetId: this.target.id,
        cwd: this.deps.cwd,
        env: { ...this.deps.env, ...this.target.env },
        ...(resumeState ? { resumeState: { version: resumeState.version, data: (resumeState.data ?? {}) as Record<string, unknown> } } : {}),
        ...(snapshot.model === undefined ? {} : { model: snapshot.model }),
        ...(snapshot.effort === undefined ? {} : { effort: snapshot.effort }),
        ...(snapshot.mode === undefined ? {} : { mode: snapshot.mode }),
        interactions: this.deps.interactions,
        ids: this.deps.ids,
        clock: this.deps.clock,
        log: this.deps.log.child(`harness.${this.target.id}`, { harness: this.definition.sessionKey, harnessTargetId: this.target.id }),
        ...(turnId === undefined ? {} : { turnId }),
      },
      this.sink(),
      this.bindingSink(),
    );
    if (this.closed) {
      await this.adapter.close(handle).catch(() => undefined);
      throw new BatonError("internal", `binding ${this.target.id} closed while opening`);
    }
    this.handleValue = handle;
    this.recordApprovalRoute(handle);
    return handle;
  }

  /**
   * IX-08: the route the harness reported for this native session becomes a fact in the ledger (the footer
   * reads it from the projection; nothing asks the adapter while rendering).
   */
  private recordApprovalRoute(handle: HarnessHandle): void {
    if (!reportsApprovalRoute(this.adapter)) return;
    this.sink().emit({ kind: "approval_route_update", payload: { route: this.adapter.approvalRoute(handle) } });
  }

  private sink(): EventSink {
    return {
      emit: (draft: AdapterDraft) => {
        const stamped = {
          ...closeStopReason(draft, this.deps.log),
          source: { type: "harness", harnessTargetId: this.target.id },
          harness: this.definition.sessionKey,
          harnessTargetId: this.target.id,
          // The binding's native session wins over what a draft says (EV-02); before the adapter
          // published its identity, the draft's own value is all there is.
          ...(this.identityValue ? { harnessSessionId: this.identityValue.harnessSessionId } : {}),
        } as EventDraft;
        if (this.deps.unchanged?.(stamped) === true) return;
        try {
          this.deps.append(stamped);
        } catch (error) {
          // Not the adapter's problem: the host decides (a lost terminal still closes its turn).
          this.deps.log.log("error", `could not record ${draft.kind} from ${this.target.id}: ${describeError(error)}`, { error });
          this.deps.onAppendFailure?.(stamped, error);
        }
      },
    };
  }

  /**
   * meta.json written on the adapter's behalf: a failure is Baton's (a full disk), so the adapter never sees
   * it (it would report its agent as dead); the host is told and stops the turn.
   */
  private updateMetaForAdapter(change: (meta: SessionMeta) => SessionMeta): void {
    try {
      this.deps.meta.update(change);
    } catch (error) {
      this.deps.log.log("error", `could not record ${this.target.id}'s native session in meta.json: ${describeError(error)}`, { error });
      this.deps.onStorageFailure?.(error);
    }
  }

  private bindingSink(): BindingSink {
    return {
      publishIdentity: (identity) => {
        const previous = this.identityValue;
        if (previous && previous.harnessSessionId !== identity.harnessSessionId && !identity.fresh) {
          throw new BatonError("contract_violation", `${this.target.id}: native session changed from ${previous.harnessSessionId} to ${identity.harnessSessionId} without a fresh start`);
        }
        this.identityValue = identity;
        const stored = this.deps.meta.read().harnessSessions[this.target.id];
        // An epoch minted before the native id was known (first turn of a fresh session) belongs to it.
        const sameSession = stored?.harnessSessionId === undefined || stored.harnessSessionId === identity.harnessSessionId;
        if (!sameSession) this.fresh = true;
        const contextEpochId = sameSession && stored?.contextEpochId ? stored.contextEpochId : this.deps.ids.mint("epoch");
        this.updateMetaForAdapter((meta) =>
          setHarnessSession(meta, this.target.id, {
            harness: this.definition.id,
            harnessSessionId: identity.harnessSessionId,
            resumeState: identity.resumeState,
            contextEpochId,
          }),
        );
        this.deps.onIdentity?.(this, identity);
      },
      markFresh: (reason) => {
        this.fresh = true;
        this.deps.log.log("warn", `${this.target.id}: the stored native session cannot be resumed (${reason}); a fresh one gets the history`, { harnessTargetId: this.target.id });
        this.updateMetaForAdapter((meta) => {
          const entry = meta.harnessSessions[this.target.id];
          if (!entry) return meta;
          const { harnessSessionId: _dropped, resumeState: _resume, contextEpochId: _epoch, ...rest } = entry;
          return { ...meta, harnessSessions: { ...meta.harnessSessions, [this.target.id]: rest } };
        });
      },
    };
  }
}

/**
 * Invariant 2 at the host boundary: an adapter that ends a turn with a word outside the closed vocabulary broke
 * its contract; the turn still closes, as `failed` (never a success), and the word is kept beside it.
 */
function closeStopReason(draft: AdapterDraft, log: Logger): AdapterDraft {
  if (draft.kind !== "state_update") return draft;
  const stopReason: unknown = draft.payload.stopReason;
  if (stopReason === undefined || isStopReason(stopReason)) return draft;
  log.log("warn", `adapter ended a turn with stop reason ${JSON.stringify(stopReason)}, which is not in Baton's vocabulary; recorded as failed`);
  return { ...draft, payload: { ...draft.payload, stopReason: "failed", nativeStopReason: String(stopReason) } };
}
