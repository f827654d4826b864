/**
 * Load config.yaml: defaults when absent, BATON_* env over the file, unknown keys warned,
 * malformed YAML or a bad value reported with file, line and key — never silently replaced by defaults.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type { Document, LineCounter } from "yaml";
import { BatonError, describeError } from "../shared/errors.ts";
import { validateHarnessSettings, type ConfigIssue, type HarnessSettingsSpec } from "./harness-settings.ts";
import { fastConfig } from "./fast-config.ts";
import { readParseCache, writeParseCache } from "./parse-cache.ts";
import { sha256Hex } from "../shared/digest.ts";
import { CONFIG_KEYS, configSchema, ENV_OVERRIDES, type BatonConfig } from "./schema.ts";

export type { HarnessSettingsSpec } from "./harness-settings.ts";

/** The YAML library, loaded only when there is a config file to parse (most starts have none; it costs ~30 ms). */
const requireHere = createRequire(import.meta.url);
const yaml = (): typeof import("yaml") => requireHere("yaml") as typeof import("yaml");

/** Alias expansions allowed while loading (the yaml library's default, stated): config files need few or none. */
const MAX_ALIAS_COUNT = 100;

export type ValueOrigin = { readonly kind: "default" } | { readonly kind: "file"; readonly line: number } | { readonly kind: "env"; readonly name: string };

export interface ConfigProblem {
  readonly file: string;
  readonly line?: number;
  readonly key?: string;
  readonly message: string;
}

export interface LoadedConfig {
  readonly config: BatonConfig;
  readonly path: string;
  readonly exists: boolean;
  readonly origins: Readonly<Record<string, ValueOrigin>>;
  readonly warnings: readonly ConfigProblem[];
}

export function configPath(batonHome: string): string {
  return path.join(batonHome, "config.yaml");
}

export function formatProblem(problem: ConfigProblem): string {
  const where = problem.line === undefined ? problem.file : `${problem.file}:${problem.line}`;
  return `${where}: ${problem.key ? `${problem.key}: ` : ""}${problem.message}`;
}

/**
 * Throws BatonError("config_invalid") listing every problem; returns warnings for unknown keys. `harnesses` are the
 * registered harnesses: each validates its own sections (`harnesses.<id>`, and the targets that name it).
 */
export function loadConfig(batonHome: string, env: Readonly<Record<string, string | undefined>>, harnesses: readonly HarnessSettingsSpec[]): LoadedConfig {
  const file = configPath(batonHome);
  let source: string | undefined;
  try {
    source = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new BatonError("config_invalid", `${file}: cannot read: ${(error as Error).message}`);
    }
  }
  const parsedSource = source === undefined ? undefined : readSource(batonHome, file, source);
  const raw = parsedSource?.raw ?? {};
  const lineAt = (keyPath: readonly string[]): number | undefined => parsedSource?.lineOf(keyPath);
  const fileValues = { ...((raw ?? {}) as Record<string, unknown>) };
  const origins: Record<string, ValueOrigin> = {};
  for (const key of Object.keys(fileValues)) origins[key] = { kind: "file", line: lineAt([key]) ?? 1 };

  const known: ReadonlySet<string> = new Set(CONFIG_KEYS);
  const warnings: ConfigProblem[] = [];
  for (const key of Object.keys(fileValues)) {
    if (!known.has(key)) {
      const line = lineAt([key]);
      warnings.push({ file, ...(line === undefined ? {} : { line }), key, message: "unknown key (ignored)" });
      delete fileValues[key];
      delete origins[key];
    }
  }
  for (const [name, { key, parse }] of Object.entries(ENV_OVERRIDES)) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    fileValues[key] = parse(value);
    origins[key] = { kind: "env", name };
  }

  const describe = (issues: readonly ConfigIssue[]): ConfigProblem[] =>
    issues.map((issue) => {
      const keyPath = issue.path.map(String);
      const top = keyPath[0];
      const origin = top === undefined ? undefined : origins[top];
      if (origin?.kind === "env") return { file: `environment ${origin.name}`, key: keyPath.join("."), message: issue.message };
      const unknownKeys = issue.code === "unrecognized_keys" ? (issue.keys ?? []) : [];
      const line = lineAt([...keyPath, ...unknownKeys.slice(0, 1)]);
      return { file, ...(line === undefined ? {} : { line }), key: [...keyPath, ...unknownKeys].join("."), message: issue.message };
    });

  // Values the hand check is sure of skip the schema (and zod's load, ≈ 30 ms of a start); the rest, and every
  // problem's wording, are the schema's.
  const fast = fastConfig(fileValues);
  const parsed = fast === undefined ? configSchema.safeParse(fileValues) : { success: true as const, data: fast };
  if (!parsed.success) throw configError(describe(parsed.error.issues.map((issue) => ({ ...issue, ...("keys" in issue ? { keys: issue.keys } : {}) }))));
  const sections = validateHarnessSettings(parsed.data, harnesses);
  if (sections.issues.length > 0) throw configError(describe(sections.issues));
  const config: BatonConfig = { ...parsed.data, harnesses: sections.harnesses, targets: sections.targets };
  for (const key of Object.keys(config)) origins[key] ??= { kind: "default" };
  return { config, path: file, exists: source !== undefined, origins, warnings };
}

