/**
 * What is installed under `plugins/packages/`, and loading one install for activation: the tree digest is
 * re-checked against the receipt (a changed file refuses to run), then the manifest is checked again.
 */
import fs from "node:fs";
import path from "node:path";
import { BatonError } from "../../shared/errors.ts";
import { installDir, versionsDir, type PluginPaths } from "../paths.ts";
import { cachedTreeDigest } from "./digest.ts";
import { checkPackage, readReceipt, type CheckedPackage, type InstallReceipt } from "./package.ts";

export interface InstalledVersion {
  readonly dir: string;
  readonly marketplace: string;
  readonly pluginId: string;
  readonly version: string;
  readonly receipt: InstallReceipt | undefined;
  /** Why the receipt could not be read. */
  readonly problem: string | undefined;
}

async function dirs(dir: string): Promise<string[]> {
  try {
    return (await fs.promises.readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

function decode(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** Every installed version, by marketplace, plugin id and version (string order). */
export async function listInstalled(paths: PluginPaths): Promise<InstalledVersion[]> {
  const out: InstalledVersion[] = [];
  for (const mkt of (await dirs(paths.packages)).sort()) {
    for (const id of (await dirs(path.join(paths.packages, mkt))).sort()) {
      for (const version of (await dirs(path.join(paths.packages, mkt, id))).sort()) {
        const dir = path.join(paths.packages, mkt, id, version);
        try {
          const receipt = await readReceipt(dir);
          out.push({ dir, marketplace: decode(mkt), pluginId: decode(id), version, receipt, problem: undefined });
        } catch (error) {
          out.push({ dir, marketplace: decode(mkt), pluginId: decode(id), version, receipt: undefined, problem: (error as Error).message });
        }
      }
    }
  }
  return out;
}

export interface LoadedInstall {
  readonly dir: string;
  readonly receipt: InstallReceipt;
  readonly checked: CheckedPackage;
}

/** One install, verified: receipt, tree digest equal to the receipt's, manifest valid. */
export async function loadInstall(paths: PluginPaths, marketplace: string, pluginId: string, version: string, batonVersion: string): Promise<LoadedInstall> {
  const dir = installDir(paths, marketplace, pluginId, version);
  if (!fs.existsSync(dir)) {
    throw new BatonError("plugin_not_found", `${pluginId} ${version} from ${marketplace} is not installed`, { hint: `Install it: baton plugins install ${pluginId}@${version}` });
  }
  const receipt = await readReceipt(dir);
  const digest = await cachedTreeDigest(dir);
  if (digest !== receipt.treeDigest) {
    throw new BatonError("plugin_invalid", `${pluginId} ${version}: files under ${dir} changed since it was installed (tree digest differs); refused to run it`, {
      hint: `Reinstall it: baton plugins remove ${pluginId} && baton plugins install ${pluginId}`,
    });
  }
  const checked = await checkPackage(path.join(dir, receipt.packageRoot), { batonVersion, treeRoot: dir, expect: { pluginId, version } });
  return { dir, receipt, checked };
}

/** Delete every installed version of a plugin from one marketplace. Returns how many versions went. */
export async function removeInstalled(paths: PluginPaths, marketplace: string, pluginId: string): Promise<number> {
  const dir = versionsDir(paths, marketplace, pluginId);
  const versions = await dirs(dir);
  await fs.promises.rm(dir, { recursive: true, force: true });
  return versions.length;
}
