/**
 * The controllers of one binding (REC-01..05, REC-07, REC-09): every wakeup — a resource change, a watched
 * change, the initial pass, a requeue, an error backoff — enters the controller's keyed queue; a run holds
 * the resource's reconcile lock, hands the runner a deep-frozen resource and BatonSnapshot, checks the
 * result, drops it when the spec moved meanwhile (and runs again), finalizes a terminating resource, and
 * persists the next due time (`requeueAfterMs`, or backoff 1 s → 60 s after a failure, reset by a success)
 * so a restart resumes it. Resource Sources start after the initial pass (their emits create or wake
 * resources); cron Sources tick on Baton's clock (`cron.ts`). Outputs go to the port; nothing here touches the ledger.
 */
import type { Clock, TimerHandle } from "../../shared/clock.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { describeIssue, type ControllerRegistrationWire } from "../protocol.ts";
import { CronTicker } from "./cron.ts";
import { FairCapacity, KeyedQueue } from "./keyed-queue.ts";
import { applyEmit, parseEmitted } from "./source-emit.ts";
import { reconcileOutputSchema, type ReconcileOutput } from "./outputs.ts";
import { deepFreeze, refText, sameType, type ResourceObject, type ResourceRef } from "./schema.ts";
import type { ResourceChange, ResourceStore } from "./store.ts";

export const BACKOFF_START_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;
/** How long a reconcile waits for another process's reconcile of the same resource. */
const LOCK_WAIT_MS = 60_000;

export interface ControllerPort {
  reconcile(params: { controllerId: string; resource: ResourceObject; snapshot: unknown; pluginInteractions: unknown[] }, deadlineMs: number): Promise<{ output?: unknown; requeueAfterMs?: number | undefined }>;
  mapWatch(params: { controllerId: string; watchIndex: number; event: "create" | "update" | "delete"; object: ResourceObject; old?: ResourceObject }): Promise<{ requests: { name: string }[] }>;
  /** The session as it is now (deep-frozen here before it is sent). */
  snapshot(): unknown;
  /** This resource's plugin questions and what became of them (PIX-01), for `pluginInteractions`. */
  interactions(resource: ResourceObject): unknown[];
  /** A validated output of a successful reconcile (proposal or question). */
  publish(controllerId: string, resource: ResourceObject, output: ReconcileOutput): void | Promise<void>;
  /** A failed reconcile, to show ("Plugin reconcile failed for Task/x: …"). */
  failed(resource: ResourceRef, detail: string): void;
  /** Start a resource Source in the runner; resolves after its initial scan (REC-06). */
  startSource(params: { sourceRunId: string; controllerId: string; sourceId: string }): Promise<unknown>;
  /** A Source that failed to start or reported a late failure, to show. */
  sourceFailed(sourceId: string, detail: string): void;
}

export interface ControllerHostOptions {
  readonly owner: string;
  readonly store: ResourceStore;
  readonly controllers: readonly ControllerRegistrationWire[];
  readonly port: ControllerPort;
  readonly capacity: FairCapacity;
  readonly clock: Clock;
  readonly log: Logger;
  readonly reconcileTimeoutMs: number;
  /** Where cron Sources persist their due times (`<session>/plugins/<instance>/cron.json`). */
  readonly cronFile: string;
}

interface Running {
  readonly registration: ControllerRegistrationWire;
  readonly queue: KeyedQueue;
  readonly timers: Map<string, TimerHandle>;
  readonly failures: Map<string, number>;
}

export function backoffMs(failures: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_START_MS * 2 ** Math.max(0, failures - 1));
}

export class ControllerHost {
  private readonly running: Running[];
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  /** Work started outside the queues (backoff bookkeeping, watch mapping) that idle() waits for. */
  private readonly side = new Set<Promise<void>>();
  private readonly cron: CronTicker;
  /** Running resource Sources by run id: what an emit may create or wake. */
  private readonly sourceRuns = new Map<string, { readonly entry: Running; readonly sourceId: string }>();
  private runs = 0;

