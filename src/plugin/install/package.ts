/**
 * A package on disk: its manifest read and checked (identity, engines), every path inside it resolved with
 * realpath and kept inside its root (no `..`, no symlink out), and the install receipt that records where
 * it came from and its tree digest.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BatonError } from "../../shared/errors.ts";
import { checkEngines, parsePluginManifest, PLUGIN_MANIFEST, type PluginManifest } from "../manifest.ts";
import { isInside } from "../paths.ts";
import { RECEIPT_FILE } from "./digest.ts";

export interface CheckedPackage {
  /** Real path of the package root (where `.baton-plugin/plugin.json` is). */
  readonly root: string;
  readonly manifest: PluginManifest;
  readonly manifestFile: string;
  /** Real path of the entry module. */
  readonly entryPath: string;
}

export interface CheckOptions {
  readonly batonVersion: string;
  /** Symlinks anywhere under this directory must stay inside it (default: the package root). */
  readonly treeRoot?: string;
  /** What the marketplace or the user asked for. */
  readonly expect?: { readonly pluginId?: string; readonly version?: string };
}

async function realpathOrThrow(file: string, what: string): Promise<string> {
  try {
    return await fs.promises.realpath(file);
  } catch {
    throw new BatonError("plugin_invalid", `${file}: ${what} does not exist`);
  }
}

/** Every symlink under `root` must resolve to an existing path inside `root`. */
async function checkLinks(root: string, dir = root): Promise<void> {
  for (const entry of await fs.promises.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) {
      let target: string;
      try {
        target = await fs.promises.realpath(full);
      } catch {
        throw new BatonError("plugin_invalid", `${full}: a symlink to nothing (${await fs.promises.readlink(full)}); packages may not contain dangling links`);
      }
      if (!isInside(root, target)) throw new BatonError("plugin_invalid", `${full}: a symlink out of the package (to ${target}); refused`);
    } else if (entry.isDirectory()) {
      await checkLinks(root, full);
    }
  }
}

export async function checkPackage(packageRoot: string, options: CheckOptions): Promise<CheckedPackage> {
  const root = await realpathOrThrow(packageRoot, "the package directory");
  const treeRoot = options.treeRoot === undefined ? root : await realpathOrThrow(options.treeRoot, "the install tree");
  const manifestFile = path.join(root, PLUGIN_MANIFEST);
  const manifestReal = await realpathOrThrow(manifestFile, `${PLUGIN_MANIFEST} (every plugin needs one)`);
  if (!isInside(root, manifestReal)) throw new BatonError("plugin_invalid", `${manifestFile}: a symlink out of the package; refused`);
  const manifest = parsePluginManifest(await fs.promises.readFile(manifestReal, "utf8"), manifestFile);
  checkEngines(manifest, options.batonVersion, manifestFile);
  const expect = options.expect;
  if (expect?.pluginId !== undefined && expect.pluginId !== manifest.pluginId) {
    throw new BatonError("plugin_invalid", `${manifestFile}: pluginId: the marketplace lists '${expect.pluginId}' but the package says '${manifest.pluginId}'`);
  }
  if (expect?.version !== undefined && expect.version !== manifest.version) {
    throw new BatonError("plugin_not_found", `${manifestFile}: version: ${manifest.pluginId} ${manifest.version} is what this source offers, not ${expect.version}`);
  }
  const entryFile = path.join(root, manifest.entry);
  const entryPath = await realpathOrThrow(entryFile, `entry '${manifest.entry}'`);
  if (!isInside(root, entryPath)) throw new BatonError("plugin_invalid", `${manifestFile}: entry: '${manifest.entry}' resolves outside the package (${entryPath}); refused`);
  if (!(await fs.promises.stat(entryPath)).isFile()) throw new BatonError("plugin_invalid", `${manifestFile}: entry: '${manifest.entry}' is not a file`);
  await checkLinks(treeRoot);
  const packageJson = path.join(root, "package.json");
  const npmVersion = await fs.promises
    .readFile(packageJson, "utf8")
    .then((text) => (JSON.parse(text) as { version?: unknown }).version)
    .catch(() => undefined);
  if (typeof npmVersion === "string" && npmVersion !== manifest.version) {
    throw new BatonError("plugin_invalid", `${packageJson}: version: '${npmVersion}' differs from ${PLUGIN_MANIFEST} version '${manifest.version}'; make them equal`);
  }
  return { root, manifest, manifestFile, entryPath };
}

export const receiptSchema = z.looseObject({
  receiptVersion: z.literal(1),
  marketplace: z.string().min(1),
  pluginId: z.string().min(1),
  version: z.string().min(1),
  installedAt: z.string(),
  source: z.looseObject({ kind: z.enum(["directory", "tarball"]), path: z.string() }),
  treeDigest: z.string().min(1),
  /** The package root relative to the install directory (`node_modules/<npm name>`). */
  packageRoot: z.string().min(1),
});

export type InstallReceipt = z.infer<typeof receiptSchema>;

export async function readReceipt(installDir: string): Promise<InstallReceipt> {
  const file = path.join(installDir, RECEIPT_FILE);
  let text: string;
  try {
    text = await fs.promises.readFile(file, "utf8");
  } catch {
    throw new BatonError("plugin_invalid", `${file}: the install receipt is missing; reinstall the plugin`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BatonError("plugin_invalid", `${file}: the install receipt is not valid JSON; reinstall the plugin`);
  }
  const parsed = receiptSchema.safeParse(value);
  if (!parsed.success) throw new BatonError("plugin_invalid", `${file}: the install receipt is damaged (${parsed.error.issues[0]?.message ?? "invalid"}); reinstall the plugin`);
  const receipt = parsed.data;
  if (!isInside(installDir, path.resolve(installDir, receipt.packageRoot))) {
    throw new BatonError("plugin_invalid", `${file}: packageRoot points outside the install directory; refused`);
  }
  return receipt;
}
