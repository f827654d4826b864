/**
 * Permissions, enforced where Baton honestly can (plugins.md §6): the runner gets a scrubbed environment,
 * `exec` refuses undeclared programs (in the SDK), and consent is asked again when permissions grow.
 * `network` and `fs.write` are shown, not enforced: the runner is an ordinary process running as the user.
 * It is NOT a sandbox.
 */
import type { PluginPermissions } from "./manifest.ts";

export const NOT_A_SANDBOX =
  "A plugin runs as an ordinary process with your user's rights; Baton isolates faults, it does not sandbox. Only enable plugins you trust.";

/** Passed through to every runner. */
const BASE_NAMES = new Set(["PATH", "HOME", "USER", "LOGNAME", "LANG", "TERM", "TMPDIR", "SHELL", "TZ"]);
const BASE_PREFIXES = ["LC_", "BATON_PLUGIN_"];
/** Never passed unless the manifest names them (exactly or by a `PREFIX_*` pattern). */
const SECRET = [/_API_KEY$/, /_TOKEN$/, /^AWS_/, /_SECRET$/, /_PASSWORD$/];

function declaredMatch(name: string, declared: readonly string[]): boolean {
  return declared.some((d) => (d.endsWith("*") ? name.startsWith(d.slice(0, -1)) : name === d));
}

/** The runner's environment: the base names, `LC_*`, `BATON_PLUGIN_*` and what the manifest declares. */
export function scrubEnvironment(env: Readonly<Record<string, string | undefined>>, declared: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const isDeclared = declaredMatch(name, declared);
    const isBase = BASE_NAMES.has(name) || BASE_PREFIXES.some((prefix) => name.startsWith(prefix));
    if (!isDeclared && !isBase) continue;
    if (!isDeclared && SECRET.some((pattern) => pattern.test(name))) continue;
    out[name] = value;
  }
  return out;
}

/** Lines a person reads before consenting (CLI prompt and consent card). */
export function describePermissions(permissions: PluginPermissions): string[] {
  const lines: string[] = [];
  lines.push(permissions.exec.length === 0 ? "runs no programs" : `may run: ${permissions.exec.join(", ")}`);
  if (permissions.env.length > 0) lines.push(`reads environment: ${permissions.env.join(", ")}`);
  if (permissions.network) lines.push("uses the network (not enforced)");
  if (permissions.fs.write) lines.push("writes files outside its data directories (not enforced)");
  if (permissions.resourceTypes.length > 0) lines.push(`owns resource types: ${permissions.resourceTypes.join(", ")}`);
  return lines;
}

/** The permissions as stored with a consent (plain JSON). */
export function permissionsRecord(permissions: PluginPermissions): Record<string, unknown> {
  return JSON.parse(JSON.stringify(permissions)) as Record<string, unknown>;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * What `next` asks for beyond what was consented to (empty = nothing new). A consent recorded in an
 * unexpected shape counts as no consent at all (pessimistic).
 */
export function permissionGrowth(granted: Readonly<Record<string, unknown>> | undefined, next: PluginPermissions): string[] {
  if (granted === undefined) return describePermissions(next);
  const grown: string[] = [];
  const before = (key: string): string[] => stringsOf(granted[key]);
  const newExec = next.exec.filter((p) => !before("exec").includes(p));
  if (newExec.length > 0) grown.push(`may now run: ${newExec.join(", ")}`);
  const newEnv = next.env.filter((e) => !before("env").includes(e));
  if (newEnv.length > 0) grown.push(`now reads environment: ${newEnv.join(", ")}`);
  if (next.network && granted["network"] !== true) grown.push("now uses the network");
  const fs = granted["fs"];
  const wroteBefore = typeof fs === "object" && fs !== null && (fs as Record<string, unknown>)["write"] === true;
  if (next.fs.write && !wroteBefore) grown.push("now writes files outside its data directories");
  const newTypes = next.resourceTypes.filter((t) => !before("resourceTypes").includes(t));
  if (newTypes.length > 0) grown.push(`now owns resource types: ${newTypes.join(", ")}`);
  return grown;
}
