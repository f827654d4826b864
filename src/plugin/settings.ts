/**
 * `$BATON_HOME/plugin.yaml` (MKT-05): one entry per plugin instance, keyed `<pluginId>@<marketplace>`,
 * with `enabled`, `version`, `config` and the consent that was given (tree digest + permissions).
 * Hand-written minimal files load (timestamps default to the file's mtime). A malformed file is reported
 * with its line and is never overwritten: writers refuse until it is fixed, so nothing is lost. Writes are
 * atomic (temp + rename) under a cross-process lock and re-read the file inside the lock.
 */
import fs from "node:fs";
import { LineCounter, parseDocument, stringify } from "yaml";
import { z } from "zod";
import { BatonError } from "../shared/errors.ts";
import { pluginInstanceIdFor, type PluginInstanceId } from "../shared/ids.ts";
import { withFileLock, writeSmallFileAtomic } from "../store/file-lock.ts";
import { parseInstanceKey } from "./paths.ts";

const consentSchema = z.looseObject({
  version: z.string().min(1),
  treeDigest: z.string().min(1),
  /** The permissions as shown when consent was given (compared to decide whether to ask again). */
  permissions: z.record(z.string(), z.unknown()),
  grantedAt: z.string(),
});
export type Consent = z.infer<typeof consentSchema>;

const instanceSchema = z.looseObject({
  enabled: z.boolean(),
  version: z.string().min(1),
  config: z.unknown().optional(),
  consent: consentSchema.optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});

const fileSchema = z.looseObject({
  version: z.literal(1).default(1),
  plugins: z.record(z.string(), instanceSchema).nullable().default({}),
});

export interface InstanceSettings {
  readonly key: string;
  readonly pluginId: string;
  readonly marketplace: string;
  readonly pluginInstanceId: PluginInstanceId;
  readonly enabled: boolean;
  readonly version: string;
  readonly config: unknown;
  readonly consent: Consent | undefined;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface PluginSettings {
  readonly instances: readonly InstanceSettings[];
}

export type InstanceChange = Partial<Pick<InstanceSettings, "enabled" | "version" | "config">> & { readonly consent?: Consent | null };

function problem(file: string, line: number | undefined, message: string): BatonError {
  return new BatonError("plugin_invalid", `${file}${line === undefined ? "" : `:${line}`}: ${message}`, {
    hint: `Fix ${file} by hand (or move it away to start over); Baton will not overwrite it while it is malformed.`,
  });
}

function isLosslessJson(value: unknown): boolean {
  try {
    return Bun.deepEquals(JSON.parse(JSON.stringify(value)) as unknown, value, true);
  } catch {
    return false;
  }
}

/** Parse the file's text; `mtime` fills in missing timestamps. */
export function parseSettings(text: string, file: string, mtime: string): PluginSettings {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const first = doc.errors[0];
  if (first !== undefined) throw problem(file, lines.linePos(first.pos[0]).line, `malformed YAML: ${first.message.split("\n")[0] ?? ""}`);
  const raw: unknown = doc.toJS() ?? {};
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw problem(file, undefined, `${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
  }
  const instances: InstanceSettings[] = [];
  for (const [key, entry] of Object.entries(parsed.data.plugins ?? {})) {
    const parts = parseInstanceKey(key);
    if (parts === undefined) throw problem(file, undefined, `plugins.${key}: keys are <pluginId>@<marketplace>`);
    if (entry.config !== undefined && !isLosslessJson(entry.config)) throw problem(file, undefined, `plugins.${key}.config: must be plain JSON data`);
    instances.push({
      key,
      pluginId: parts.pluginId,
      marketplace: parts.marketplace,
      pluginInstanceId: pluginInstanceIdFor(key),
      enabled: entry.enabled,
      version: entry.version,
      config: entry.config ?? {},
      consent: entry.consent,
      createdAt: entry.createdAt ?? mtime,
      updatedAt: entry.updatedAt ?? mtime,
    });
  }
  return { instances };
}

function render(settings: PluginSettings): string {
  const plugins: Record<string, unknown> = {};
  for (const i of settings.instances) {
    plugins[i.key] = {
      enabled: i.enabled,
      version: i.version,
      config: i.config,
      ...(i.consent === undefined ? {} : { consent: i.consent }),
      createdAt: i.createdAt,
      updatedAt: i.updatedAt,
    };
  }
  return `# Baton plugin instances (edit with 'baton plugins enable|disable'; hand edits are fine).\n${stringify({ version: 1, plugins })}`;
}

export class SettingsStore {
  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current settings; an absent file is empty, a malformed one throws `plugin_invalid`. */
  async load(): Promise<PluginSettings> {
    let text: string;
    let mtime: string;
    try {
      const [content, stat] = await Promise.all([fs.promises.readFile(this.file, "utf8"), fs.promises.stat(this.file)]);
      text = content;
      mtime = stat.mtime.toISOString();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { instances: [] };
      throw problem(this.file, undefined, `cannot read: ${(error as Error).message}`);
    }
    return parseSettings(text, this.file, mtime);
  }

  async get(key: string): Promise<InstanceSettings | undefined> {
    return (await this.load()).instances.find((i) => i.key === key);
  }

  /** Create or change one instance (read-modify-write under the lock). Returns the new entry. */
  async upsert(key: string, change: InstanceChange, defaults?: { version: string }): Promise<InstanceSettings> {
    return withFileLock(this.file, async () => {
      const current = await this.load();
      const stamp = new Date(this.now()).toISOString();
      const existing = current.instances.find((i) => i.key === key);
      const parts = parseInstanceKey(key);
      if (parts === undefined) throw new BatonError("internal", `bad instance key ${key}`);
      const base: InstanceSettings = existing ?? {
        key,
        pluginId: parts.pluginId,
        marketplace: parts.marketplace,
        pluginInstanceId: pluginInstanceIdFor(key),
        enabled: false,
        version: defaults?.version ?? change.version ?? "",
        config: {},
        consent: undefined,
        createdAt: stamp,
        updatedAt: stamp,
      };
      if (change.config !== undefined && !isLosslessJson(change.config)) throw new BatonError("plugin_invalid", `config of ${key} must be plain JSON data`);
      const next: InstanceSettings = {
        ...base,
        ...(change.enabled === undefined ? {} : { enabled: change.enabled }),
        ...(change.version === undefined ? {} : { version: change.version }),
        ...(change.config === undefined ? {} : { config: change.config }),
        consent: change.consent === null ? undefined : (change.consent ?? base.consent),
        updatedAt: stamp,
      };
      const instances = existing === undefined ? [...current.instances, next] : current.instances.map((i) => (i.key === key ? next : i));
      await writeSmallFileAtomic(this.file, render({ instances }));
      return next;
    });
  }

  /** Remove one instance; returns whether it existed. */
  async remove(key: string): Promise<boolean> {
    return withFileLock(this.file, async () => {
      const current = await this.load();
      if (!current.instances.some((i) => i.key === key)) return false;
      await writeSmallFileAtomic(this.file, render({ instances: current.instances.filter((i) => i.key !== key) }));
      return true;
    });
  }
}
