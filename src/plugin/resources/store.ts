/**
 * One plugin instance's Resources in this session (RES-01..07): files under
 * `<session>/plugins/<pluginInstanceId>/resources/<group>/<version>/<Kind>/<name>.json` holding
 * `{object, control{nextReconcileAt?}}`. Every write is a read-modify-write under `<file>.lock`, replaced
 * atomically (temp + fsync + rename); a reconcile holds `<file>.reconcile.lock` so two processes never
 * reconcile one resource at once. Versioning: a spec change bumps `generation`; any change bumps
 * `resourceVersion`; a write that changes nothing changes nothing. Deletion stamps `deletionTimestamp`
 * (cascading to every descendant); the file of a reconciled type goes only when `finalize` is called after
 * a successful terminating reconcile, the file of a type no controller reconciles goes at once. All I/O is async. Corrupt or wrongly scoped files are reported and left alone.
 */
import fs from "node:fs";
import path from "node:path";
import { monotonicFactory } from "ulid";
import type { Clock } from "../../shared/clock.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { isErrno } from "../../store/files.ts";
import { withFileLock } from "../../store/file-lock.ts";
import { checkOwner, descendantsOf } from "./owners.ts";
import { parseResourceFile, resourceFilePath, writeResourceFile, type StoredResource } from "./resource-file.ts";
import {
  checkAnnotations,
  checkJson,
  checkLabels,
  checkRef,
  checkType,
  isJsonObject,
  jsonEqual,
  matchesLabels,
  mergePatch,
  refText,
  sameType,
  TURN_TYPE,
  typeKey,
  type Json,
  type JsonObject,
  type OwnerRef,
  type ResourceObject,
  type ResourceRef,
  type ResourceType,
} from "./schema.ts";

export type ChangeReason = "created" | "spec" | "status" | "metadata" | "deleting" | "deleted";

export interface ResourceChange {
  readonly reason: ChangeReason;
  readonly object: ResourceObject;
  readonly old?: ResourceObject;
}

export interface CreateInput extends ResourceType {
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string>; readonly annotations?: Record<string, string>; readonly owner?: OwnerRef };
  readonly spec?: Json;
  readonly status?: JsonObject;
}

export interface WriteOptions {
  /** Optimistic concurrency: the write fails unless the stored resourceVersion is this one. */
  readonly expectedResourceVersion?: string;
}

export interface MetadataPatch {
  /** `null` deletes a key. */
  readonly labels?: Readonly<Record<string, string | null>>;
  readonly annotations?: Readonly<Record<string, string | null>>;
}

export interface ResourceStoreOptions {
  /** `<session>/plugins/<pluginInstanceId>/resources`. */
  readonly root: string;
  readonly namespace: string;
  /** The types this instance owns (manifest `permissions.resourceTypes`): the only ones it may write. */
  readonly owned: readonly ResourceType[];
  /**
   * The types a controller of this instance reconciles (manifest `contributes.controllers`). A deleted
   * resource of such a type stays terminating until its controller's terminating reconcile succeeds; one
   * of any other type has nobody to wait for and goes at once.
   */
  readonly reconciled: readonly ResourceType[];
  readonly clock: Clock;
  readonly log: Logger;
  /** Read-only types Baton derives (Turns): how to list them, called only when a plugin reads them (a costly list). */
  readonly derived?: (type: ResourceType) => (() => readonly ResourceObject[]) | undefined;
}

const uidFactory = monotonicFactory();

export type { ResourceControl, StoredResource } from "./resource-file.ts";

function clone<T>(value: T): T {
  return structuredClone(value);
}

function bump(version: string): string {
  return String(Number.parseInt(version, 10) + 1);
}

export class ResourceStore {
  private readonly listeners = new Set<(change: ResourceChange) => void>();

  constructor(private readonly options: ResourceStoreOptions) {}

  get namespace(): string {
    return this.options.namespace;
  }

  get ownedTypes(): readonly ResourceType[] {
    return this.options.owned;
  }

  /** A derived resource (a Turn) appeared: tell the listeners as if it had been created here. */
  announce(object: ResourceObject): void {
    if (this.options.derived?.(object) !== undefined) this.emit({ reason: "created", object });
  }

  /** Whether the type is one Baton derives (read-only, never stored here). */
  isDerived(type: ResourceType): boolean {
    return this.options.derived?.(type) !== undefined;
  }

