/**
 * Owner references (RES-04) and the cascade of a deletion (RES-05): whether an owner reference may be set
 * (same namespace, carries the uid of the live incarnation, not terminating, not itself, never a Turn), and
 * every structural descendant of a resource, breadth first. Pure but for the `read` it is handed.
 */
import { BatonError } from "../../shared/errors.ts";
import { checkRef, refText, sameType, TURN_TYPE, type OwnerRef, type ResourceObject, type ResourceRef } from "./schema.ts";

export async function checkOwner(ref: ResourceRef, owner: OwnerRef, read: (ref: ResourceRef) => Promise<{ readonly object: ResourceObject } | undefined>): Promise<void> {
  const what = `${refText(ref)} owner`;
  checkRef(owner, what);
  if (typeof owner.uid !== "string" || owner.uid === "") throw new BatonError("plugin_invalid", `${what}: the owner reference must carry the owner's uid`);
  if (sameType(owner, ref) && owner.name === ref.name) throw new BatonError("plugin_invalid", `${what}: a resource cannot own itself`);
  if (sameType(owner, TURN_TYPE)) throw new BatonError("plugin_invalid", `${what}: a Turn cannot own a plugin resource`);
  const found = await read(owner).catch(() => undefined);
  if (found === undefined) throw new BatonError("plugin_invalid", `${what}: ${refText(owner)} does not exist`);
  if (found.object.metadata.uid !== owner.uid) throw new BatonError("plugin_invalid", `${what}: ${refText(owner)} is another incarnation (uid ${found.object.metadata.uid}, not ${owner.uid})`);
  if (found.object.metadata.deletionTimestamp !== undefined) throw new BatonError("plugin_invalid", `${what}: ${refText(owner)} is being deleted`);
}

/** Every resource below `rootUid` through owner uids, breadth first (each once, the root excluded). */
export function descendantsOf(all: readonly ResourceObject[], rootUid: string): ResourceObject[] {
  const children = new Map<string, ResourceObject[]>();
  for (const object of all) {
    const owner = object.metadata.owner?.uid;
    if (owner !== undefined) children.set(owner, [...(children.get(owner) ?? []), object]);
  }
  const out: ResourceObject[] = [];
  const queue = [...(children.get(rootUid) ?? [])];
  const seen = new Set([rootUid]);
  while (queue.length > 0) {
    const next = queue.shift() as ResourceObject;
    if (seen.has(next.metadata.uid)) continue;
    seen.add(next.metadata.uid);
    out.push(next);
    queue.push(...(children.get(next.metadata.uid) ?? []));
  }
  return out;
}
