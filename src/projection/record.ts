/**
 * Copy-on-write helpers for small plain records (active turns, per-target state, epochs). The key type is
 * the record's own (`TurnId`, `TargetId`, …): a plain string does not index a branded record.
 */

export function ownGet<T, K extends string>(record: Readonly<Record<K, T>>, key: NoInfer<K>): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Returns the same record when `value` is already stored under `key`. */
export function recordSet<T, K extends string>(record: Readonly<Record<K, T>>, key: NoInfer<K>, value: T): Readonly<Record<K, T>> {
  if (Object.hasOwn(record, key) && record[key] === value) return record;
  return { ...record, [key]: value };
}

export function recordDelete<T, K extends string>(record: Readonly<Record<K, T>>, key: NoInfer<K>): Readonly<Record<K, T>> {
  if (!Object.hasOwn(record, key)) return record;
  const next: Record<K, T> = { ...record };
  delete next[key];
  return next;
}
