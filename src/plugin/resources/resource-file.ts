/**
 * One resource file (RES-07): `<root>/<group>/<version>/<Kind>/<name>.json` holding `{object, control}`.
 * Parsing reports a corrupt or wrongly scoped file in one line with its path (the file is left as it is);
 * writing replaces it atomically (temp + fsync + rename).
 */
import path from "node:path";
import { BatonError, describeError } from "../../shared/errors.ts";
import { writeSmallFileAtomic } from "../../store/file-lock.ts";
import { isJsonObject, refText, sameType, type Json, type ResourceObject, type ResourceRef } from "./schema.ts";

export interface ResourceControl {
  /** Epoch ms of the next scheduled reconcile (requeueAfterMs or error backoff). */
  readonly nextReconcileAt?: number;
}

export interface StoredResource {
  readonly object: ResourceObject;
  readonly control: ResourceControl;
}

export function resourceFilePath(root: string, ref: ResourceRef): string {
  const [group, version] = ref.apiVersion.split("/") as [string, string];
  return path.join(root, group, version, ref.kind, `${ref.name}.json`);
}

function isStored(value: unknown): value is StoredResource {
  if (!isJsonObject(value as Json)) return false;
  const v = value as { object?: unknown; control?: unknown };
  const o = v.object as Record<string, unknown> | undefined;
  const m = o?.["metadata"] as Record<string, unknown> | undefined;
  return (
    isJsonObject(o as Json) &&
    typeof o?.["apiVersion"] === "string" &&
    typeof o["kind"] === "string" &&
    isJsonObject(m as Json) &&
    typeof m?.["name"] === "string" &&
    typeof m["uid"] === "string" &&
    typeof m["namespace"] === "string" &&
    Number.isInteger(m["generation"]) &&
    typeof m["resourceVersion"] === "string" &&
    /^[1-9][0-9]*$/.test(m["resourceVersion"]) &&
    isJsonObject(o["status"] as Json) &&
    (v.control === undefined || isJsonObject(v.control as Json))
  );
}

/** The stored resource in `text`, checked to be what `ref` names in `namespace`; throws one line otherwise. */
export function parseResourceFile(file: string, text: string, ref: ResourceRef, namespace: string): StoredResource {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BatonError("plugin_invalid", `${file}: corrupt resource file (${describeError(error)}); left as it is`);
  }
  if (!isStored(value)) throw new BatonError("plugin_invalid", `${file}: not a resource file (object.metadata or status missing); left as it is`);
  const m = value.object.metadata;
  if (m.namespace !== namespace || m.name !== ref.name || !sameType(value.object, ref)) {
    throw new BatonError("plugin_invalid", `${file}: holds ${value.object.apiVersion} ${value.object.kind}/${m.name} of namespace ${m.namespace}, not ${refText(ref)} of ${namespace}; left as it is`);
  }
  return { object: value.object, control: value.control ?? {} };
}

export async function writeResourceFile(file: string, stored: StoredResource): Promise<void> {
  await writeSmallFileAtomic(file, `${JSON.stringify(stored, null, 2)}\n`);
}
