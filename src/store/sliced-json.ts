/**
 * `JSON.stringify` that yields to the event loop every few milliseconds, so writing a large
 * checkpoint in the background never freezes the UI for the whole serialization. Large containers
 * (and the top levels) are walked here; small sub-trees go to the native `JSON.stringify` in one
 * call. The output comes as ordered pieces (~64 K chars each) so the writer can encode and write
 * them one at a time too. The value must not be mutated meanwhile (projection states are immutable).
 */

export interface SlicedJsonOptions {
  /** Yield after this much synchronous work (default 4 ms). */
  readonly sliceMs?: number;
  readonly now?: () => number;
}

/** Containers with more entries than this, or above this depth, are walked entry by entry. */
const WALK_ENTRIES = 16;
const WALK_DEPTH = 3;
const PIECE_CHARS = 64 * 1024;

function hasToJSON(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === "function";
}

/** Same text as `JSON.stringify(value)`, as ordered pieces; undefined where JSON.stringify gives undefined. */
export async function stringifyPieces(value: unknown, options: SlicedJsonOptions = {}): Promise<string[] | undefined> {
  const sliceMs = options.sliceMs ?? 4;
  const now = options.now ?? (() => performance.now());
  const pieces: string[] = [];
  let current = "";
  let deadline = now() + sliceMs;

  const emit = (text: string): void => {
    current += text;
    if (current.length >= PIECE_CHARS) {
      pieces.push(current);
      current = "";
    }
  };
  const pause = async (): Promise<void> => {
    if (now() < deadline) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    deadline = now() + sliceMs;
  };
  /** Encoded leaf, or undefined when JSON would omit it. Containers return null: walk them. */
  const leaf = (node: unknown, depth: number): string | undefined | null => {
    if (typeof node !== "object" || node === null || hasToJSON(node)) return JSON.stringify(node);
    const entries = Array.isArray(node) ? node.length : Object.keys(node).length;
    if (depth >= WALK_DEPTH && entries <= WALK_ENTRIES) return JSON.stringify(node);
    return null;
  };
  const walk = async (node: object, depth: number): Promise<void> => {
    if (Array.isArray(node)) {
      emit("[");
      for (let index = 0; index < node.length; index++) {
        if (index > 0) emit(",");
        const item: unknown = node[index];
        const encoded = leaf(item, depth + 1);
        if (encoded === null) await walk(item as object, depth + 1);
        else emit(encoded ?? "null");
        await pause();
      }
      emit("]");
      return;
    }
    emit("{");
    let first = true;
    for (const key of Object.keys(node)) {
      const item = (node as Record<string, unknown>)[key];
      const encoded = leaf(item, depth + 1);
      if (encoded === undefined) continue;
      emit(`${first ? "" : ","}${JSON.stringify(key)}:`);
      first = false;
      if (encoded === null) await walk(item as object, depth + 1);
      else emit(encoded);
      await pause();
    }
    emit("}");
  };

  const top = leaf(value, 0);
  if (top === undefined) return undefined;
  if (top === null) await walk(value as object, 0);
  else emit(top);
  if (current.length > 0) pieces.push(current);
  return pieces;
}

/** `stringifyPieces` joined into one string. */
export async function stringifySliced(value: unknown, options: SlicedJsonOptions = {}): Promise<string | undefined> {
  return (await stringifyPieces(value, options))?.join("");
}