/** config.yaml's value, and the line a key path starts at (the deepest key of it the document has). */
interface ReadSource {
  readonly raw: unknown;
  lineOf(keyPath: readonly string[]): number | undefined;
}

/**
 * The file's value: from the parse cache when it holds this very text (no YAML loaded; a deeper key's line, which only
 * a problem's message asks for, parses the file then), else parsed now, and cached when that succeeded.
 */
function readSource(batonHome: string, file: string, source: string): ReadSource {
  const digest = sha256Hex(source);
  const cached = readParseCache(batonHome, digest);
  if (cached !== undefined) {
    let parsed: ReadSource | undefined;
    return { raw: cached.raw, lineOf: (keyPath) => (keyPath.length === 1 ? cached.lines[keyPath[0]!] : (parsed ??= parseSource(file, source)).lineOf(keyPath)) };
  }
  const parsed = parseSource(file, source);
  const lines: Record<string, number> = {};
  for (const key of Object.keys(parsed.raw ?? {})) {
    const line = parsed.lineOf([key]);
    if (line !== undefined) lines[key] = line;
  }
  writeParseCache(batonHome, digest, { raw: parsed.raw, lines });
  return parsed;
}

/** Parse config.yaml with the YAML library; malformed YAML, runaway aliases or a value that is not a mapping throw `config_invalid`. */
function parseSource(file: string, source: string): ReadSource {
  const lib = yaml();
  const lines = new lib.LineCounter();
  const doc = lib.parseDocument(source, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw configError(doc.errors.map((error) => ({ file, line: lines.linePos(error.pos[0]).line, message: `malformed YAML: ${error.message.split("\n")[0]}` })));
  }
  let raw: unknown;
  try {
    // toJS expands aliases with the library's limit, so a "billion laughs" document fails here instead of eating memory.
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (error) {
    throw configError([{ file, message: `cannot be loaded: ${describeError(error)} (too many or nested aliases?)` }]);
  }
  if (raw !== null && (typeof raw !== "object" || Array.isArray(raw))) {
    throw configError([{ file, line: 1, message: "the file must be a mapping of keys to values" }]);
  }
  return { raw, lineOf: (keyPath) => lineOf(doc, lines, keyPath) };
}

function configError(problems: readonly ConfigProblem[]): BatonError {
  return new BatonError("config_invalid", problems.map(formatProblem).join("\n"), {
    hint: "Fix the value (see README, Configuration) or remove the key to use its default.",
  });
}

function lineOf(doc: Document, lines: LineCounter, keyPath: readonly string[]): number | undefined {
  const { isMap, isScalar } = yaml();
  let node: unknown = doc.contents;
  let found: number | undefined;
  for (const key of keyPath) {
    if (!isMap(node)) break;
    const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
    if (!pair) break;
    const range = (isScalar(pair.key) ? pair.key.range : undefined) ?? undefined;
    if (range) found = lines.linePos(range[0]).line;
    node = pair.value;
  }
  return found;
}
