/**
 * The Controller: the one orchestrator between a user's intent and a harness (architecture §1).
 * Admission, the serial driven queue, steering, cancel, and the public API live here; running a turn,
 * finalizing it, recovery and the stall watch live in their own files.
 */
import type { AnyEvent, EventDraft } from "../event/envelope.ts";
import { readStopReason } from "../event/stop-reasons.ts";
import type { PromptBlock } from "../event/content.ts";
import type { InteractionDraft, InteractionResolution } from "../event/interaction-types.ts";
import { HarnessRegistry } from "../harness/registry.ts";
import { InputQueue, type QueuedView } from "../input/queue.ts";
import type { SubmitOutcome } from "../input/input.ts";
import { reduce, repeatsSnapshot, type ProjectionState } from "../projection/index.ts";
import { BatonError } from "../shared/errors.ts";
import type { TargetId, TurnId } from "../shared/ids.ts";
import type { HarnessBinding } from "./binding.ts";
import { InteractionBroker, type InteractionPolicy, type PendingInteraction } from "../interaction/broker.ts";
import { SessionPipeline, type PipelineListener } from "./pipeline.ts";
import type { ControllerDeps } from "./ports.ts";
import { routeEvent, TurnFinalizer } from "./finalize.ts";
import { TurnRunner } from "./turn-runner.ts";
import { StallWatch } from "./stall-watch.ts";
import { recoverOnOpen, type RecoveryReport, type TornTailRepair } from "./recovery.ts";
import type { TurnRecord } from "./turn-record.ts";
import { capturePreview } from "./preview.ts";
import { interruptTurn } from "./interrupt.ts";
import { sessionError, withHint } from "./turn-errors.ts";
import { StorageGuard, stopTurns } from "./storage-guard.ts";
import type { MetaPort } from "./ports.ts";
import { appendAdmission, compactRecord, inputView, promptRecord, promptSubmission } from "./admission.ts";
import { InputDesk } from "./input-desk.ts";
import { compactFields } from "./compaction.ts";
import { TargetConfigurator } from "./target-config.ts";
import { startTitleGeneration } from "./titles.ts";
import { BindingPool } from "./binding-pool.ts";
import { expandBlocks, hasMentions } from "../context/mentions.ts";
import type { ContextProviderRegistry } from "../context/providers.ts";
import { canSteer, trySteer } from "./steer.ts";
import type { SubmitOptions } from "./submit-options.ts";
import { targetLabel } from "./context-delivery.ts";
import { Proposals } from "./proposals.ts";
import { pendingPluginQuestion, PluginQuestions } from "./plugin-questions.ts";
import { Failover } from "./failover.ts";
import { TargetDirectory } from "./targets.ts";
import { ApprovalMemory } from "./approval-memory.ts";

export type { SubmitOptions } from "./submit-options.ts";

export type ControllerNotice = { readonly level: "info" | "warning" | "error"; readonly text: string; readonly turnId?: string };

export interface ControllerOptions extends ControllerDeps {
  readonly registry: HarnessRegistry;
  readonly initialState: ProjectionState;
  /** `@<kind>:<id>` reference providers (CTX-06); none → tokens stay as typed. */
  readonly contextProviders?: ContextProviderRegistry;
}

