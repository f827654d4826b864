/**
 * Builds the prebuilt start (docs/start.md): Baton's own sources from src/app/start.ts, bundled by Bun.build into
 * `dist/start-<key>/` (one CommonJS file with its bytecode, `start.js.jsc`; a lazily imported command's modules
 * still run only when it runs; every package in node_modules stays external and loads from node_modules as it does
 * from the sources), described by `dist/start.json` (src/app/start-bundle.ts).
 *
 *   bun scripts/build-start.ts [--if-possible] [--prune-all]
 *
 * `npm run build` runs it; so do `prepare` (scripts/prepare.mjs, when a Bun is installed: npm install / npm ci in a checkout, with --if-possible: a build that
 * cannot run leaves the sources in use and the install green) and `prepack` (the published package ships it).
 * It reads and writes only files in this checkout and downloads nothing.
 *
 * Every write is atomic: the bundle is written into a temporary directory renamed into place, the manifest into a
 * temporary file renamed over the old one. Two builds at once each produce a complete bundle; the manifest names
 * one of them. Bundles of earlier builds stay (a Baton started from one may still load from it) until they
 * are a day old; `--prune-all` (prepack: the package ships one bundle) removes them now.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import { ASYNC_PACKAGES } from "../src/app/async-packages.ts";
import { contentHash, DIST, MANIFEST, ROOT, START_MANIFEST_FORMAT, type ManifestInput, type StartManifest } from "../src/app/start-bundle.ts";

const ENTRY = path.join(ROOT, "src/app/start.ts");
/** Files that shape the build without being bundled. */
const BUILD_INPUTS = ["package.json", "tsconfig.json", "scripts/build-start.ts", "src/app/start-bundle.ts"];
const KEEP_OLD_MS = 24 * 60 * 60 * 1000;

/** The bundle's directory at run time: bound by the banner, in the module wrapper, before any bundled module. */
const START_DIR = "__batonStartDir";

const LOADERS: Readonly<Record<string, "ts" | "tsx" | "js" | "jsx">> = { ".ts": "ts", ".tsx": "tsx", ".js": "js", ".mjs": "js", ".jsx": "jsx" };

/**
 * `import.meta.dir` and its kin name the file they are written in; in a CommonJS bundle Bun writes the build's own
 * path of the source in their place (and of `__dirname`). Each is replaced by the source file's location computed
 * at run time from the bundle's (dist/<dir>/ → the root; START_DIR, which the banner binds to the wrapper's
 * `__dirname`), so paths stay right wherever the package is installed. The header goes on the first line: line
 * numbers stay the source's.
 */
function withSourceLocation(source: string, file: string): string {
  const pattern = /\bimport\.meta\.(dirname|dir|url|path|filename)\b/g;
  if (!pattern.test(source)) return source;
  const fromChunk = path.relative(path.join(DIST, "start-x"), path.dirname(file)).split(path.sep).join("/");
  const header =
    `import { resolve as __batonResolve } from "node:path"; import { pathToFileURL as __batonFileUrl } from "node:url"; ` +
    `const __batonDir = __batonResolve(${START_DIR}, ${JSON.stringify(fromChunk)}); const __batonFile = __batonResolve(__batonDir, ${JSON.stringify(path.basename(file))}); `;
  const body = source.replace(pattern, (_match, what: string) => (what === "dir" || what === "dirname" ? "__batonDir" : what === "url" ? "__batonFileUrl(__batonFile).href" : "__batonFile"));
  const shebang = body.startsWith("#!") ? body.indexOf("\n") + 1 : 0;
  return body.slice(0, shebang) + header + body.slice(shebang);
}

function inputOf(file: string, bytes: Uint8Array): ManifestInput {
  return [path.relative(ROOT, file).split(path.sep).join("/"), contentHash(bytes)];
}

