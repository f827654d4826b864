/**
 * `JSON.stringify` that yields to the event loop every few milliseconds, so writing a large
 * checkpoint in the background never freezes the UI for the whole serialization. Large containers
 * (or the top levels) are walked here; small sub-trees go to the native `JSON.stringify` in one call.
 * The value must not be mutated while this runs (projection states are immutable: safe).
 */

export interface SlicedJsonOptions {
  /** Yield after this much synchronous work (default 4 ms). */
  readonly sliceMs?: number;
  readonly now?: () => number;
}

/** Containers with more entries than this, or above this depth, are walked entry by entry. */
const WALK_ENTRIES = 16;
const WALK_DEPTH = 3;

/** Same output as `JSON.stringify(value)` (undefined for undefined/functions at the top). */
export async function stringifySliced(value: unknown, options: SlicedJsonOptions = {}): Promise<string | undefined> {
  const sliceMs = options.sliceMs ?? 4;
  const now = options.now ?? (() => performance.now());
  let deadline = now() + sliceMs;

  const pause = async (): Promise<void> => {
    if (now() < deadline) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    deadline = now() + sliceMs;
  };

  const walk = async (node: unknown, depth: number): Promise<string | undefined> => {
    if (typeof node !== "object" || node === null || typeof (node as { toJSON?: unknown }).toJSON === "function") {
      return JSON.stringify(node);
    }
    if (Array.isArray(node)) {
      if (depth >= WALK_DEPTH && node.length <= WALK_ENTRIES) return JSON.stringify(node);
      const items: string[] = [];
      for (const item of node) {
        items.push((await walk(item, depth + 1)) ?? "null");
        await pause();
      }
      return `[${items.join(",")}]`;
    }
    const keys = Object.keys(node);
    if (depth >= WALK_DEPTH && keys.length <= WALK_ENTRIES) return JSON.stringify(node);
    const members: string[] = [];
    for (const key of keys) {
      const encoded = await walk((node as Record<string, unknown>)[key], depth + 1);
      if (encoded !== undefined) members.push(`${JSON.stringify(key)}:${encoded}`);
      await pause();
    }
    return `{${members.join(",")}}`;
  };

  return walk(value, 0);
}
