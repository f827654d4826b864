/**
 * Shape predicates for values read from JSON (files, agents, plugins): the small checks the hand-written fast
 * paths (meta.json, config.yaml) and the transports' defensive reads share.
 */

/** A JSON object: not null, not an array. */
export function isObjectRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An object literal or `JSON.parse` result (prototype Object or null): what a schema's `z.object` accepts as is. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (!isObjectRecord(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export const optionalString = (value: unknown): boolean => value === undefined || typeof value === "string";

/** Absent, or a finite number (what `z.number().optional()` accepts). */
export const optionalNumber = (value: unknown): boolean => value === undefined || (typeof value === "number" && Number.isFinite(value));
