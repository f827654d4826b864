/**
 * The Board cache of one binding (BRD-01): what each resource of a presenting controller looks like on the
 * Board, kept up to date off the render path. A resource change marks it dirty; a worker presents dirty
 * resources through the runner (`controller/present`, 2 s deadline, a few at a time) and publishes once
 * the dirty set is drained. A deleted resource leaves at once; a terminating one stays in the cache (the
 * selector leaves it out) without a call. A failed call is remembered as a failure (the diagnostic item).
 */
import { describeError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import type { BoardGroupInput, PresentedEntry } from "./board.ts";
import type { ControllerRegistrationWire, Presentation } from "./protocol.ts";
import { sameType, type ResourceObject } from "./resources/schema.ts";
import type { ResourceChange, ResourceStore } from "./resources/store.ts";

/** Presentations asked of one runner at once. */
const PRESENT_CONCURRENCY = 4;

export interface BoardPresenterOptions {
  readonly pluginInstanceId: string;
  readonly pluginId: string;
  readonly store: ResourceStore;
  /** The controllers that have a `present`. */
  readonly controllers: readonly ControllerRegistrationWire[];
  readonly present: (controllerId: string, resource: ResourceObject) => Promise<Presentation | null>;
  readonly log: Logger;
  /** The presented set changed (called after a batch, never from inside a render). */
  readonly changed: () => void;
}

interface Group {
  readonly registration: ControllerRegistrationWire;
  readonly entries: Map<string, PresentedEntry>;
  /** The newest object seen per dirty name. */
  readonly dirty: Map<string, ResourceObject>;
  /** Uids deleted while a presentation may still be in flight (its answer is dropped). */
  readonly gone: Set<string>;
}

export class BoardPresenter {
  private readonly groups: Group[];
  private unsubscribe: (() => void) | undefined;
  private working: Promise<void> | undefined;
  private closed = false;
  private cached: readonly BoardGroupInput[] | undefined;

  constructor(private readonly options: BoardPresenterOptions) {
    this.groups = options.controllers.map((registration) => ({ registration, entries: new Map(), dirty: new Map(), gone: new Set() }));
  }

  /** Subscribe, then present every known resource (resolves once that first batch is published). */
  async start(): Promise<void> {
    this.unsubscribe = this.options.store.onChange((change) => this.onChange(change));
    for (const group of this.groups) {
      try {
        for (const object of await this.options.store.list(group.registration.resourceType)) group.dirty.set(object.metadata.name, object);
      } catch (error) {
        this.options.log.log("warn", `the Board could not list ${group.registration.controllerId}: ${describeError(error)}`);
      }
    }
    this.kick();
    await this.idle();
  }

  /** What the Board selector reads (the same array until something changed). */
  inputs(): readonly BoardGroupInput[] {
    this.cached ??= this.groups.map((group) => ({
      pluginInstanceId: this.options.pluginInstanceId,
      pluginId: this.options.pluginId,
      resourceType: group.registration.resourceType,
      entries: [...group.entries.values()],
    }));
    return this.cached;
  }

  /** Resolves once nothing is dirty or being presented (tests, benches). */
  async idle(): Promise<void> {
    while (this.working !== undefined) await this.working;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    for (const group of this.groups) group.dirty.clear();
    await this.working;
  }

  private onChange(change: ResourceChange): void {
    if (this.closed) return;
    const group = this.groups.find((g) => sameType(g.registration.resourceType, change.object));
    if (group === undefined) return;
    const name = change.object.metadata.name;
    if (change.reason === "deleted") {
      group.dirty.delete(name);
      group.gone.add(change.object.metadata.uid);
      if (group.entries.delete(name)) this.publish();
      return;
    }
    if (change.object.metadata.deletionTimestamp !== undefined) {
      // Terminating: off the Board, no presentation needed.
      group.dirty.delete(name);
      const entry = group.entries.get(name);
      group.entries.set(name, { resource: change.object, shown: entry?.shown ?? null, ...(entry?.failure === undefined ? {} : { failure: entry.failure }) });
      this.publish();
      return;
    }
    group.dirty.set(name, change.object);
    this.kick();
  }

  private kick(): void {
    if (this.working !== undefined || this.closed) return;
    this.working = this.drain().finally(() => {
      this.working = undefined;
      // Something became dirty after the last look.
      if (this.groups.some((g) => g.dirty.size > 0)) this.kick();
    });
  }

  private async drain(): Promise<void> {
    let presented = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const next = this.takeDirty();
        if (next === undefined || this.closed) return;
        const [group, object] = next;
        const entry = await this.presentOne(group, object);
        // Two workers may present one resource at once (it changed meanwhile): the newer version wins.
        const current = group.entries.get(object.metadata.name);
        if (group.gone.has(object.metadata.uid)) continue;
        if (current === undefined || Number(current.resource.metadata.resourceVersion) <= Number(object.metadata.resourceVersion) || current.resource.metadata.uid !== object.metadata.uid) {
          group.entries.set(object.metadata.name, entry);
        }
        presented++;
      }
    };
    await Promise.all(Array.from({ length: PRESENT_CONCURRENCY }, () => worker()));
    if (presented > 0 && !this.closed) this.publish();
  }

  private takeDirty(): [Group, ResourceObject] | undefined {
    for (const group of this.groups) {
      for (const [name, object] of group.dirty) {
        group.dirty.delete(name);
        return [group, object];
      }
    }
    return undefined;
  }

  private async presentOne(group: Group, resource: ResourceObject): Promise<PresentedEntry> {
    try {
      return { resource, shown: await this.options.present(group.registration.controllerId, resource) };
    } catch (error) {
      const failure = describeError(error);
      this.options.log.log("warn", `present() of ${resource.kind}/${resource.metadata.name} failed: ${failure}`);
      return { resource, shown: null, failure };
    }
  }

  private publish(): void {
    this.cached = undefined;
    this.options.changed();
  }
}
