/** config.yaml keys (inventory 2.17, issues): one schema, defaults, and the env variable of each top-level key. */
import type { z } from "zod";
import { lazySchema, type ZodNamespace } from "../shared/lazy-schema.ts";
import { LOG_LEVELS } from "../shared/log.ts";

/**
 * Upper bounds for durations: a timer over 2^31 ms does not wait at all (Node/Bun clamp it to 1 ms), so an
 * absurd value would turn the stall watch into a busy loop. Beyond these a value is a mistake, not a wish.
 */
export const MAX_STALL_NOTICE_SECONDS = 86_400;
export const MAX_CANCEL_GRACE_SECONDS = 600;

function seconds(z: ZodNamespace, max: number, spelled: string) {
  return z.number().positive("more than 0 seconds").max(max, `at most ${max} seconds (${spelled})`);
}

const targetId = lazySchema((z) => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' or '-'"));
const envMap = lazySchema((z) => z.record(z.string(), z.string()));

/**
 * A harness section (`harnesses.<id>`) or a target (`targets.<id>`), as far as config knows it: `env` (and a
 * target's `harness`) are the registry's; every other key belongs to the harness and is validated by its
 * definition's settings schema (load.ts), so a new harness needs nothing here.
 */
export const harnessSectionSchema = lazySchema((z) => z.looseObject({ env: envMap.optional() }));
export const targetSchema = lazySchema((z) => z.looseObject({ harness: z.string().min(1), env: envMap.optional() }));

export const configSchema = lazySchema((z) => z.strictObject({
  defaultAgent: targetId.default("codex"),
  mentionBudgetChars: z.number().int().positive().default(4096),
  showThoughts: z.boolean().default(true),
  logLevel: z.enum(LOG_LEVELS as [string, ...string[]]).default("info"),
  stallNoticeSeconds: seconds(z, MAX_STALL_NOTICE_SECONDS, "one day").default(90),
  cancelGraceSeconds: seconds(z, MAX_CANCEL_GRACE_SECONDS, "ten minutes").default(10),
  textgenPrefer: targetId.optional(),
  textgenModels: z.record(z.string(), z.string().min(1)).optional(),
  /** Terminal notifications (OSC 9/777 + BEL) when a turn waits for the user longer than afterSeconds. */
  notify: z
    .strictObject({ enabled: z.boolean().default(true), afterSeconds: seconds(z, MAX_STALL_NOTICE_SECONDS, "one day").default(20) })
    .default({ enabled: true, afterSeconds: 20 }),
  /** Per target: when its usage limit is hit, offer to continue the task on another agent (`ask`), or never (`off`). */
  failover: z.record(targetId, z.enum(["ask", "off"])).default({}),
  harnesses: z.record(z.string(), harnessSectionSchema).default({}),
  targets: z.record(targetId, targetSchema).default({}),
}));

export type BatonConfig = z.infer<typeof configSchema>;
export type ConfigKey = keyof BatonConfig;

/** The schema's keys, in its order, known without building it (a test holds the two equal). */
export const CONFIG_KEYS: readonly ConfigKey[] = [
  "defaultAgent",
  "mentionBudgetChars",
  "showThoughts",
  "logLevel",
  "stallNoticeSeconds",
  "cancelGraceSeconds",
  "textgenPrefer",
  "textgenModels",
  "notify",
  "failover",
  "harnesses",
  "targets",
];

/** Scalar keys that an environment variable may override: BATON_<SCREAMING_SNAKE>. */
export const ENV_OVERRIDES: Readonly<Record<string, { key: ConfigKey; parse: (raw: string) => unknown }>> = {
  BATON_DEFAULT_AGENT: { key: "defaultAgent", parse: (raw) => raw },
  BATON_MENTION_BUDGET_CHARS: { key: "mentionBudgetChars", parse: Number },
  BATON_SHOW_THOUGHTS: { key: "showThoughts", parse: parseBoolean },
  BATON_LOG_LEVEL: { key: "logLevel", parse: (raw) => raw },
  BATON_STALL_NOTICE_SECONDS: { key: "stallNoticeSeconds", parse: Number },
  BATON_CANCEL_GRACE_SECONDS: { key: "cancelGraceSeconds", parse: Number },
  BATON_TEXTGEN_PREFER: { key: "textgenPrefer", parse: (raw) => raw },
};

function parseBoolean(raw: string): unknown {
  const lowered = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(lowered)) return true;
  if (["0", "false", "no", "off"].includes(lowered)) return false;
  return raw;
}
