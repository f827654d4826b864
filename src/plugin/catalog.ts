/**
 * Plugins at the level of `$BATON_HOME`, without a session: install (from a marketplace, a directory or a
 * tarball), the instances in `plugin.yaml`, consent, disable and remove. The CLI uses it directly; the
 * session's PluginManager uses it and adds bindings on top.
 */
import path from "node:path";
import { BatonError } from "../shared/errors.ts";
import { installPackage, type InstallResult, type NpmOptions } from "./install/install.ts";
import { listInstalled, loadInstall, removeInstalled, type InstalledVersion, type LoadedInstall } from "./install/installed.ts";
import { MarketplaceRegistry, readMarketplaceDir, resolveSource } from "./install/marketplaces.ts";
import { MARKETPLACE_MANIFEST, PLUGIN_ID, type PluginPermissions } from "./manifest.ts";
import { instanceKey, pluginPaths, type PluginPaths } from "./paths.ts";
import { describePermissions, NOT_A_SANDBOX, permissionGrowth, permissionsRecord } from "./permissions.ts";
import { SettingsStore, type InstanceSettings } from "./settings.ts";

/** The marketplace name of plugins installed from a path given directly. */
export const LOCAL_MARKETPLACE = "local";

export interface ConsentRequest {
  readonly key: string;
  readonly pluginId: string;
  readonly version: string;
  readonly marketplace: string;
  readonly treeDigest: string;
  readonly permissions: PluginPermissions;
  /** Every permission, one line each. */
  readonly lines: readonly string[];
  /** When a consent exists: only what is new (permissions grew). */
  readonly growth: readonly string[] | undefined;
  readonly warning: string;
}

/** Shows the request to a person; true = consent given. */
export type ConsentAsk = (request: ConsentRequest) => Promise<boolean>;

export interface CatalogOptions {
  readonly home: string;
  readonly batonVersion: string;
  readonly npm: NpmOptions;
  /** The directory with Baton's bundled marketplace (`bundled-plugins/`). */
  readonly bundledDir?: string;
  readonly now?: () => number;
}

export interface PluginRef {
  readonly pluginId: string;
  readonly marketplace?: string;
  readonly version?: string;
}

/** `acme/hello`, `acme/hello@0.2.0`; a marketplace is chosen with `--marketplace`. */
export function parsePluginRef(text: string, marketplace?: string): PluginRef {
  const match = /^([^@]+)(?:@(.+))?$/.exec(text.trim());
  const pluginId = match?.[1] ?? "";
  if (!PLUGIN_ID.test(pluginId)) throw new BatonError("usage", `'${text}' is not a plugin id (owner/name, optionally @version)`);
  return { pluginId, ...(match?.[2] === undefined ? {} : { version: match[2] }), ...(marketplace === undefined ? {} : { marketplace }) };
}

function newest(versions: readonly string[]): string | undefined {
  return [...versions].sort((a, b) => Bun.semver.order(a, b)).pop();
}

export class PluginCatalog {
  readonly paths: PluginPaths;
  readonly settings: SettingsStore;
  readonly marketplaces: MarketplaceRegistry;

  constructor(readonly options: CatalogOptions) {
    this.paths = pluginPaths(options.home);
    this.settings = new SettingsStore(this.paths.settings, options.now);
    this.marketplaces = new MarketplaceRegistry(this.paths, options.now);
  }

  /** Install from a registered marketplace (`acme/hello[@v]`), a directory, or a `.tgz`. */
  async install(spec: string, options: { readonly marketplace?: string; readonly signal?: AbortSignal } = {}): Promise<InstallResult> {
    // `owner/name` is an id; a directory is given as a path (`./hello`, `/abs/hello`), a tarball ends in .tgz.
    const looksLikePath = path.isAbsolute(spec) || spec.startsWith(".") || spec.endsWith(".tgz");
    if (looksLikePath || !PLUGIN_ID.test(spec.split("@")[0] ?? "")) {
      return this.installFrom(path.resolve(spec), LOCAL_MARKETPLACE, undefined, options.signal);
    }
    const ref = parsePluginRef(spec, options.marketplace);
    const found = await this.marketplaces.find(ref.pluginId, ref.marketplace);
    return this.installFrom(found.source, found.marketplace, { pluginId: ref.pluginId, ...(ref.version === undefined ? {} : { version: ref.version }) }, options.signal);
  }

  /** Every plugin of the bundled marketplace, through the same pipeline; already installed ones are skipped. */
  async installBundled(): Promise<{ installed: InstallResult[]; skipped: string[] }> {
    const dir = this.options.bundledDir;
    const installed: InstallResult[] = [];
    const skipped: string[] = [];
    if (dir === undefined) return { installed, skipped };
    const { root, manifest } = await readMarketplaceDir(dir);
    for (const [index, plugin] of manifest.plugins.entries()) {
      const source = await resolveSource(root, path.join(root, MARKETPLACE_MANIFEST), index, plugin.source);
      try {
        installed.push(await this.installFrom(source, manifest.name, { pluginId: plugin.pluginId }));
      } catch (error) {
        if (error instanceof BatonError && error.code === "plugin_exists") skipped.push(plugin.pluginId);
        else throw error;
      }
    }
    return { installed, skipped };
  }

  private installFrom(source: string, marketplace: string, expect: { pluginId: string; version?: string } | undefined, signal?: AbortSignal): Promise<InstallResult> {
    return installPackage({
      paths: this.paths,
      source,
      marketplace,
      batonVersion: this.options.batonVersion,
      npm: this.options.npm,
      ...(expect === undefined ? {} : { expect }),
      ...(this.options.now === undefined ? {} : { now: this.options.now }),
      ...(signal === undefined ? {} : { signal }),
    });
  }

