/**
 * The prebuilt start (docs/start.md): `scripts/build-start.ts` bundles Baton's own sources (node_modules stays
 * external) into `dist/start-<key>/` and describes it in `dist/start.json`: every source file it read, with the
 * size, mtime and content hash it had then, and every file it wrote. A start uses that bundle only when it matches
 * the sources on disk now; on any doubt (no manifest, another Bun, a file changed, moved or gone, an output
 * missing) it runs the sources, as if no bundle existed, and says nothing.
 *
 * Matching is by content: every recorded file is read and hashed at each start (≈ 380 files, 1.9 MB: 2–4 ms), so
 * no mtime, checkout, copy or clock can make a changed file look unchanged.
 *
 * `BATON_START=sources` always runs the sources; `BATON_DEBUG_START=1` prints which start ran and why.
 * This module runs before anything else at every start: it imports only node builtins.
 */
import fs from "node:fs";
import path from "node:path";

export const START_MANIFEST_FORMAT = 1;

/** [path relative to the root, content hash] */
export type ManifestInput = readonly [string, string];

export interface StartManifest {
  readonly format: number;
  /** Bun.version of the build; another Bun runs the sources. */
  readonly bun: string;
  /** The output directory, relative to the root's dist/. */
  readonly dir: string;
  /** The module in `dir` that exports `start(argv)`. */
  readonly entry: string;
  readonly inputs: readonly ManifestInput[];
  /** [file in `dir`, size] */
  readonly outputs: readonly (readonly [string, number])[];
}

export const ROOT = path.resolve(import.meta.dir, "../..");
export const DIST = path.join(ROOT, "dist");
export const MANIFEST = path.join(DIST, "start.json");

export function contentHash(bytes: Uint8Array): string {
  return Bun.hash.wyhash(bytes).toString(16);
}

export type StartChoice = { readonly kind: "bundle"; readonly entry: string; readonly files: number } | { readonly kind: "sources"; readonly why: string };

/** The bundle's entry when it matches the sources under `root` now, else why not. Never throws. */
export function chooseStart(root: string = ROOT, env: NodeJS.ProcessEnv = process.env): StartChoice {
  if (env["BATON_START"] === "sources") return { kind: "sources", why: "BATON_START=sources" };
  let manifest: StartManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(root, "dist", "start.json"), "utf8")) as StartManifest;
  } catch {
    return { kind: "sources", why: "no dist/start.json (npm run build makes one)" };
  }
  try {
    if (manifest.format !== START_MANIFEST_FORMAT) return { kind: "sources", why: `manifest format ${manifest.format}` };
    if (manifest.bun !== Bun.version) return { kind: "sources", why: `built by Bun ${manifest.bun}, running ${Bun.version}` };
    for (const [file, hash] of manifest.inputs) {
      let bytes: Uint8Array;
      try {
        bytes = fs.readFileSync(path.join(root, file));
      } catch {
        return { kind: "sources", why: `${file} is gone` };
      }
      if (contentHash(bytes) !== hash) return { kind: "sources", why: `${file} changed` };
    }
    const dir = path.join(root, "dist", manifest.dir);
    for (const [file, size] of manifest.outputs) {
      if (fs.statSync(path.join(dir, file), { throwIfNoEntry: false })?.size !== size) return { kind: "sources", why: `dist/${manifest.dir}/${file} is missing or changed` };
    }
    return { kind: "bundle", entry: path.join(dir, manifest.entry), files: manifest.inputs.length };
  } catch (error) {
    return { kind: "sources", why: `dist/start.json unreadable: ${error instanceof Error ? error.message : String(error)}` };
  }
}
