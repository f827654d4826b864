/**
 * A registry row's payload schema, built the first time it is read and then kept on the row (as a plain value):
 * building every kind's schema cost each start ≈ 12 ms, and the first frame validates a handful of kinds (#18).
 * `build` gets zod's `z`, which is loaded then (shared/lazy-schema.ts), not when the registry is imported.
 */
import type { z } from "zod";
import { zod, type ZodNamespace } from "../shared/lazy-schema.ts";

export function built<S extends z.ZodType>(row: object, build: (z: ZodNamespace) => S): S {
  const schema = build(zod());
  Object.defineProperty(row, "payload", { value: schema, enumerable: true });
  return schema;
}
