/** Copy-on-write helpers for small plain records (active turns, per-target state, epochs). */

export function ownGet<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Returns the same record when `value` is already stored under `key`. */
export function recordSet<T>(record: Readonly<Record<string, T>>, key: string, value: T): Readonly<Record<string, T>> {
  if (Object.hasOwn(record, key) && record[key] === value) return record;
  return { ...record, [key]: value };
}

export function recordDelete<T>(record: Readonly<Record<string, T>>, key: string): Readonly<Record<string, T>> {
  if (!Object.hasOwn(record, key)) return record;
  const next: Record<string, T> = { ...record };
  delete next[key];
  return next;
}
