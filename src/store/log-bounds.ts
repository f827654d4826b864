/**
 * Bounding arbitrary values before they go into a log record (LOG-02): strings ≤ 8 KiB,
 * ≤ 100 items per array/object, depth ≤ 5, cycles replaced, errors flattened.
 */

export const MAX_LOG_STRING = 8 * 1024;
export const MAX_LOG_ITEMS = 100;
export const MAX_LOG_DEPTH = 5;

export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly code?: string;
  readonly cause?: unknown;
}

export function boundString(value: string, max = MAX_LOG_STRING): string {
  return value.length <= max ? value : `${value.slice(0, max)}…[${value.length - max} more chars]`;
}

export function boundValue(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  switch (typeof value) {
    case "string":
      return boundString(value);
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "boolean":
      return value;
    case "bigint":
      return `${value.toString()}n`;
    case "undefined":
      return undefined;
    case "function":
      return `[function ${value.name || "anonymous"}]`;
    case "symbol":
      return value.toString();
    case "object":
      break;
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) return "[circular]";
  if (depth >= MAX_LOG_DEPTH) return Array.isArray(object) ? "[array]" : "[object]";
  seen.add(object);
  try {
    if (object instanceof Error) return serializeError(object, depth, seen);
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString();
    if (object instanceof Uint8Array) return `[${object.byteLength} bytes]`;
    if (object instanceof Map) return boundEntries([...object.entries()].map(([k, v]) => [String(k), v]), depth, seen);
    if (object instanceof Set) return boundArray([...object], depth, seen);
    if (Array.isArray(object)) return boundArray(object, depth, seen);
    return boundEntries(Object.entries(object), depth, seen);
  } finally {
    seen.delete(object);
  }
}

function boundArray(items: readonly unknown[], depth: number, seen: WeakSet<object>): unknown[] {
  const out = items.slice(0, MAX_LOG_ITEMS).map((item) => boundValue(item, depth + 1, seen) ?? null);
  if (items.length > MAX_LOG_ITEMS) out.push(`…[${items.length - MAX_LOG_ITEMS} more items]`);
  return out;
}

function boundEntries(entries: ReadonlyArray<readonly [string, unknown]>, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries.slice(0, MAX_LOG_ITEMS)) {
    const bounded = boundValue(item, depth + 1, seen);
    if (bounded !== undefined) out[boundString(key, 256)] = bounded;
  }
  if (entries.length > MAX_LOG_ITEMS) out["…"] = `${entries.length - MAX_LOG_ITEMS} more keys`;
  return out;
}

/** `{name, message, stack, code?, cause?}` with the cause bounded like any value. */
export function serializeError(error: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): SerializedError {
  if (!(error instanceof Error)) {
    return { name: "NonError", message: boundString(typeof error === "string" ? error : safeJson(error)) };
  }
  const code = (error as { code?: unknown }).code;
  const cause = error.cause === undefined ? undefined : boundValue(error.cause, depth + 1, seen);
  return {
    name: error.name,
    message: boundString(error.message),
    ...(error.stack === undefined ? {} : { stack: boundString(error.stack) }),
    ...(typeof code === "string" ? { code } : {}),
    ...(cause === undefined ? {} : { cause }),
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(boundValue(value)) ?? String(value);
  } catch {
    return String(value);
  }
}
