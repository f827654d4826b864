/**
 * config.yaml as the YAML library read it, cached by the file's content (#18). Loading the library and parsing even
 * a one-line file costs ≈ 40–45 ms of a start (≈ 31 ms to load its ≈ 90 modules, 8–14 ms for a cold first parse),
 * paid by every command of every user who has a config. `$BATON_HOME/cache/config.json` keeps the last parse that
 * succeeded — the plain value and the line of each top-level key — under the sha256 of the text and the library's
 * version; a start whose file has that digest uses it and loads no YAML. Anything else (no cache, another text, a torn
 * or foreign cache, a value JSON cannot carry exactly, such as `.inf`) parses the file as before. What the cache
 * holds is what config.yaml says (mode 0600, beside it); deleting it costs the next start its speed, nothing else.
 */
import fs from "node:fs";
import path from "node:path";
import { isPlainRecord } from "../shared/shape.ts";

/** The `yaml` package the cached parses came from (a test keeps it equal to the installed one). */
export const YAML_VERSION = "2.9.1";
const FORMAT = 1;

/** One parse of config.yaml: its value (`toJS`) and the line of each top-level key the document shows. */
export interface CachedParse {
  readonly raw: unknown;
  readonly lines: Readonly<Record<string, number>>;
}

interface CacheFile extends CachedParse {
  readonly format: number;
  readonly yaml: string;
  readonly digest: string;
}

export function parseCachePath(batonHome: string): string {
  return path.join(batonHome, "cache", "config.json");
}

/** The cached parse of the text whose sha256 is `digest`, or undefined (none, another text, anything malformed). */
export function readParseCache(batonHome: string, digest: string): CachedParse | undefined {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(parseCachePath(batonHome), "utf8"));
  } catch {
    return undefined;
  }
  if (!isPlainRecord(value) || value["format"] !== FORMAT || value["yaml"] !== YAML_VERSION || value["digest"] !== digest) return undefined;
  const { raw, lines } = value as Partial<CacheFile>;
  if (raw !== null && !isPlainRecord(raw)) return undefined;
  if (!isPlainRecord(lines) || !Object.values(lines).every((line) => Number.isInteger(line) && (line as number) > 0)) return undefined;
  return { raw, lines: lines as Record<string, number> };
}

/** Keep `parse` for the text whose sha256 is `digest`, when JSON carries its value exactly; a failed write is ignored. */
export function writeParseCache(batonHome: string, digest: string, parse: CachedParse): void {
  if (!isJsonExact(parse.raw)) return;
  const file = parseCachePath(batonHome);
  const content: CacheFile = { format: FORMAT, yaml: YAML_VERSION, digest, raw: parse.raw, lines: parse.lines };
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(content), { mode: 0o600 });
    fs.renameSync(temp, file);
  } catch {
    // A cache: the next start parses the file again.
  }
}

/** Whether `JSON.parse(JSON.stringify(value))` gives back the same value (plain data, finite numbers, no -0). */
export function isJsonExact(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(isJsonExact);
  if (!isPlainRecord(value)) return false;
  return Object.entries(value).every(([key, item]) => key !== "__proto__" && isJsonExact(item));
}