  onChange(listener: (change: ResourceChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  fileOf(ref: ResourceRef): string {
    return resourceFilePath(this.options.root, ref);
  }

  async get(ref: ResourceRef): Promise<ResourceObject | undefined> {
    checkType(ref);
    // A derived resource is named by Baton (a Turn by its turn id), not by the plugin's name rules.
    const derived = this.options.derived?.(ref);
    if (derived !== undefined) return clone(derived().find((o) => o.metadata.name === ref.name));
    checkRef(ref);
    return (await this.read(ref))?.object;
  }

  /** The stored file (object and control), or undefined. Throws on a corrupt file. */
  async read(ref: ResourceRef): Promise<StoredResource | undefined> {
    const file = this.fileOf(ref);
    let text: string;
    try {
      text = await fs.promises.readFile(file, "utf8");
    } catch (error) {
      if (isErrno(error, "ENOENT")) return undefined;
      throw error;
    }
    return parseResourceFile(file, text, ref, this.options.namespace);
  }

  /** Every resource of a type (sorted by name), optionally only those with all of `matchLabels`. */
  async list(type: ResourceType, selector: { readonly matchLabels?: Readonly<Record<string, string>> } = {}): Promise<ResourceObject[]> {
    checkType(type);
    checkLabels(selector.matchLabels, "matchLabels");
    const derived = this.options.derived?.(type);
    if (derived !== undefined) return derived().filter((o) => matchesLabels(o, selector.matchLabels)).map(clone);
    return (await this.listStored(type)).map((s) => s.object).filter((o) => matchesLabels(o, selector.matchLabels));
  }

  /** Every stored resource of a type with its control block; unreadable files are reported and skipped. */
  async listStored(type: ResourceType): Promise<StoredResource[]> {
    const dir = path.dirname(this.fileOf({ ...type, name: "x" }));
    let names: string[];
    try {
      names = await fs.promises.readdir(dir);
    } catch (error) {
      if (isErrno(error, "ENOENT")) return [];
      throw error;
    }
    const out: StoredResource[] = [];
    for (const entry of names.filter((n) => n.endsWith(".json")).sort()) {
      const ref = { ...type, name: entry.slice(0, -".json".length) };
      try {
        const stored = await this.read(ref);
        if (stored !== undefined) out.push(stored);
      } catch (error) {
        this.options.log.log("error", `resource file skipped: ${describeError(error)}`);
      }
    }
    return out;
  }

  /** Every stored resource of every owned type. */
  async listAll(): Promise<StoredResource[]> {
    const all = await Promise.all(this.options.owned.map((type) => this.listStored(type)));
    return all.flat();
  }

  async create(input: CreateInput): Promise<ResourceObject> {
    const ref = { apiVersion: input.apiVersion, kind: input.kind, name: input.metadata?.name };
    this.writable(ref, "create");
    checkLabels(input.metadata.labels, refText(ref));
    checkAnnotations(input.metadata.annotations, refText(ref));
    const spec = checkJson(input.spec ?? {}, `${refText(ref)} spec`);
    const status = checkJson(input.status ?? {}, `${refText(ref)} status`);
    if (!isJsonObject(status)) throw new BatonError("plugin_invalid", `${refText(ref)}: status must be an object`);
    const owner = input.metadata.owner;
    if (owner !== undefined) await checkOwner(ref, owner, (r) => this.read(r));
    const file = this.fileOf(ref);
    const object = await withFileLock(file, async () => {
      if ((await this.read(ref)) !== undefined) throw new BatonError("plugin_exists", `${refText(ref)} already exists`);
      const created: ResourceObject = {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: {
          name: ref.name,
          namespace: this.options.namespace,
          uid: `pr_${uidFactory(this.options.clock.now())}`,
          generation: 1,
          resourceVersion: "1",
          creationTimestamp: new Date(this.options.clock.now()).toISOString(),
          ...(owner === undefined ? {} : { owner: { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid } }),
          ...(input.metadata.labels === undefined || Object.keys(input.metadata.labels).length === 0 ? {} : { labels: { ...input.metadata.labels } }),
          ...(input.metadata.annotations === undefined || Object.keys(input.metadata.annotations).length === 0 ? {} : { annotations: { ...input.metadata.annotations } }),
        },
        spec: clone(spec),
        status: clone(status),
      };
      await writeResourceFile(file, { object: created, control: {} });
      return created;
    });
    this.emit({ reason: "created", object });
    return clone(object);
  }

  /** Replace the spec: generation +1 when it differs. */
  replaceSpec(ref: ResourceRef, spec: unknown, options: WriteOptions = {}): Promise<ResourceObject> {
    this.writable(ref, "change");
    const value = checkJson(spec, `${refText(ref)} spec`);
    return this.mutate(ref, options, "spec", (o) => {
      if (o.metadata.deletionTimestamp !== undefined) throw new BatonError("plugin_invalid", `${refText(ref)} is being deleted; its spec can no longer change`);
      return jsonEqual(o.spec, value) ? o : { ...o, spec: clone(value), metadata: { ...o.metadata, generation: o.metadata.generation + 1 } };
    });
  }

  /** Merge-patch the status (RFC 7386, `null` deletes a key); never changes generation. */
  patchStatus(ref: ResourceRef, patch: unknown, options: WriteOptions = {}): Promise<ResourceObject> {
    this.writable(ref, "change");
    const value = checkJson(patch, `${refText(ref)} status patch`);
    if (!isJsonObject(value)) throw new BatonError("plugin_invalid", `${refText(ref)}: a status patch must be an object`);
    return this.mutate(ref, options, "status", (o) => {
      const status = mergePatch(o.status, value) as JsonObject;
      return jsonEqual(o.status, status) ? o : { ...o, status };
    });
  }

  /** Set or (with `null`) delete labels and annotations, key by key; never changes generation. */
  patchMetadata(ref: ResourceRef, patch: MetadataPatch, options: WriteOptions = {}): Promise<ResourceObject> {
    this.writable(ref, "change");
    checkLabels(patch.labels, refText(ref), true);
    checkAnnotations(patch.annotations, refText(ref), true);
    const apply = (current: Readonly<Record<string, string>> | undefined, changes: Readonly<Record<string, string | null>> | undefined): Record<string, string> | undefined => {
      const next: Record<string, string> = { ...(current ?? {}) };
      for (const [k, v] of Object.entries(changes ?? {})) {
        if (v === null) delete next[k];
        else next[k] = v;
      }
      return Object.keys(next).length === 0 ? undefined : next;
    };
    return this.mutate(ref, options, "metadata", (o) => {
      const { labels: _l, annotations: _a, ...rest } = o.metadata;
      const labels = apply(o.metadata.labels, patch.labels);
      const annotations = apply(o.metadata.annotations, patch.annotations);
      const metadata = { ...rest, ...(labels === undefined ? {} : { labels }), ...(annotations === undefined ? {} : { annotations }) };
      return jsonEqual(metadata, o.metadata) ? o : { ...o, metadata };
    });
  }

  /**
   * RES-05: stamp `deletionTimestamp` once (idempotent) on it and every descendant, clearing their
   * schedules. A resource of a reconciled type stays (terminating) until its controller's terminating
   * reconcile succeeds (`finalize`); one of a type nobody reconciles is finalized at once. Returns the
   * stamped resource (as stamped, even when it is already gone), or undefined when there was none.
   */
  async delete(ref: ResourceRef): Promise<ResourceObject | undefined> {
    this.writable(ref, "delete");
    const root = await this.read(ref);
    if (root === undefined) return undefined;
    const stamped = await this.stamp(ref, root.object.metadata.uid);
    const doomed: ResourceObject[] = stamped === undefined ? [] : [stamped];
    for (const next of descendantsOf((await this.listAll()).map((s) => s.object), root.object.metadata.uid)) {
      const child = await this.stamp({ apiVersion: next.apiVersion, kind: next.kind, name: next.metadata.name }, next.metadata.uid);
      if (child !== undefined) doomed.push(child);
    }
    // Nobody reconciles these types: no terminating reconcile will come, so they go now.
    for (const object of doomed.filter((o) => !this.isReconciled(o))) await this.finalize({ apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name }, object.metadata.uid);
    return stamped;
  }

  /** Finalize what a previous process stamped but left (types no controller reconciles); returns how many. */
  async sweepTerminating(): Promise<number> {
    let removed = 0;
    for (const type of this.options.owned.filter((t) => !this.isReconciled(t))) {
      for (const { object } of await this.listStored(type)) {
        if (object.metadata.deletionTimestamp === undefined) continue;
        if (await this.finalize({ ...type, name: object.metadata.name }, object.metadata.uid)) removed++;
      }
    }
    return removed;
  }

  private isReconciled(type: ResourceType): boolean {
    return this.options.reconciled.some((t) => sameType(t, type));
  }

  /** Remove a terminating resource's file (after its successful terminating reconcile). */
  async finalize(ref: ResourceRef, uid: string): Promise<boolean> {
    const file = this.fileOf(ref);
    const removed = await withFileLock(file, async () => {
      const stored = await this.read(ref);
      if (stored === undefined || stored.object.metadata.uid !== uid || stored.object.metadata.deletionTimestamp === undefined) return undefined;
      await fs.promises.rm(file, { force: true });
      return stored.object;
    });
    if (removed === undefined) return false;
    await fs.promises.rm(`${file}.reconcile.lock`, { force: true }).catch(() => undefined);
    this.emit({ reason: "deleted", object: removed });
    return true;
  }

  /**
   * Persist (or clear) the next scheduled reconcile of this incarnation. The schedule is control data, not
   * part of the object: it moves no resourceVersion (a requeue must not look like a new basis to a proposal).
   */
  async schedule(ref: ResourceRef, uid: string, nextReconcileAt: number | undefined): Promise<void> {
    const file = this.fileOf(ref);
    await withFileLock(file, async () => {
      const stored = await this.read(ref);
      if (stored === undefined || stored.object.metadata.uid !== uid) return;
      if (stored.control.nextReconcileAt === nextReconcileAt) return;
      await writeResourceFile(file, { object: stored.object, control: nextReconcileAt === undefined ? {} : { nextReconcileAt } });
    });
  }

  /** Run `fn` holding this resource's reconcile lock (across processes). */
  withReconcileLock<T>(ref: ResourceRef, fn: () => Promise<T>, timeoutMs: number): Promise<T> {
    return withFileLock(`${this.fileOf(ref)}.reconcile`, fn, { timeoutMs, staleMs: Math.max(timeoutMs * 2, 30_000) });
  }

  private async stamp(ref: ResourceRef, uid: string): Promise<ResourceObject | undefined> {
    const file = this.fileOf(ref);
    let change: ResourceChange | undefined;
    const result = await withFileLock(file, async () => {
      const stored = await this.read(ref);
      if (stored === undefined || stored.object.metadata.uid !== uid) return undefined;
      if (stored.object.metadata.deletionTimestamp !== undefined) return stored.object;
      const object: ResourceObject = {
        ...stored.object,
        metadata: { ...stored.object.metadata, deletionTimestamp: new Date(this.options.clock.now()).toISOString(), resourceVersion: bump(stored.object.metadata.resourceVersion) },
      };
      await writeResourceFile(file, { object, control: {} });
      change = { reason: "deleting", object, old: stored.object };
      return object;
    });
    if (change !== undefined) this.emit(change);
    return result === undefined ? undefined : clone(result);
  }

  private async mutate(ref: ResourceRef, options: WriteOptions, reason: ChangeReason, fn: (object: ResourceObject) => ResourceObject): Promise<ResourceObject> {
    const file = this.fileOf(ref);
    let change: ResourceChange | undefined;
    const result = await withFileLock(file, async () => {
      const stored = await this.read(ref);
      if (stored === undefined) throw new BatonError("plugin_not_found", `${refText(ref)} does not exist`);
      const expected = options.expectedResourceVersion;
      if (expected !== undefined && expected !== stored.object.metadata.resourceVersion) {
        throw new BatonError("plugin_conflict", `${refText(ref)} is at resourceVersion ${stored.object.metadata.resourceVersion}, not ${expected}: read it again`);
      }
      const next = fn(stored.object);
      if (next === stored.object) return stored.object;
      const object = { ...next, metadata: { ...next.metadata, resourceVersion: bump(stored.object.metadata.resourceVersion) } };
      await writeResourceFile(file, { object, control: stored.control });
      change = { reason, object, old: stored.object };
      return object;
    });
    if (change !== undefined) this.emit(change);
    return clone(result);
  }

  private writable(ref: ResourceRef, verb: string): void {
    checkType(ref);
    if (sameType(ref, TURN_TYPE)) throw new BatonError("plugin_invalid", `${typeKey(TURN_TYPE)} resources are Baton's and read-only: a plugin cannot ${verb} them`);
    checkRef(ref);
    if (!this.options.owned.some((t) => sameType(t, ref))) {
      throw new BatonError("plugin_invalid", `cannot ${verb} ${refText(ref)}: ${typeKey(ref)} is not listed under permissions.resourceTypes in the plugin's manifest`);
    }
  }

  private emit(change: ResourceChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.options.log.log("error", "a resource listener threw", { error });
      }
    }
  }
}
