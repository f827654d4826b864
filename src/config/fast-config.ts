/**
 * config.yaml's values checked by hand, so a start validates its config without loading zod (#18: the first frame
 * waits for config). The rules are `configSchema`'s; the check answers only for values it is sure of — anything
 * else (a wrong type, a bound crossed, an unknown key, any `harnesses`/`targets` section, which the harnesses'
 * own schemas validate anyway) answers undefined, and the schema parses the values and words every problem with
 * file, line and key. A property test keeps the answer equal to the schema's output wherever it gives one.
 */
import { LOG_LEVELS } from "../shared/log.ts";
import { isPlainRecord } from "../shared/shape.ts";
import { CONFIG_KEYS, MAX_CANCEL_GRACE_SECONDS, MAX_STALL_NOTICE_SECONDS, type BatonConfig } from "./schema.ts";

type Fields = Record<string, unknown>;

const KEYS: ReadonlySet<string> = new Set(CONFIG_KEYS);
const LEVELS: ReadonlySet<unknown> = new Set(LOG_LEVELS);
const TARGET_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const FAILOVER: ReadonlySet<unknown> = new Set(["ask", "off"]);


const isTargetId = (value: unknown): value is string => typeof value === "string" && TARGET_ID.test(value);
const isSeconds = (value: unknown, max: number): value is number => typeof value === "number" && Number.isFinite(value) && value > 0 && value <= max;
/** The schema's `.default(d)`: only an absent value (undefined) takes the default; null does not. */
const or = (value: unknown, otherwise: unknown): unknown => (value === undefined ? otherwise : value);
const isEmpty = (value: unknown): boolean => value === undefined || (isPlainRecord(value) && Object.keys(value).length === 0);

/** Every value of a plain record passes `ok` (and so do its keys). */
function everyEntry(value: unknown, key: (k: string) => boolean, ok: (v: unknown) => boolean): value is Record<string, string> {
  if (!isPlainRecord(value)) return false;
  for (const [k, v] of Object.entries(value)) if (!key(k) || !ok(v)) return false;
  return true;
}

function notifyOf(value: unknown): BatonConfig["notify"] | undefined {
  if (value === undefined) return { enabled: true, afterSeconds: 20 };
  if (!isPlainRecord(value)) return undefined;
  for (const key of Object.keys(value)) if (key !== "enabled" && key !== "afterSeconds") return undefined;
  const enabled = or(value["enabled"], true);
  const afterSeconds = or(value["afterSeconds"], 20);
  if (typeof enabled !== "boolean" || !isSeconds(afterSeconds, MAX_STALL_NOTICE_SECONDS)) return undefined;
  return { enabled, afterSeconds };
}

/** The config `configSchema` parses `values` to, or undefined when the schema has to decide. */
export function fastConfig(values: Readonly<Fields>): BatonConfig | undefined {
  // A key given as undefined would be kept as one by the schema: rare (YAML has no undefined), so it decides.
  for (const [key, value] of Object.entries(values)) if (!KEYS.has(key) || value === undefined) return undefined;
  const defaultAgent = or(values["defaultAgent"], "codex");
  const mentionBudgetChars = or(values["mentionBudgetChars"], 4096);
  const showThoughts = or(values["showThoughts"], true);
  const logLevel = or(values["logLevel"], "info");
  const stallNoticeSeconds = or(values["stallNoticeSeconds"], 90);
  const cancelGraceSeconds = or(values["cancelGraceSeconds"], 10);
  const { textgenPrefer, textgenModels } = values;
  const notify = notifyOf(values["notify"]);
  const failover = or(values["failover"], {});
  if (
    !isTargetId(defaultAgent) ||
    !(typeof mentionBudgetChars === "number" && Number.isSafeInteger(mentionBudgetChars) && mentionBudgetChars > 0) ||
    typeof showThoughts !== "boolean" ||
    typeof logLevel !== "string" ||
    !LEVELS.has(logLevel) ||
    !isSeconds(stallNoticeSeconds, MAX_STALL_NOTICE_SECONDS) ||
    !isSeconds(cancelGraceSeconds, MAX_CANCEL_GRACE_SECONDS) ||
    !(textgenPrefer === undefined || isTargetId(textgenPrefer)) ||
    !(textgenModels === undefined || everyEntry(textgenModels, () => true, (v) => typeof v === "string" && v.length > 0)) ||
    notify === undefined ||
    !everyEntry(failover, (k) => TARGET_ID.test(k), (v) => FAILOVER.has(v)) ||
    !isEmpty(values["harnesses"]) ||
    !isEmpty(values["targets"])
  ) {
    return undefined;
  }
  // The schema's output: its keys in its order, optional ones only when given, records copied.
  return {
    defaultAgent,
    mentionBudgetChars,
    showThoughts,
    logLevel,
    stallNoticeSeconds,
    cancelGraceSeconds,
    ...(textgenPrefer === undefined ? {} : { textgenPrefer }),
    ...(textgenModels === undefined ? {} : { textgenModels: { ...textgenModels } }),
    notify,
    failover: { ...(failover as Record<string, "ask" | "off">) },
    harnesses: {},
    targets: {},
  };
}