  constructor(private readonly options: ControllerHostOptions) {
    this.running = options.controllers.map((registration) => {
      const timers = new Map<string, TimerHandle>();
      const failures = new Map<string, number>();
      const entry: Running = {
        registration,
        timers,
        failures,
        queue: new KeyedQueue({
          owner: `${options.owner}/${registration.controllerId}`,
          concurrency: registration.maxConcurrency ?? 1,
          capacity: options.capacity,
          run: (name) => this.reconcile(entry, name),
          onError: (name, error) => this.track(this.backoff(entry, name, error)),
        }),
      };
      return entry;
    });
    this.cron = new CronTicker({
      file: options.cronFile,
      sources: options.controllers.flatMap((c) => (c.sources ?? []).flatMap((s) => (s.type === "cron" ? [{ controllerId: c.controllerId, sourceId: s.sourceId, cron: s.cron, timeZone: s.timeZone }] : []))),
      clock: options.clock,
      log: options.log,
      tick: (controllerId) => this.wakeAll(controllerId),
    });
  }

  /** The cron Sources' schedule (due times), for tests and benches. */
  get cronTicker(): CronTicker {
    return this.cron;
  }

  /** Subscribe to changes, then the initial pass: due resources now, the others at their persisted time. */
  async start(): Promise<void> {
    this.unsubscribe = this.options.store.onChange((change) => this.changed(change));
    const now = this.options.clock.now();
    for (const entry of this.running) {
      if (this.options.store.isDerived(entry.registration.resourceType)) {
        // Turns: the latest one only (a reopened session does not re-read its whole history).
        const latest = (await this.options.store.list(entry.registration.resourceType)).at(-1);
        if (latest !== undefined) entry.queue.enqueue(latest.metadata.name);
        continue;
      }
      for (const stored of await this.options.store.listStored(entry.registration.resourceType)) {
        const due = stored.control.nextReconcileAt;
        if (due !== undefined && due > now) this.arm(entry, stored.object.metadata.name, due);
        else entry.queue.enqueue(stored.object.metadata.name);
      }
    }
    // Sources start after the known resources are queued: a Source that fails to start blocks none of them.
    for (const entry of this.running) {
      for (const source of entry.registration.sources ?? []) if (source.type === "resource") this.track(this.startSource(entry, source.sourceId));
    }
    await this.cron.start();
  }

  private async startSource(entry: Running, sourceId: string): Promise<void> {
    const sourceRunId = `${entry.registration.controllerId}#${sourceId}#${++this.runs}`;
    this.sourceRuns.set(sourceRunId, { entry, sourceId });
    try {
      await this.options.port.startSource({ sourceRunId, controllerId: entry.registration.controllerId, sourceId });
    } catch (error) {
      if (this.closed) return;
      this.sourceRuns.delete(sourceRunId);
      const detail = describeError(error);
      this.options.log.log("warn", `source ${sourceId} of ${entry.registration.controllerId} did not start: ${detail}`);
      this.options.port.sourceFailed(sourceId, `did not start: ${detail}`);
    }
  }

  /** A resource Source's emit: create the resource when missing, wake it when identical; refused otherwise (REC-06). */
  async emit(sourceRunId: string, resource: unknown): Promise<{ created: boolean }> {
    const run = this.sourceRuns.get(sourceRunId);
    if (run === undefined || this.closed) throw new BatonError("plugin_failed", `source run ${sourceRunId} is not running`);
    const { entry, sourceId } = run;
    const applied = await applyEmit(this.options.store, entry.registration.resourceType, parseEmitted(resource, sourceId));
    // A created resource wakes its controller through the store's change; an identical one is woken here.
    if (!applied.created) entry.queue.enqueue(applied.object.metadata.name);
    return { created: applied.created };
  }

