/**
 * The package and marketplace manifests (plugins.md §6, MKT-01/02): `.baton-plugin/plugin.json` and
 * `.baton-plugin/marketplace.json`, validated with zod into one-line errors that name the file and the
 * field. Unknown fields are errors (a misspelt permission must not pass silently).
 */
import { z } from "zod";
import { BatonError } from "../shared/errors.ts";
import { parseTypeKey, sameType, TURN_TYPE } from "./resources/schema.ts";

export const MANIFEST_DIR = ".baton-plugin";
export const PLUGIN_MANIFEST = `${MANIFEST_DIR}/plugin.json`;
export const MARKETPLACE_MANIFEST = `${MANIFEST_DIR}/marketplace.json`;
export const SUPPORTED_SDK = 1;

/** `owner/name`: each part starts with a letter or digit; letters, digits, `.`, `_`, `-`. */
export const PLUGIN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Semver-shaped and path-safe. */
export const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
export const MARKETPLACE_NAME = /^[a-z0-9][a-z0-9._-]*$/;
export const COMMAND_NAME = /^[a-z0-9][a-z0-9-]*$/;
/** An environment variable name, or a prefix pattern ending in `*` (`GITHUB_*`). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;
/** Marketplace names Baton uses itself. */
export const RESERVED_MARKETPLACES: readonly string[] = ["local", "marketplaces", "packages", "logs"];

const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/") && !p.split(/[\\/]/).includes(".."), "must be a relative path inside the package (no '/' start, no '..')");

/** A `<apiVersion>/<Kind>` string; Baton's Turn type may be reconciled but never owned. */
function resourceTypeKey(allowTurn: boolean) {
  return (text: string, ctx: z.RefinementCtx): void => {
    try {
      const type = parseTypeKey(text);
      if (!allowTurn && sameType(type, TURN_TYPE)) ctx.addIssue({ code: "custom", message: `${text} is Baton's read-only type; it cannot be owned` });
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
    }
  };
}

const permissionsSchema = z.strictObject({
  exec: z.array(z.string().regex(/^\S+$/, "a program name without spaces")).default([]),
  env: z.array(z.string().regex(ENV_NAME, "an environment variable name (or PREFIX_*)")).default([]),
  network: z.boolean().default(false),
  fs: z.strictObject({ write: z.boolean().default(false) }).default({ write: false }),
  /** `<apiVersion>/<Kind>` (e.g. `example.dev/v1/Task`): the resource types this plugin owns and writes. */
  resourceTypes: z.array(z.string().min(1).superRefine(resourceTypeKey(false))).default([]),
});

const commandSchema = z.strictObject({
  name: z.string().regex(COMMAND_NAME, "lowercase letters, digits and hyphens"),
  description: z.string().min(1),
});

export const pluginManifestSchema = z.strictObject({
  manifestVersion: z.literal(1),
  pluginId: z.string().regex(PLUGIN_ID, "owner/name (letters, digits, '.', '_', '-')"),
  version: z.string().regex(VERSION, "a version like 1.2.3"),
  entry: relativePath,
  displayName: z.string().min(1).optional(),
  description: z.string().optional(),
  engines: z.strictObject({ baton: z.string().min(1) }),
  sdk: z.literal(SUPPORTED_SDK),
  permissions: permissionsSchema.default({ exec: [], env: [], network: false, fs: { write: false }, resourceTypes: [] }),
  contributes: z
    .strictObject({
      commands: z.array(commandSchema).default([]),
      controllers: z.array(z.strictObject({ resourceType: z.string().min(1).superRefine(resourceTypeKey(true)) })).default([]),
      contextProviders: z.array(z.strictObject({ kind: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, "letters, digits, '_' and '-'"), description: z.string().optional() })).default([]),
    })
    .default({ commands: [], controllers: [], contextProviders: [] }),
  limits: z
    .strictObject({
      reconcileTimeoutMs: z.number().int().min(1).max(300_000).default(30_000),
      memoryMb: z.number().int().min(32).max(65_536).default(1024),
    })
    .default({ reconcileTimeoutMs: 30_000, memoryMb: 1024 }),
});

export type PluginManifest = z.infer<typeof pluginManifestSchema>;
export type PluginPermissions = PluginManifest["permissions"];

export const marketplaceManifestSchema = z.strictObject({
  name: z.string().regex(MARKETPLACE_NAME, "lowercase letters, digits, '.', '_', '-'"),
  owner: z.strictObject({ name: z.string().min(1), url: z.string().optional() }).optional(),
  description: z.string().optional(),
  plugins: z.array(
    z.strictObject({
      pluginId: z.string().regex(PLUGIN_ID, "owner/name"),
      source: relativePath,
    }),
  ),
});

export type MarketplaceManifest = z.infer<typeof marketplaceManifestSchema>;

/** `plugins[2].source: must be a relative path…` — the first problem, as one line. */
function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid";
  const where = issue.path.map((part, index) => (typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${String(part)}`)).join("");
  const message = issue.code === "unrecognized_keys" ? `unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((k) => `'${k}'`).join(", ")}` : issue.message;
  return where === "" ? message : `${where}: ${message}`;
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BatonError("plugin_invalid", `${file}: not valid JSON (${(error as Error).message})`);
  }
}

export function parsePluginManifest(text: string, file: string): PluginManifest {
  const parsed = pluginManifestSchema.safeParse(parseJson(text, file));
  if (!parsed.success) throw new BatonError("plugin_invalid", `${file}: ${firstProblem(parsed.error)}`);
  const manifest = parsed.data;
  const names = new Set<string>();
  for (const [index, command] of manifest.contributes.commands.entries()) {
    if (names.has(command.name)) throw new BatonError("plugin_invalid", `${file}: contributes.commands[${index}].name: '${command.name}' is listed twice`);
    names.add(command.name);
  }
  return manifest;
}

export function parseMarketplaceManifest(text: string, file: string): MarketplaceManifest {
  const parsed = marketplaceManifestSchema.safeParse(parseJson(text, file));
  if (!parsed.success) throw new BatonError("plugin_invalid", `${file}: ${firstProblem(parsed.error)}`);
  const manifest = parsed.data;
  if (RESERVED_MARKETPLACES.includes(manifest.name)) throw new BatonError("plugin_invalid", `${file}: name: '${manifest.name}' is reserved by Baton; choose another name`);
  const seen = new Set<string>();
  for (const [index, entry] of manifest.plugins.entries()) {
    if (seen.has(entry.pluginId)) throw new BatonError("plugin_invalid", `${file}: plugins[${index}].pluginId: '${entry.pluginId}' is listed twice`);
    seen.add(entry.pluginId);
  }
  return manifest;
}

/** The manifest's `engines.baton` range checked against this Baton's version. */
export function checkEngines(manifest: PluginManifest, batonVersion: string, file: string): void {
  let ok: boolean;
  try {
    ok = Bun.semver.satisfies(batonVersion, manifest.engines.baton);
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new BatonError("plugin_invalid", `${file}: engines.baton: ${manifest.pluginId} ${manifest.version} needs Baton ${manifest.engines.baton}; this is Baton ${batonVersion}`, {
      hint: "Install a version of the plugin made for this Baton, or update Baton.",
    });
  }
}
