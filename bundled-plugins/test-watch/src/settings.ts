/**
 * test-watch's settings: the instance's `config` in `$BATON_HOME/plugin.yaml`
 * (`plugins: { baton/test-watch@baton: { config: { command: "npm test" } } }`). A bad value is reported in
 * one line (key, what it must be, what is used instead) and never stops the plugin.
 */
export type RunOn = "edits" | "every-turn";

export interface TestWatchSettings {
  /** The shell command that runs the tests; undefined = package.json `test`, else ask. */
  readonly command: string | undefined;
  readonly runOn: RunOn;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
}

export const DEFAULT_TIMEOUT_MS = 300_000;
export const MAX_TIMEOUT_MS = 600_000;
export const DEFAULT_OUTPUT_BYTES = 1024 * 1024;
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

const KNOWN = new Set(["command", "runOn", "timeoutMs", "maxOutputBytes"]);

export function readSettings(config: unknown): { settings: TestWatchSettings; problems: string[] } {
  const problems: string[] = [];
  const raw = typeof config === "object" && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>) : {};
  if (config !== undefined && config !== null && raw !== config) problems.push(`config: must be a mapping (command, runOn, timeoutMs, maxOutputBytes); using the defaults`);
  for (const key of Object.keys(raw)) if (!KNOWN.has(key)) problems.push(`config.${key}: unknown setting (known: command, runOn, timeoutMs, maxOutputBytes); ignored`);

  let command: string | undefined;
  if (raw["command"] !== undefined) {
    if (typeof raw["command"] === "string" && raw["command"].trim() !== "") command = raw["command"].trim();
    else problems.push(`config.command: must be a non-empty shell command, e.g. "npm test"; ignored`);
  }
  let runOn: RunOn = "edits";
  if (raw["runOn"] !== undefined) {
    if (raw["runOn"] === "edits" || raw["runOn"] === "every-turn") runOn = raw["runOn"];
    else problems.push(`config.runOn: must be "edits" or "every-turn"; using "edits"`);
  }
  const number = (key: string, fallback: number, min: number, max: number, unit: string): number => {
    const value = raw[key];
    if (value === undefined) return fallback;
    if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) return value;
    problems.push(`config.${key}: must be a whole number of ${unit} from ${min} to ${max}; using ${fallback}`);
    return fallback;
  };
  const timeoutMs = number("timeoutMs", DEFAULT_TIMEOUT_MS, 1_000, MAX_TIMEOUT_MS, "milliseconds");
  const maxOutputBytes = number("maxOutputBytes", DEFAULT_OUTPUT_BYTES, 1_024, MAX_OUTPUT_BYTES, "bytes");
  return { settings: { command, runOn, timeoutMs, maxOutputBytes }, problems };
}