  installed(): Promise<InstalledVersion[]> {
    return listInstalled(this.paths);
  }

  /** The instance a ref means: configured ones first, else one installed plugin. Ambiguity is an error. */
  async resolve(ref: PluginRef): Promise<{ key: string; pluginId: string; marketplace: string; settings: InstanceSettings | undefined; version: string }> {
    const found = await this.locate(ref);
    if (found.version === undefined || !found.versions.includes(found.version)) {
      const v = found.version === undefined ? "" : ` ${found.version}`;
      throw new BatonError("plugin_not_found", `${ref.pluginId}${v} from ${found.marketplace} is not installed`, { hint: `Install it: baton plugins install ${ref.pluginId}${found.version === undefined ? "" : `@${found.version}`}` });
    }
    return { key: found.key, pluginId: ref.pluginId, marketplace: found.marketplace, settings: found.settings, version: found.version };
  }

  /** Like resolve, without requiring that a version is installed. */
  private async locate(ref: PluginRef): Promise<{ key: string; marketplace: string; settings: InstanceSettings | undefined; version: string | undefined; versions: string[] }> {
    const settings = await this.settings.load();
    const installed = (await this.installed()).filter((v) => v.pluginId === ref.pluginId && v.receipt !== undefined);
    const marketplaces = new Set<string>([
      ...settings.instances.filter((i) => i.pluginId === ref.pluginId).map((i) => i.marketplace),
      ...installed.map((v) => v.marketplace),
    ]);
    if (ref.marketplace !== undefined) {
      for (const m of [...marketplaces]) if (m !== ref.marketplace) marketplaces.delete(m);
    }
    const [marketplace, ...others] = [...marketplaces].sort();
    if (marketplace === undefined) {
      throw new BatonError("plugin_not_found", `${ref.pluginId} is not installed${ref.marketplace === undefined ? "" : ` from ${ref.marketplace}`}`, { hint: `Install it: baton plugins install ${ref.pluginId}` });
    }
    if (others.length > 0) throw new BatonError("usage", `${ref.pluginId} is installed from ${[marketplace, ...others].join(", ")}; say which with --marketplace <name>`);
    const key = instanceKey(ref.pluginId, marketplace);
    const current = settings.instances.find((i) => i.key === key);
    const versions = installed.filter((v) => v.marketplace === marketplace).map((v) => v.version);
    const version = ref.version ?? current?.version ?? newest(versions);
    return { key, marketplace, settings: current, version, versions };
  }

  load(marketplace: string, pluginId: string, version: string): Promise<LoadedInstall> {
    return loadInstall(this.paths, marketplace, pluginId, version, this.options.batonVersion);
  }

  /**
   * Enable (MGR-03: persist disabled first, then enabled). Asks for consent when none was given for this
   * plugin or when its permissions grew; a changed tree digest with the same permissions is recorded
   * without asking. Throws `plugin_consent` when consent is declined (nothing changes then).
   */
  async enable(ref: PluginRef, ask: ConsentAsk): Promise<{ instance: InstanceSettings; install: LoadedInstall; previous: InstanceSettings | undefined; asked: boolean }> {
    const target = await this.resolve(ref);
    const install = await this.load(target.marketplace, target.pluginId, target.version);
    const manifest = install.checked.manifest;
    const consent = target.settings?.consent;
    const sameTree = consent !== undefined && consent.treeDigest === install.receipt.treeDigest;
    const growth = sameTree ? [] : permissionGrowth(consent?.permissions, manifest.permissions);
    const mustAsk = consent === undefined || growth.length > 0;
    if (mustAsk) {
      const given = await ask({
        key: target.key,
        pluginId: target.pluginId,
        version: target.version,
        marketplace: target.marketplace,
        treeDigest: install.receipt.treeDigest,
        permissions: manifest.permissions,
        lines: describePermissions(manifest.permissions),
        growth: consent === undefined ? undefined : growth,
        warning: NOT_A_SANDBOX,
      });
      if (!given) throw new BatonError("plugin_consent", `${target.pluginId} was not enabled: consent was not given`);
    }
    if (target.settings === undefined) await this.settings.upsert(target.key, { enabled: false, version: target.version });
    const instance = await this.settings.upsert(target.key, {
      enabled: true,
      version: target.version,
      consent: { version: target.version, treeDigest: install.receipt.treeDigest, permissions: permissionsRecord(manifest.permissions), grantedAt: new Date((this.options.now ?? Date.now)()).toISOString() },
    });
    return { instance, install, previous: target.settings, asked: mustAsk };
  }

  async disable(ref: PluginRef): Promise<InstanceSettings> {
    const target = await this.locate(ref);
    if (target.settings === undefined) throw new BatonError("plugin_not_found", `${ref.pluginId} was never enabled`);
    return this.settings.upsert(target.key, { enabled: false });
  }

  /** Forget the instance and delete every installed version (the marketplace source is never touched). */
  async remove(ref: PluginRef): Promise<{ key: string; versions: number }> {
    const target = await this.locate({ pluginId: ref.pluginId, ...(ref.marketplace === undefined ? {} : { marketplace: ref.marketplace }) });
    await this.settings.remove(target.key);
    const versions = await removeInstalled(this.paths, target.marketplace, ref.pluginId);
    return { key: target.key, versions };
  }
}