export class Controller {
  readonly pipeline: SessionPipeline<ProjectionState>;
  readonly broker: InteractionBroker;
  /** Model, effort and mode per target. */
  readonly config: TargetConfigurator;
  /** Suggested inputs (`proposed_input`) from Baton or plugins: open, submit, dismiss, withdraw. */
  readonly proposals: Proposals;
  /** Baton's approval rules: answers by rule, remembers persistent choices; lists and revokes for `/approvals`. */
  readonly approvals: ApprovalMemory;
  /** Questions plugins ask outside any turn (PIX-01): answered durably, then the plugin hears of it. */
  readonly pluginQuestions: PluginQuestions;
  private readonly bindings: BindingPool;
  private readonly queue = new InputQueue();
  private readonly desk: InputDesk;
  private readonly turns = new Map<TurnId, TurnRecord>();
  private readonly finalizer: TurnFinalizer;
  private readonly runner: TurnRunner;
  private readonly stall: StallWatch;
  private readonly noticeListeners = new Set<(notice: ControllerNotice) => void>();
  private readonly idleWaiters = new Set<() => void>();
  private driven: TurnRecord | undefined;
  private titling: Promise<string | undefined> | undefined;
  private readonly closing = new AbortController();
  private accepting = true;
  private shuttingDown: Promise<void> | undefined;
  private unsubscribe: () => void;
  /** The first failed write of the session's files: its last word (it stops the turn; surfaces say it once). */
  readonly storage = new StorageGuard((error) => this.onStorageFailure(error));
  private readonly meta: MetaPort;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: ControllerOptions) {
    this.pipeline = new SessionPipeline(this.storage.ledger(options.ledger), options.initialState, reduce, options.log);
    this.meta = this.storage.meta(options.meta);
    this.desk = new InputDesk({ append: this.pipeline.append, queue: this.queue });
    this.bindings = new BindingPool(
      { ...options, meta: this.meta, onStorageFailure: (error) => this.storage.note(error), unchanged: (draft) => repeatsSnapshot(this.pipeline.state, draft) },
      this.pipeline.append,
      // Every harness's interactions pass Baton's approval rules on their way to a card (#20.4).
      (target, draft, context) => this.approvals.request(target, draft, context),
      (draft, error) => this.onAppendFailure(draft, error),
    );
    this.broker = new InteractionBroker({ append: this.pipeline.append, ledger: this.pipeline, ids: options.ids,
      onOpened: (pending) => pending.turnId !== undefined && this.stall.pause(pending.turnId) });
    this.approvals = new ApprovalMemory({ rules: options.approvalRules, project: options.cwd, sessionId: options.sessionId, ids: options.ids, clock: options.clock,
      log: options.log, append: this.pipeline.append, sync: () => this.pipeline.sync(), open: (target, draft, context) => this.broker.request(target, draft, context) });
    this.finalizer = new TurnFinalizer({
      append: this.pipeline.append,
      state: () => this.pipeline.state,
      broker: this.broker,
      clock: options.clock,
      turns: this.turns,
      queue: this.queue,
      onReleased: (record) => this.release(record),
    });
    this.runner = new TurnRunner({
      ...options, // sessionId, ids, log, settings, fileCheckpoints
      append: this.pipeline.append,
      // Facts before effects: the ledger and meta.json (which native session this is) are on disk first.
      sync: () => Promise.all([this.pipeline.sync(), this.meta.flush?.()]).then(() => undefined),
      state: () => this.pipeline.state,
      binding: (targetId) => this.binding(targetId),
      fail: (record, error) => this.failTurn(record, error),
      label: (targetId) => targetLabel(this.options.registry, targetId),
    });
    this.stall = new StallWatch({ append: this.pipeline.append, clock: options.clock, silenceMs: options.settings.stallNoticeMs,
      record: (turnId) => this.turns.get(turnId), binding: (targetId) => this.bindings.get(targetId), log: options.log });
    this.config = new TargetConfigurator({ registry: options.registry, meta: this.meta, preferences: options.preferences, binding: (id) => this.binding(id) });
    this.proposals = new Proposals({ append: this.pipeline.append, sync: () => this.pipeline.sync(), state: () => this.pipeline.state, ids: options.ids,
      resolveTarget: (ref) => (this.storage.assertWritable("The suggestion was not sent"), this.options.registry.resolve(ref).id),
      submit: (targetId, text, provenance) => this.submit(targetId, [{ type: "text", text }], { displayText: text, provenance }) });
    this.pluginQuestions = new PluginQuestions({ append: this.pipeline.append, sync: () => this.pipeline.sync(), state: () => this.pipeline.state, ids: options.ids });
    const failover = new Failover({ proposals: this.proposals, registry: options.registry, state: () => this.pipeline.state, policy: options.settings.failover, label: (id) => targetLabel(options.registry, id), log: options.log });
    this.unsubscribe = this.pipeline.subscribe((event) => (this.route(event), failover.onEvent(event)));
  }

  get sessionId(): string { return this.options.sessionId; }

  get state(): ProjectionState { return this.pipeline.state; }

  /** The configured targets and what each can do, read-only: asking starts nothing and creates no binding. */
  readonly targets = (): TargetDirectory => new TargetDirectory(this.options.registry, (id) => this.bindings.get(id));

  subscribe(listener: PipelineListener<ProjectionState>): () => void {
    return this.pipeline.subscribe(listener);
  }

  onNotice(listener: (notice: ControllerNotice) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  setInteractionPolicy(policy: InteractionPolicy | undefined): void {
    this.broker.setPolicy(policy);
  }

  /** ATT-04 / IX-05: close what a dead process left open (and say a torn tail was repaired). Call once, before the first submit. */
  recover(tornTail?: TornTailRepair): RecoveryReport {
    const report = recoverOnOpen(() => this.pipeline.state, this.pipeline.append, this.options.clock, tornTail);
    const inputsPaused = this.desk.restore(this.pipeline.state);
    return inputsPaused > 0 ? { ...report, inputsPaused } : report;
  }

  /** True while a driven turn runs or inputs wait. */
  get busy(): boolean {
    return this.driven !== undefined || this.queue.length > 0;
  }

  activeDrivenTurn(): { turnId: TurnId; targetId: TargetId } | undefined {
    return this.driven ? { turnId: this.driven.turnId, targetId: this.driven.targetId } : undefined;
  }

  queued(): QueuedView[] {
    return this.queue.queuedView();
  }

  pendingInteractions(): PendingInteraction[] { return this.broker.pending(); }

  /**
   * Submit a prompt to a target (IN-05): a steer when the active driven turn of the same target can take it,
   * else a queued input. Resolves when its turn finalizes; rejects on startup or admission failure (IN-08).
   */
  async submit(targetRef: string, blocks: readonly PromptBlock[], options: SubmitOptions = {}): Promise<SubmitOutcome> {
    if (!this.accepting) throw new BatonError("busy", "Baton is shutting down; the prompt was not sent");
    this.storage.assertWritable("The prompt was not sent");
    const target = this.options.registry.resolve(targetRef);
    const displayText = options.displayText ?? blocks.map((block) => (block.type === "text" ? block.text : "")).join("");
    capturePreview(this.meta, displayText);
    // Expansion only waits when there is something to expand, so plain prompts queue in submit order.
    const providers = this.options.contextProviders;
    const untyped = options.untyped ?? [];
    const expanded = providers && hasMentions(blocks, untyped) ? await expandBlocks(blocks, providers, this.options.settings.mentionBudgetChars, untyped) : { blocks, attachments: [] };
    const context = [...expanded.attachments, ...(options.context ?? [])];
    const submission = { ...promptSubmission(target.id, expanded.blocks, displayText, options.implementsPlan, context), ...(options.provenance ? { parentEventId: options.provenance.parentEventId } : {}) };
    const notify = (level: "info" | "warning", text: string, turnId?: string) => this.notify(level, text, turnId);
    const steerDeps = { driven: this.driven, bindings: this.bindings, ids: this.options.ids, append: this.pipeline.append, queue: this.queue, notify };
    // Only a possible steer waits for the harness (never a proposal's prompt, nor one with attached context).
    if (options.provenance === undefined && context.length === 0 && canSteer(steerDeps, target.id)) {
      const steered = await trySteer(steerDeps, submission);
      if (steered) return steered;
    }
    // A prompt that has to wait is recorded as queued (a crash must not lose what was typed).
    const waits = this.busy;
    const outcome = this.desk.enqueue(promptRecord(this.options.ids, submission, waits ? "follow_up" : "prompt", options.provenance?.messageId), waits);
    this.drain();
    return outcome;
  }

  /** Run native compaction as a driven control turn (TURN-10). */
  compact(targetRef: string): Promise<SubmitOutcome> {
    this.storage.assertWritable("/compact was not run");
    const outcome = this.desk.enqueue(compactRecord(this.options.ids, this.options.registry.resolve(targetRef).id), this.busy);
    this.drain();
    return outcome;
  }

  /** IN-06: take back the latest input that has not started (a waiting one, else the latest paused one). */
  recall(): { text: string; targetId: TargetId } | undefined {
    return inputView(this.desk.recall());
  }

  /** Send the inputs restored paused after Baton stopped (`queued()` shows them): in their order, first; one promise each. */
  resumePaused(): Promise<SubmitOutcome>[] {
    this.storage.assertWritable("The paused prompts were not sent");
    const outcomes = this.desk.resume();
    this.drain();
    return outcomes;
  }

  /** Drop the latest paused input (recorded, never sent). */
  dropPaused(): { text: string; targetId: TargetId } | undefined {
    return inputView(this.desk.dropPaused());
  }

  /** IN-07 / TURN-05: interrupt the active driven turn. Returns false when nothing runs. */
  interrupt(): boolean {
    const record = this.driven;
    if (!record || record.finalized) return false;
    void this.broker.cancelForTurn(record.turnId, "user");
    interruptTurn(record, {
      append: this.pipeline.append,
      clock: this.options.clock,
      log: this.options.log,
      graceMs: this.options.settings.cancelGraceMs,
      binding: this.bindings.get(record.targetId),
      synthesize: (stopReason) => this.finalizer.synthesizeTerminal(record, stopReason),
    });
    return true;
  }

  /** Answer a pending interaction; throws `not_pending` (writing nothing) when it is no longer pending. */
  async resolveInteraction(interactionId: string, resolution: InteractionResolution): Promise<void> {
    const pending = this.broker.pending().find((item) => item.interactionId === interactionId);
    // A plugin's question has no waiter (no callback is held, and it survives a restart): its own desk answers it.
    if (pending === undefined && pendingPluginQuestion(this.pipeline.state, interactionId) !== undefined) return this.pluginQuestions.answer(interactionId, resolution);
    await this.broker.resolve(interactionId, resolution);
    // Esc on a pending permission cancels it and interrupts the turn (no dangling requires_action).
    if (pending?.turnId === undefined) return;
    if (resolution.outcome === "cancelled" && resolution.reason === "user" && this.driven?.turnId === pending.turnId) this.interrupt();
    else this.stall.resume(pending.turnId);
  }

  /** Ask the user a question of Baton's own, outside any turn (plugin consent); resolves with the answer. */
  askUser = (draft: InteractionDraft, signal?: AbortSignal): Promise<InteractionResolution> =>
    this.accepting ? this.broker.requestFromBaton(draft, signal) : Promise.resolve({ outcome: "cancelled", reason: "turn" });

  /** Resolves once no driven turn runs and the queue is empty. */
  whenIdle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  /** Existing binding or a new one (not opened) for a target id. Private: surfaces read `targets()`. */
  private binding(targetId: TargetId): HarnessBinding {
    return this.bindings.get(targetId) ?? this.bindings.create(targetId);
  }

  /** Shutdown in reverse ownership: stop intents → close harnesses (terminals) → settle waiters. Every call waits for the same one. */
  shutdown(): Promise<void> {
    return (this.shuttingDown ??= this.shutdownOnce());
  }

  private async shutdownOnce(): Promise<void> {
    this.accepting = false;
    this.closing.abort();
    this.queue.drainAll();
    await this.broker.cancelAll("shutdown");
    await this.stopping; // after a storage failure: the harnesses are interrupted before they are closed
    await this.bindings.closeAll();
    for (const record of [...this.turns.values()]) {
      if (!record.finalized) this.finalizer.synthesizeTerminal(record, "cancelled");
    }
    this.stall.stopAll();
    // A title generation in flight was aborted above; wait (bounded) so its process is gone too.
    if (this.titling) await Promise.race([this.titling, new Promise((resolve) => setTimeout(resolve, 3000))]);
    this.unsubscribe();
  }

  /** Route every appended event: terminals, observed turns, stall timers. */
  private route(event: AnyEvent): void {
    const routed = routeEvent(event, this.turns, this.finalizer);
    if (routed.kind === "terminal") this.stall.stop(routed.turnId);
    else if (routed.kind === "observed") this.stall.start(routed.record);
    else if (routed.kind === "activity") this.stall.touch(routed.turnId);
  }

  private drain(): void {
    if (this.driven || !this.accepting || this.storage.failure) return;
    const record = this.queue.admitNext();
    if (!record) {
      this.wakeIdleWaiters();
      return;
    }
    const turn: TurnRecord = {
      turnId: record.turnId,
      role: "driven",
      targetId: record.submission.targetId,
      input: record,
      steers: [],
      phase: "preparing",
      cancelRequested: false,
      finalized: false,
      ...(record.control === "compact" ? compactFields(this.state, record.submission.targetId) : {}),
    };
    this.turns.set(turn.turnId, turn);
    this.driven = turn;
    try {
      appendAdmission(this.pipeline.append, turn, record, (control) => this.desk.admitted(control));
    } catch (error) {
      // The ledger refused the write (disk full, I/O): nothing was admitted durably.
      this.turns.delete(turn.turnId);
      this.driven = undefined;
      this.queue.fail(record.messageId, sessionError(this.options.sessionId, turn.targetId, error));
      this.drain();
      return;
    }
    this.stall.start(turn);
    void this.runner.run(turn);
  }

  private failTurn(record: TurnRecord, error: unknown): void {
    if (record.finalized) return;
    record.failure = sessionError(this.options.sessionId, record.targetId, error);
    this.finalizer.fail(record, error);
  }

  private release(record: TurnRecord): void {
    this.stall.stop(record.turnId);
    if (record.graceTimer) this.options.clock.clearTimeout(record.graceTimer);
    if (record.role !== "driven") return;
    this.options.fileCheckpoints?.after(record);
    this.maybeTitle(record);
    if (this.driven === record) this.driven = undefined;
    this.drain();
  }

  /** A harness event could not be written (the storage guard has stopped the turn): a lost terminal still closes it. */
  private onAppendFailure(draft: EventDraft, error: unknown): void {
    const payload = draft.payload as { state?: string; stopReason?: unknown };
    if (draft.kind === "state_update" && payload.state === "idle" && draft.turnId) this.finalizer.closeUnrecorded(draft.turnId, readStopReason(payload.stopReason), error);
  }

  /** The first failed write: say it once (file, space); stop the turns and harnesses, free the queue (a tick later). */
  private onStorageFailure(error: BatonError): void {
    this.notify("error", `${withHint(error)}. The turn was stopped and nothing more is recorded in this session (${this.sessionId}).`);
    queueMicrotask(() => {
      this.queue.failAll((record) => sessionError(this.sessionId, record.submission.targetId, error));
      this.stall.stopAll();
      const deps = { turns: this.turns.values(), binding: (id: TargetId) => this.bindings.get(id), graceMs: this.options.settings.cancelGraceMs };
      this.stopping = stopTurns({ ...deps, fail: (record) => this.failTurn(record, error), resetAll: () => this.bindings.resetAll() });
      this.wakeIdleWaiters();
    });
  }

  /** TTL-02: once per controller, after the first completed driven prompt turn; fire-and-forget. */
  private maybeTitle(record: TurnRecord): void {
    if (this.options.settings.generateTitles === false || this.titling || !record.input || record.failure || record.cancelRequested) return;
    const { registry, cwd, log, settings } = this.options;
    this.titling = startTitleGeneration(this.pipeline.state, record.turnId, record.targetId, {
      registry, cwd, log: log.child("titles"), meta: this.meta, binding: (id) => this.binding(id),
      prefer: settings.textgenPrefer, models: settings.textgenModels, signal: this.closing.signal,
    });
  }

  /** The title generation started after the first turn, if any (tests and shutdown wait for it). */
  get titleGeneration(): Promise<string | undefined> | undefined {
    return this.titling;
  }

  private wakeIdleWaiters(): void {
    if (this.busy) return;
    for (const waiter of [...this.idleWaiters]) waiter();
    this.idleWaiters.clear();
  }

  private notify(level: ControllerNotice["level"], text: string, turnId?: string): void {
    for (const listener of [...this.noticeListeners]) listener(turnId === undefined ? { level, text } : { level, text, turnId });
  }
}