  /** A resource Source's late failure (`reportError`). */
  sourceError(sourceRunId: string, message: string): void {
    const run = this.sourceRuns.get(sourceRunId);
    if (run === undefined || this.closed) return;
    this.options.log.log("warn", `source ${run.sourceId} of ${run.entry.registration.controllerId} reported: ${message}`);
    this.options.port.sourceFailed(run.sourceId, message);
  }

  /** Queue one resource of a controlled type (an answered question, a Source's identical emit). */
  wake(ref: ResourceRef): void {
    if (this.closed) return;
    for (const entry of this.running) if (sameType(entry.registration.resourceType, ref)) entry.queue.enqueue(ref.name);
  }

  /** One tick for a controller: every current resource of its type is queued (keyed: once each). */
  private async wakeAll(controllerId: string): Promise<void> {
    const entry = this.running.find((e) => e.registration.controllerId === controllerId);
    if (entry === undefined || this.closed) return;
    const names = (await this.options.store.list(entry.registration.resourceType)).map((r) => r.metadata.name);
    if (this.closed) return;
    for (const name of names) entry.queue.enqueue(name);
  }

  /** Resolves once no controller has work pending or running (tests, benches). */
  async idle(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await this.cron.idle();
      await Promise.all([...this.side]);
      await Promise.all(this.running.map((e) => e.queue.idle()));
    }
  }

  private track(work: Promise<void>): void {
    this.side.add(work);
    void work.finally(() => this.side.delete(work));
  }

  /** Stop timers, drop pending work, let running reconciles settle. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    this.cron.close();
    this.sourceRuns.clear();
    for (const entry of this.running) {
      for (const timer of entry.timers.values()) this.options.clock.clearTimeout(timer);
      entry.timers.clear();
    }
    await Promise.all(this.running.map((e) => e.queue.close()));
  }

  private changed(change: ResourceChange): void {
    if (this.closed) return;
    const { object } = change;
    for (const entry of this.running) {
      if (sameType(entry.registration.resourceType, object)) {
        if (change.reason === "deleted") this.forget(entry, object.metadata.name);
        else entry.queue.enqueue(object.metadata.name);
      }
      entry.registration.watches.forEach((watch, watchIndex) => {
        if (!sameType(watch.resourceType, object)) return;
        const event = change.reason === "created" ? "create" : change.reason === "deleted" ? "delete" : "update";
        if (!watch.events.includes(event)) return;
        this.track(this.options.port
          .mapWatch({ controllerId: entry.registration.controllerId, watchIndex, event, object, ...(change.old === undefined ? {} : { old: change.old }) })
          .then(
            (answer) => {
              for (const name of new Set(answer.requests.map((r) => r.name))) entry.queue.enqueue(name);
            },
            (error: unknown) => this.options.log.log("warn", `watch of ${refText({ ...object, name: object.metadata.name })} failed: ${describeError(error)}`),
          ));
      });
    }
  }

  private async reconcile(entry: Running, name: string): Promise<void> {
    const { store } = this.options;
    const ref = { ...entry.registration.resourceType, name };
    this.disarm(entry, name);
    // A Turn is Baton's, read-only and never stored: nothing to lock, finalize or persist.
    if (store.isDerived(ref)) return this.reconcileDerived(entry, ref);
    await store.withReconcileLock(ref, () => this.reconcileStored(entry, ref), LOCK_WAIT_MS);
  }

  /** Send one reconcile and check what came back (throws on an invalid answer: backoff). */
  private async call(entry: Running, resource: ResourceObject): Promise<{ output: ReconcileOutput | undefined; requeue: number | undefined }> {
    const { port } = this.options;
    const pluginInteractions = deepFreeze(structuredClone(port.interactions(resource)));
    // `now` is the Manager's clock, the one cron Sources tick on: a reconcile deciding whether something is due uses it.
    const snapshot = deepFreeze({ ...structuredClone(port.snapshot() as Record<string, unknown>), now: this.options.clock.now(), pluginInteractions });
    const result = await port.reconcile({ controllerId: entry.registration.controllerId, resource, snapshot, pluginInteractions: pluginInteractions as unknown[] }, this.options.reconcileTimeoutMs);
    const output = result.output === undefined ? undefined : reconcileOutputSchema.safeParse(result.output);
    if (output !== undefined && !output.success) throw new BatonError("plugin_invalid", `reconcile returned an invalid output: ${describeIssue(output.error)}`);
    const requeue = result.requeueAfterMs;
    if (requeue !== undefined && (!Number.isFinite(requeue) || requeue < 0)) throw new BatonError("plugin_invalid", `reconcile returned requeueAfterMs ${requeue}; it must be a number ≥ 0`);
    return { output: output?.data, requeue };
  }

  private async reconcileDerived(entry: Running, ref: ResourceRef): Promise<void> {
    const object = await this.options.store.get(ref);
    if (object === undefined || this.closed) return;
    const { output, requeue } = await this.call(entry, deepFreeze(object));
    if (this.closed) return;
    entry.failures.delete(ref.name);
    if (requeue !== undefined) this.arm(entry, ref.name, this.options.clock.now() + requeue);
    if (output !== undefined) await this.options.port.publish(entry.registration.controllerId, object, output);
  }

  private async reconcileStored(entry: Running, ref: ResourceRef): Promise<void> {
    const { store, port, clock } = this.options;
    const name = ref.name;
    const stored = await store.read(ref);
    if (stored === undefined || this.closed) return;
    const resource = deepFreeze(stored.object);
    const { output, requeue } = await this.call(entry, resource);
    const now = await store.read(ref);
    if (now === undefined || now.object.metadata.uid !== resource.metadata.uid || this.closed) return;
    entry.failures.delete(name);
    if (now.object.metadata.generation !== resource.metadata.generation) {
      // The spec moved while it ran: this run's output answers a question nobody asks any more.
      entry.queue.enqueue(name);
      return;
    }
    if (resource.metadata.deletionTimestamp !== undefined) {
      await store.finalize(ref, resource.metadata.uid);
      return;
    }
    const due = requeue === undefined ? undefined : clock.now() + requeue;
    await store.schedule(ref, resource.metadata.uid, due);
    if (due !== undefined) this.arm(entry, name, due);
    if (output !== undefined) await port.publish(entry.registration.controllerId, resource, output);
  }

  private async backoff(entry: Running, name: string, error: unknown): Promise<void> {
    if (this.closed) return;
    const failures = (entry.failures.get(name) ?? 0) + 1;
    entry.failures.set(name, failures);
    const delay = backoffMs(failures);
    const ref = { ...entry.registration.resourceType, name };
    const detail = describeError(error);
    this.options.log.log("warn", `reconcile of ${refText(ref)} failed (${failures} in a row; again in ${delay / 1000} s): ${detail}`);
    this.options.port.failed(ref, detail);
    const due = this.options.clock.now() + delay;
    this.arm(entry, name, due);
    if (this.options.store.isDerived(ref)) return;
    try {
      const stored = await this.options.store.read(ref);
      if (stored === undefined) return;
      await this.options.store.schedule(ref, stored.object.metadata.uid, due);
    } catch (persistError) {
      this.options.log.log("error", `could not persist the backoff of ${refText(ref)}: ${describeError(persistError)}`);
    }
  }

  private arm(entry: Running, name: string, due: number): void {
    if (this.closed) return;
    this.disarm(entry, name);
    const timer = this.options.clock.setTimeout(() => {
      entry.timers.delete(name);
      entry.queue.enqueue(name);
    }, Math.max(0, due - this.options.clock.now()));
    entry.timers.set(name, timer);
  }

  private disarm(entry: Running, name: string): void {
    const timer = entry.timers.get(name);
    if (timer !== undefined) this.options.clock.clearTimeout(timer);
    entry.timers.delete(name);
  }

  private forget(entry: Running, name: string): void {
    this.disarm(entry, name);
    entry.failures.delete(name);
  }
}
