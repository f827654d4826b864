/**
 * Each harness owns its settings schema (HAR-02): the keys it accepts in `harnesses.<id>` and in a target of it.
 * `env` (and a target's `harness`) belong to the registry, so every schema is about the harness's own keys only.
 * Config validates a section against its definition's schema and reports bad values with file, line and key.
 */
import type { z } from "zod";
import { lazySchema } from "../shared/lazy-schema.ts";

/** A strict object schema over a harness's own keys; unknown keys are errors. */
export type HarnessSettingsSchema = z.ZodType<Readonly<Record<string, unknown>>>;

/** An argv array: the program and its arguments, each non-empty. */
export const argvSchema = lazySchema((z) => z.array(z.string().min(1)).min(1, "needs at least the program"));
