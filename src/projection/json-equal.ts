/** Deep equality of JSON-like values (objects, arrays, primitives); `undefined` properties count as absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let countA = 0;
  for (const key in ra) {
    if (!Object.hasOwn(ra, key) || ra[key] === undefined) continue;
    countA++;
    if (!Object.hasOwn(rb, key) || !jsonEqual(ra[key], rb[key])) return false;
  }
  let countB = 0;
  for (const key in rb) if (Object.hasOwn(rb, key) && rb[key] !== undefined) countB++;
  return countA === countB;
}
