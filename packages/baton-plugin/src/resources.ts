/**
 * Resources (SDK 1): a plugin's durable domain objects, `{apiVersion, kind, metadata, spec, status}`, kept
 * by Baton per session and plugin instance. A plugin writes only the types its manifest lists under
 * `permissions.resourceTypes` (`<apiVersion>/<Kind>`, e.g. `example.dev/v1/Task`); Baton's own
 * `baton.dev/v1alpha1 Turn` resources (one per finished turn) are read-only.
 */
import type { JsonValue } from "./json.ts";

export interface ResourceType {
  /** `<dns-group>/v<N>[alpha|beta<N>]`, lowercase: `example.dev/v1alpha1`. */
  readonly apiVersion: string;
  /** Letters and digits, starting with a capital: `Task`. */
  readonly kind: string;
}

export interface ResourceRef extends ResourceType {
  /** Lowercase letters, digits, `-` and `.`. */
  readonly name: string;
}

/** An owner reference names one incarnation: a deleted and recreated owner has a new uid. */
export interface OwnerRef extends ResourceRef {
  readonly uid: string;
}

export interface ResourceMetadata {
  readonly name: string;
  /** The plugin instance id (`pi_…`); `baton-system` for Turn resources. */
  readonly namespace: string;
  /** `pr_…`, new for every incarnation of a name. */
  readonly uid: string;
  /** +1 when the spec changes. */
  readonly generation: number;
  /** A positive integer (as a string), +1 on every change of spec, status, metadata or deletion. */
  readonly resourceVersion: string;
  readonly creationTimestamp: string;
  readonly owner?: OwnerRef;
  /** Set once `delete` was called; the resource goes after its next successful reconcile. */
  readonly deletionTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface Resource<Spec = JsonValue, Status = { readonly [key: string]: JsonValue }> extends ResourceType {
  readonly metadata: ResourceMetadata;
  readonly spec: Spec;
  readonly status: Status;
}

export interface NewResource extends ResourceType {
  readonly metadata: {
    readonly name: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly owner?: OwnerRef;
  };
  readonly spec?: JsonValue;
  readonly status?: { readonly [key: string]: JsonValue };
}

export interface WriteOptions {
  /** The write fails with code `conflict` unless the resource is still at this resourceVersion. */
  readonly expectedResourceVersion?: string;
}

export interface ResourceClient {
  get(ref: ResourceRef): Promise<Resource | undefined>;
  /** Sorted by name; `matchLabels` keeps those with every listed label (AND). */
  list(type: ResourceType, options?: { readonly matchLabels?: Readonly<Record<string, string>> }): Promise<Resource[]>;
  /** Fails with code `exists` when the name is taken. */
  create(resource: NewResource): Promise<Resource>;
  /** Replace the spec (generation +1 when it differs). */
  replaceSpec(ref: ResourceRef, spec: JsonValue, options?: WriteOptions): Promise<Resource>;
  /** Merge-patch the status (RFC 7386: objects merge, `null` deletes a key); never changes generation. */
  patchStatus(ref: ResourceRef, patch: { readonly [key: string]: JsonValue }, options?: WriteOptions): Promise<Resource>;
  /** Set labels/annotations key by key (`null` deletes); never changes generation. */
  patchMetadata(
    ref: ResourceRef,
    patch: { readonly labels?: Readonly<Record<string, string | null>>; readonly annotations?: Readonly<Record<string, string | null>> },
    options?: WriteOptions,
  ): Promise<Resource>;
  /** Mark it (and everything it owns) for deletion; undefined when there is none. */
  delete(ref: ResourceRef): Promise<Resource | undefined>;
}

export type ResourceErrorCode = "invalid" | "not_found" | "exists" | "conflict" | "failed";

/** What a ResourceClient call rejects with. */
export class ResourceError extends Error {
  readonly code: ResourceErrorCode;

  constructor(code: ResourceErrorCode, message: string) {
    super(message);
    this.name = "ResourceError";
    this.code = code;
  }
}