export async function buildStart(options: { readonly pruneAll?: boolean } = {}): Promise<StartManifest> {
  const inputs = new Map<string, ManifestInput>();
  for (const rel of BUILD_INPUTS) {
    const file = path.join(ROOT, rel);
    inputs.set(file, inputOf(file, readFileSync(file)));
  }
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})].flatMap((name) => [name, `${name}/*`]);
  mkdirSync(DIST, { recursive: true });
  const temp = path.join(DIST, `.start-tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    const result = await Bun.build({
      entrypoints: [ENTRY],
      outdir: temp,
      target: "bun",
      // CommonJS, because Bun compiles only CommonJS to bytecode outside `--compile` (docs/start.md).
      format: "cjs",
      bytecode: true,
      // Inside the module wrapper: the sources are ES modules, which are strict; then the bundle's own directory.
      banner: `"use strict";\nconst ${START_DIR} = __dirname;`,
      external,
      tsconfig: path.join(ROOT, "tsconfig.json"),
      jsx: { development: false },
      naming: { entry: "[name].js" },
      plugins: [
        {
          name: "baton-sources",
          setup(build) {
            build.onLoad({ filter: /\.(ts|tsx|js|mjs|jsx)$/ }, (args) => {
              const file = args.path;
              const loader = LOADERS[path.extname(file)];
              if (loader === undefined || path.relative(ROOT, file).startsWith("..") || file.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
              // The hash is of the very bytes bundled: an edit during the build makes the bundle stale, not wrong.
              const bytes = readFileSync(file);
              inputs.set(file, inputOf(file, bytes));
              return { contents: withSourceLocation(new TextDecoder().decode(bytes), file), loader };
            });
          },
        },
      ],
    });
    if (!result.success) throw new Error(`Bun.build failed:\n${result.logs.map(String).join("\n")}`);
    checkBundle(temp);
    const sorted = [...inputs.values()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const key = contentHash(new TextEncoder().encode(JSON.stringify([START_MANIFEST_FORMAT, Bun.version, sorted])));
    const dir = `start-${key}`;
    const outputs = readdirSync(temp)
      .sort()
      .map((file) => [file, statSync(path.join(temp, file)).size] as const);
    try {
      renameSync(temp, path.join(DIST, dir));
    } catch (error) {
      // Another build of the same sources got there first: its bundle is this one.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST" && code !== "ENOTEMPTY") throw error;
    }
    const manifest: StartManifest = { format: START_MANIFEST_FORMAT, bun: Bun.version, dir, entry: "start.js", inputs: sorted, outputs };
    const tempManifest = `${MANIFEST}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    writeFileSync(tempManifest, `${JSON.stringify(manifest)}\n`);
    renameSync(tempManifest, MANIFEST);
    prune(dir, options.pruneAll === true ? 0 : KEEP_OLD_MS);
    return manifest;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * What a bundle must be to be used: its bytecode there (Bun writes none, and says nothing, when a source uses a
 * construct it cannot compile, such as `import.meta.resolve` or `import.meta.require`), and every package it
 * `require()`s loadable that way — a package with top-level await can be required only after an `import()` has
 * evaluated it, which the CLI does for ASYNC_PACKAGES alone (src/app/async-packages.ts, src/app/cli.ts loadCommand).
 */
function checkBundle(dir: string): void {
  const entry = path.join(dir, "start.js");
  if (!existsSync(`${entry}.jsc`)) {
    throw new Error("Bun.build wrote no bytecode for the start: a source uses what Bun cannot compile to bytecode (import.meta.resolve, import.meta.require — use createRequire(import.meta.url))");
  }
  const required = new Set<string>();
  for (const match of readFileSync(entry, "utf8").matchAll(/\brequire\("([^"]+)"\)/g)) {
    const name = match[1] as string;
    if (!isBuiltin(name)) required.add(name);
  }
  const probe = [
    `for (const name of ${JSON.stringify(ASYNC_PACKAGES)}) await import(name);`,
    `const failed = [];`,
    `for (const name of ${JSON.stringify([...required].sort())}) { try { require(name); } catch (error) { failed.push(name + ": " + String(error).split("\\n")[0]); } }`,
    `process.stdout.write(JSON.stringify(failed));`,
  ].join("\n");
  const child = Bun.spawnSync([process.execPath, "-e", probe], { cwd: ROOT, env: { ...process.env, NODE_ENV: "production" } });
  const failed = child.exitCode === 0 ? (JSON.parse(child.stdout.toString()) as string[]) : [`the check itself failed: ${child.stderr.toString().trim().split("\n").at(-1) ?? ""}`];
  if (failed.length > 0) throw new Error(`the start bundle requires packages that cannot be required (add one that has top-level await to ASYNC_PACKAGES in src/app/async-packages.ts if only rendering commands load it): ${failed.join("; ")}`);
}

/** Removes earlier bundles (and temporaries of builds that died) older than `keepMs`. */
function prune(current: string, keepMs: number): void {
  for (const name of readdirSync(DIST)) {
    if (name === current || !(name.startsWith("start-") || name.startsWith(".start-tmp-") || name.startsWith("start.json.tmp-"))) continue;
    const full = path.join(DIST, name);
    try {
      if (Date.now() - statSync(full).mtimeMs >= keepMs) rmSync(full, { recursive: true, force: true });
    } catch {
      // removed by another build
    }
  }
}

if (import.meta.main) {
  const ifPossible = process.argv.includes("--if-possible");
  const started = performance.now();
  try {
    const manifest = await buildStart({ pruneAll: process.argv.includes("--prune-all") });
    process.stdout.write(`build-start: dist/${manifest.dir} from ${manifest.inputs.length} files in ${Math.round(performance.now() - started)} ms\n`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`build-start: no prebuilt start (Baton runs from its sources): ${message.split("\n")[0]}\n`);
    process.exit(ifPossible ? 0 : 1);
  }
}
