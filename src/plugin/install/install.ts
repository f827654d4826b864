/**
 * The install pipeline (plugins.md §6, MKT-04): a directory is packed first (`npm pack`, so what is tested
 * is what ships); the tarball is installed into a private stage with `npm install --ignore-scripts
 * --offline` (declared dependencies resolve from the npm cache, lifecycle scripts never run); the staged
 * package is checked (manifest, identity, engines, realpath containment); its tree is digested (sha512);
 * a receipt is written and the stage is renamed into `plugins/packages/<mkt>/<id>/<version>/` in one step.
 * An installed version is never overwritten. Every step is an async child with a timeout.
 */
import fs from "node:fs";
import path from "node:path";
import { runChild, type RunResult } from "../../rpc/run-child.ts";
import { BatonError } from "../../shared/errors.ts";
import { installDir, type PluginPaths } from "../paths.ts";
import { treeDigest, RECEIPT_FILE } from "./digest.ts";
import { checkPackage, type CheckedPackage, type InstallReceipt } from "./package.ts";

export interface NpmOptions {
  /** The npm executable (default `npm` on PATH). */
  readonly command?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly packTimeoutMs?: number;
  readonly installTimeoutMs?: number;
}

export interface InstallRequest {
  readonly paths: PluginPaths;
  /** A package directory or an npm tarball (`.tgz`). */
  readonly source: string;
  /** The marketplace it comes from (`local` for a path given directly). */
  readonly marketplace: string;
  readonly batonVersion: string;
  readonly npm: NpmOptions;
  readonly expect?: { readonly pluginId?: string; readonly version?: string };
  readonly now?: () => number;
  readonly signal?: AbortSignal;
}

export interface InstallResult {
  readonly dir: string;
  readonly receipt: InstallReceipt;
  readonly checked: CheckedPackage;
}

const PACK_TIMEOUT_MS = 60_000;
const INSTALL_TIMEOUT_MS = 120_000;

function npmFailure(step: string, result: RunResult, command: string): BatonError {
  if (result.exit.error !== undefined) {
    return new BatonError("plugin_failed", `${step}: could not run ${command} (${result.exit.error})`, { hint: "Installing plugins needs npm on PATH." });
  }
  const lines = `${result.stderr}\n${result.stdout}`.split("\n").filter((line) => /\S/.test(line) && !/^npm (notice|warn)/i.test(line));
  const why = lines.filter((line) => /npm (error|ERR!)/i.test(line)).slice(0, 3).join(" | ") || lines.slice(-3).join(" | ");
  return new BatonError("plugin_failed", `${step} failed (${result.summary})${why === "" ? "" : `: ${why.slice(0, 600)}`}`);
}

async function isDirectory(file: string): Promise<boolean> {
  return (await fs.promises.stat(file)).isDirectory();
}

/** `npm pack` of a directory into `dest`; returns the tarball path. */
async function pack(dir: string, dest: string, request: InstallRequest): Promise<string> {
  const command = request.npm.command ?? "npm";
  const result = await runChild({
    label: "npm pack",
    file: command,
    args: ["pack", "--json", "--ignore-scripts", "--pack-destination", dest, dir],
    cwd: dest,
    env: request.npm.env,
    timeoutMs: request.npm.packTimeoutMs ?? PACK_TIMEOUT_MS,
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  });
  if (!result.ok) throw npmFailure(`npm pack ${dir}`, result, command);
  const tarballs = (await fs.promises.readdir(dest)).filter((name) => name.endsWith(".tgz"));
  const [only] = tarballs;
  if (only === undefined || tarballs.length > 1) throw new BatonError("plugin_failed", `npm pack ${dir} did not produce one tarball`);
  return path.join(dest, only);
}

