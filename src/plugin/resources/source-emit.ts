/**
 * A resource Source's `emit` (REC-06) on the host: `{name, spec, labels?, annotations?, owner?}` creates the
 * resource of the controller's type when it is missing (a new uid), and is a keyed wakeup when the resource is
 * there and identical. A different spec or owner, a supplied label or annotation whose value differs, or a
 * resource being deleted is refused (an error answer to the plugin, never a binding failure): a Source
 * announces what exists, it does not edit it — that is `replaceSpec`/`patchMetadata`.
 */
import { BatonError } from "../../shared/errors.ts";
import { isJsonObject, jsonEqual, refText, type ResourceObject, type ResourceType } from "./schema.ts";
import type { CreateInput, ResourceStore } from "./store.ts";

export interface EmittedResource {
  readonly name: string;
  readonly spec?: unknown;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly owner?: { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string };
}

const EMIT_KEYS = new Set(["name", "spec", "labels", "annotations", "owner"]);

/** The emitted value checked for shape (names and values are checked by the store). */
export function parseEmitted(value: unknown, sourceId: string): EmittedResource {
  if (!isJsonObject(value as never)) throw new BatonError("plugin_invalid", `source ${sourceId}: emit() needs { name, spec, labels?, annotations?, owner? }`);
  const v = value as Record<string, unknown>;
  const unknownKey = Object.keys(v).find((k) => !EMIT_KEYS.has(k));
  if (unknownKey !== undefined) throw new BatonError("plugin_invalid", `source ${sourceId}: emit() got an unknown key '${unknownKey}' (allowed: name, spec, labels, annotations, owner)`);
  if (typeof v["name"] !== "string") throw new BatonError("plugin_invalid", `source ${sourceId}: emit() needs a name`);
  return v as unknown as EmittedResource;
}

function differing(supplied: Record<string, string> | undefined, stored: Readonly<Record<string, string>> | undefined): string | undefined {
  for (const [key, value] of Object.entries(supplied ?? {})) {
    if (stored?.[key] !== value) return key;
  }
  return undefined;
}

/**
 * Create or match the emitted resource. Resolves `{created}`; a matching resource is left as it is (the caller
 * wakes it). Throws `plugin_conflict` when the emitted resource differs from the stored one.
 */
export async function applyEmit(store: ResourceStore, type: ResourceType, emitted: EmittedResource): Promise<{ readonly created: boolean; readonly object: ResourceObject }> {
  const ref = { ...type, name: emitted.name };
  const existing = await store.get(ref);
  if (existing === undefined) {
    const input: CreateInput = {
      ...type,
      metadata: {
        name: emitted.name,
        ...(emitted.labels === undefined ? {} : { labels: emitted.labels }),
        ...(emitted.annotations === undefined ? {} : { annotations: emitted.annotations }),
        ...(emitted.owner === undefined ? {} : { owner: emitted.owner }),
      },
      ...(emitted.spec === undefined ? {} : { spec: emitted.spec as never }),
    };
    try {
      return { created: true, object: await store.create(input) };
    } catch (error) {
      // Another emit (or the plugin) created it meanwhile: compare with that one.
      if (!(error instanceof BatonError && error.code === "plugin_exists")) throw error;
      return applyEmit(store, type, emitted);
    }
  }
  const what = refText(ref);
  if (existing.metadata.deletionTimestamp !== undefined) throw new BatonError("plugin_conflict", `${what} is being deleted; emit it again once it is gone`);
  if (!jsonEqual(existing.spec, emitted.spec ?? {})) throw new BatonError("plugin_conflict", `${what} exists with another spec; a Source only announces resources (change it with replaceSpec)`);
  const owner = existing.metadata.owner;
  const sameOwner = emitted.owner === undefined ? owner === undefined : owner !== undefined && owner.uid === emitted.owner.uid && owner.name === emitted.owner.name && owner.kind === emitted.owner.kind && owner.apiVersion === emitted.owner.apiVersion;
  if (!sameOwner) throw new BatonError("plugin_conflict", `${what} exists with another owner`);
  const label = differing(emitted.labels, existing.metadata.labels);
  if (label !== undefined) throw new BatonError("plugin_conflict", `${what} exists with another value of label '${label}' (change it with patchMetadata)`);
  const annotation = differing(emitted.annotations, existing.metadata.annotations);
  if (annotation !== undefined) throw new BatonError("plugin_conflict", `${what} exists with another value of annotation '${annotation}' (change it with patchMetadata)`);
  return { created: false, object: existing };
}
