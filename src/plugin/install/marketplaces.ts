/**
 * The marketplace registry `plugins/marketplaces.json` (MKT-03): local marketplaces referenced in place.
 * Adding the same directory twice is a no-op; another directory under a taken name is an error; removing
 * one never deletes its directory or what was installed from it.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BatonError } from "../../shared/errors.ts";
import { withFileLock, writeSmallFileAtomic } from "../../store/file-lock.ts";
import { MARKETPLACE_MANIFEST, parseMarketplaceManifest, type MarketplaceManifest } from "../manifest.ts";
import { isInside, type PluginPaths } from "../paths.ts";

const registrySchema = z.looseObject({
  version: z.literal(1),
  marketplaces: z.array(
    z.looseObject({
      name: z.string().min(1),
      source: z.looseObject({ kind: z.literal("local"), path: z.string().min(1) }),
      addedAt: z.string(),
    }),
  ),
});

export interface MarketplaceEntry {
  readonly name: string;
  readonly source: { readonly kind: "local"; readonly path: string };
  readonly addedAt: string;
}

/** A registered marketplace with its manifest read now (or why it could not be). */
export type MarketplaceListing = MarketplaceEntry & ({ readonly manifest: MarketplaceManifest; readonly error?: undefined } | { readonly manifest?: undefined; readonly error: string });

export interface CatalogEntry {
  readonly marketplace: string;
  readonly pluginId: string;
  /** Absolute path of the entry's source: a package directory or an npm tarball. */
  readonly source: string;
}

/** Read and check a marketplace directory: its manifest, and every source inside it. */
export async function readMarketplaceDir(dir: string): Promise<{ root: string; manifest: MarketplaceManifest }> {
  let root: string;
  try {
    root = await fs.promises.realpath(dir);
  } catch {
    throw new BatonError("plugin_not_found", `${dir}: no such directory`);
  }
  const file = path.join(root, MARKETPLACE_MANIFEST);
  let text: string;
  try {
    text = await fs.promises.readFile(file, "utf8");
  } catch {
    throw new BatonError("plugin_invalid", `${file}: missing; a marketplace is a directory with ${MARKETPLACE_MANIFEST}`);
  }
  return { root, manifest: parseMarketplaceManifest(text, file) };
}

/** The absolute, contained source of one catalog entry. */
export async function resolveSource(root: string, manifestFile: string, index: number, source: string): Promise<string> {
  let real: string;
  try {
    real = await fs.promises.realpath(path.join(root, source));
  } catch {
    throw new BatonError("plugin_invalid", `${manifestFile}: plugins[${index}].source: '${source}' does not exist`);
  }
  if (!isInside(root, real)) throw new BatonError("plugin_invalid", `${manifestFile}: plugins[${index}].source: '${source}' resolves outside the marketplace (${real}); refused`);
  return real;
}

export class MarketplaceRegistry {
  constructor(
    private readonly paths: PluginPaths,
    private readonly now: () => number = Date.now,
  ) {}

  async entries(): Promise<MarketplaceEntry[]> {
    let text: string;
    try {
      text = await fs.promises.readFile(this.paths.marketplaces, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw new BatonError("plugin_invalid", `${this.paths.marketplaces}: cannot read: ${(error as Error).message}`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new BatonError("plugin_invalid", `${this.paths.marketplaces}: not valid JSON`, { hint: "Fix it by hand or move it away; Baton will not overwrite it." });
    }
    const parsed = registrySchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BatonError("plugin_invalid", `${this.paths.marketplaces}: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
    }
    return parsed.data.marketplaces;
  }

  /** Register a local marketplace directory. Returns the entry and whether it was new. */
  async add(dir: string): Promise<{ entry: MarketplaceEntry; added: boolean; manifest: MarketplaceManifest }> {
    const { root, manifest } = await readMarketplaceDir(dir);
    const file = path.join(root, MARKETPLACE_MANIFEST);
    for (const [index, plugin] of manifest.plugins.entries()) await resolveSource(root, file, index, plugin.source);
    return withFileLock(this.paths.marketplaces, async () => {
      const entries = await this.entries();
      const existing = entries.find((e) => e.name === manifest.name);
      if (existing !== undefined) {
        if (existing.source.path === root) return { entry: existing, added: false, manifest };
        throw new BatonError("plugin_exists", `a marketplace named '${manifest.name}' is already registered from ${existing.source.path}`, {
          hint: `Remove it first (baton plugins marketplace remove ${manifest.name}) or rename this one.`,
        });
      }
      const entry: MarketplaceEntry = { name: manifest.name, source: { kind: "local", path: root }, addedAt: new Date(this.now()).toISOString() };
      await writeSmallFileAtomic(this.paths.marketplaces, `${JSON.stringify({ version: 1, marketplaces: [...entries, entry] }, null, 2)}\n`);
      return { entry, added: true, manifest };
    });
  }

  async remove(name: string): Promise<MarketplaceEntry> {
    return withFileLock(this.paths.marketplaces, async () => {
      const entries = await this.entries();
      const existing = entries.find((e) => e.name === name);
      if (existing === undefined) throw new BatonError("plugin_not_found", `no marketplace named '${name}' is registered`, { hint: "See them with: baton plugins marketplace list" });
      await writeSmallFileAtomic(this.paths.marketplaces, `${JSON.stringify({ version: 1, marketplaces: entries.filter((e) => e.name !== name) }, null, 2)}\n`);
      return existing;
    });
  }

  async list(): Promise<MarketplaceListing[]> {
    const out: MarketplaceListing[] = [];
    for (const entry of await this.entries()) {
      try {
        const { manifest } = await readMarketplaceDir(entry.source.path);
        out.push({ ...entry, manifest });
      } catch (error) {
        out.push({ ...entry, error: (error as Error).message });
      }
    }
    return out;
  }

  /** Where `pluginId` can be installed from; `marketplace` narrows it. Ambiguity is an error. */
  async find(pluginId: string, marketplace?: string): Promise<CatalogEntry> {
    const matches: CatalogEntry[] = [];
    const entries = await this.entries();
    if (marketplace !== undefined && !entries.some((e) => e.name === marketplace)) {
      throw new BatonError("plugin_not_found", `no marketplace named '${marketplace}' is registered`, { hint: "See them with: baton plugins marketplace list" });
    }
    for (const entry of entries) {
      if (marketplace !== undefined && entry.name !== marketplace) continue;
      const { root, manifest } = await readMarketplaceDir(entry.source.path);
      const file = path.join(root, MARKETPLACE_MANIFEST);
      const index = manifest.plugins.findIndex((p) => p.pluginId === pluginId);
      const listed = manifest.plugins[index];
      if (listed === undefined) continue;
      matches.push({ marketplace: entry.name, pluginId, source: await resolveSource(root, file, index, listed.source) });
    }
    const [only, ...more] = matches;
    if (only === undefined) {
      throw new BatonError("plugin_not_found", `no registered marketplace offers '${pluginId}'`, {
        hint: entries.length === 0 ? "Add one first: baton plugins marketplace add <dir>" : "See what they offer with: baton plugins marketplace list",
      });
    }
    if (more.length > 0) {
      throw new BatonError("usage", `'${pluginId}' is offered by ${matches.map((m) => m.marketplace).join(", ")}; say which with --marketplace <name>`);
    }
    return only;
  }
}