/** `npm install --prefix <tree> --ignore-scripts --offline <tgz>`; returns the installed package's npm name. */
async function installTarball(tarball: string, tree: string, request: InstallRequest): Promise<string> {
  const command = request.npm.command ?? "npm";
  await fs.promises.mkdir(tree, { recursive: true, mode: 0o700 });
  const result = await runChild({
    label: "npm install",
    file: command,
    args: ["install", "--prefix", tree, "--ignore-scripts", "--no-audit", "--no-fund", "--offline", "--no-package-lock", tarball],
    cwd: tree,
    env: request.npm.env,
    timeoutMs: request.npm.installTimeoutMs ?? INSTALL_TIMEOUT_MS,
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  });
  if (!result.ok) throw npmFailure(`npm install ${path.basename(tarball)}`, result, command);
  // npm recorded the tarball as the stage's one dependency: its key is the package's npm name.
  const stagePackage = path.join(tree, "package.json");
  const deps = (JSON.parse(await fs.promises.readFile(stagePackage, "utf8")) as { dependencies?: Record<string, string> }).dependencies ?? {};
  const names = Object.keys(deps);
  const [name] = names;
  if (name === undefined || names.length !== 1) throw new BatonError("plugin_failed", `npm install ${path.basename(tarball)}: could not tell which package it installed`);
  // The stage's own bookkeeping points at the temporary tarball; it is not part of the package.
  await fs.promises.rm(stagePackage, { force: true });
  return name;
}

export async function installPackage(request: InstallRequest): Promise<InstallResult> {
  const { paths } = request;
  let source: string;
  try {
    source = await fs.promises.realpath(request.source);
  } catch {
    throw new BatonError("plugin_not_found", `${request.source}: no such file or directory`);
  }
  const directory = await isDirectory(source);
  if (!directory && !source.endsWith(".tgz")) throw new BatonError("usage", `${request.source}: expected a plugin directory or an npm tarball (.tgz)`);
  await fs.promises.mkdir(paths.staging, { recursive: true, mode: 0o700 });
  const stage = await fs.promises.mkdtemp(path.join(paths.staging, "install-"));
  try {
    const packDir = path.join(stage, "pack");
    await fs.promises.mkdir(packDir, { mode: 0o700 });
    const tarball = directory ? await pack(source, packDir, request) : source;
    const tree = path.join(stage, "tree");
    const npmName = await installTarball(tarball, tree, request);
    const packageRoot = path.join("node_modules", npmName);
    const checked = await checkPackage(path.join(tree, packageRoot), {
      batonVersion: request.batonVersion,
      treeRoot: tree,
      ...(request.expect === undefined ? {} : { expect: request.expect }),
    });
    const { pluginId, version } = checked.manifest;
    const target = installDir(paths, request.marketplace, pluginId, version);
    const already = (): BatonError =>
      new BatonError("plugin_exists", `${pluginId} ${version} is already installed from ${request.marketplace} (${target}); it was left as it is`, {
        hint: "Bump the version to install changed code, or remove it first: baton plugins remove " + pluginId,
      });
    if (fs.existsSync(target)) throw already();
    const receipt: InstallReceipt = {
      receiptVersion: 1,
      marketplace: request.marketplace,
      pluginId,
      version,
      installedAt: new Date((request.now ?? Date.now)()).toISOString(),
      source: { kind: directory ? "directory" : "tarball", path: source },
      treeDigest: await treeDigest(tree),
      packageRoot: packageRoot.split(path.sep).join("/"),
    };
    await fs.promises.writeFile(path.join(tree, RECEIPT_FILE), `${JSON.stringify(receipt, null, 2)}\n`, { mode: 0o600 });
    await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    try {
      await fs.promises.rename(tree, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST" || code === "ENOTEMPTY") throw already();
      throw error;
    }
    const installed = await checkPackage(path.join(target, packageRoot), { batonVersion: request.batonVersion, treeRoot: target });
    return { dir: target, receipt, checked: installed };
  } finally {
    await fs.promises.rm(stage, { recursive: true, force: true });
  }
}
