/**
 * A registry row's payload schema, built the first time it is read and then kept on the row (as a plain value):
 * building every kind's schema cost each start ≈ 12 ms, and the first frame validates a handful of kinds (#18).
 */
import type { z } from "zod";

export function built<S extends z.ZodType>(row: object, build: () => S): S {
  const schema = build();
  Object.defineProperty(row, "payload", { value: schema, enumerable: true });
  return schema;
}
