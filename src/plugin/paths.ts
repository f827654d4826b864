/**
 * Where plugin files live under `$BATON_HOME` (inventory §2.18). Names derived from a plugin id or a
 * marketplace name are URI-encoded, so `acme/hello` is one directory (`acme%2Fhello`).
 */
import fs from "node:fs";
import path from "node:path";

export interface PluginPaths {
  readonly home: string;
  /** `plugin.yaml`: instances (enabled, version, config, consent). */
  readonly settings: string;
  readonly root: string;
  /** `plugins/marketplaces.json`: the registered marketplaces. */
  readonly marketplaces: string;
  readonly packages: string;
  readonly staging: string;
  readonly logs: string;
}

export function pluginPaths(home: string): PluginPaths {
  const root = path.join(home, "plugins");
  return {
    home,
    settings: path.join(home, "plugin.yaml"),
    root,
    marketplaces: path.join(root, "marketplaces.json"),
    packages: path.join(root, "packages"),
    staging: path.join(root, "staging"),
    logs: path.join(root, "logs"),
  };
}

export function encodeName(name: string): string {
  return encodeURIComponent(name);
}

/** `plugins/packages/<mkt>/<pluginId>/<version>/`: one immutable install. */
export function installDir(paths: PluginPaths, marketplace: string, pluginId: string, version: string): string {
  return path.join(paths.packages, encodeName(marketplace), encodeName(pluginId), version);
}

/** Every installed version of a plugin from one marketplace lives under here. */
export function versionsDir(paths: PluginPaths, marketplace: string, pluginId: string): string {
  return path.join(paths.packages, encodeName(marketplace), encodeName(pluginId));
}

export function pluginLogFile(paths: PluginPaths, pluginId: string): string {
  return path.join(paths.logs, `${encodeName(pluginId)}.log`);
}

/** The instance key in `plugin.yaml`: `<pluginId>@<marketplace>`. */
export function instanceKey(pluginId: string, marketplace: string): string {
  return `${pluginId}@${marketplace}`;
}

export function parseInstanceKey(key: string): { pluginId: string; marketplace: string } | undefined {
  const at = key.lastIndexOf("@");
  if (at <= 0 || at === key.length - 1) return undefined;
  return { pluginId: key.slice(0, at), marketplace: key.slice(at + 1) };
}

/** True when `candidate` is `root` or inside it (both already resolved). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** A binding's private data directories (mode 0700), created before its plugin activates. */
export async function createDataDirs(
  roots: { readonly pluginsRoot: string; readonly projectDir: string; readonly sessionDir: string },
  pluginId: string,
  pluginInstanceId: string,
): Promise<{ global: string; project: string; session: string; instance: string }> {
  const name = encodeName(pluginId);
  const dirs = {
    global: path.join(roots.pluginsRoot, name),
    project: path.join(roots.projectDir, "plugins", name),
    session: path.join(roots.sessionDir, "plugins", name),
    instance: path.join(roots.sessionDir, "plugins", name, pluginInstanceId),
  };
  for (const dir of Object.values(dirs)) {
    await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
    await fs.promises.chmod(dir, 0o700);
  }
  return dirs;
}
