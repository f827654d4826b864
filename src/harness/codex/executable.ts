/**
 * Finding the Codex executable (issue 4, "Finding and starting Codex"). First match wins:
 * 1. `settings.command` (argv array, used verbatim),
 * 2. env `BATON_CODEX_BIN` (a `codex` executable; `app-server` is appended),
 * 3. `codex` on PATH (an npm wrapper found there is swapped for its native binary),
 * 4. the native binary of an installed `@openai/codex` package, resolved the way its `bin/codex.js` does.
 * The native binary is spawned directly: the Node wrapper costs ~140 ms per start and hides signals.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { ExecutableReport } from "../definition.ts";

export const CODEX_PACKAGE = "@openai/codex";

const PLATFORM_PACKAGE_BY_TARGET: Readonly<Record<string, string>> = {
  "x86_64-unknown-linux-musl": "@openai/codex-linux-x64",
  "aarch64-unknown-linux-musl": "@openai/codex-linux-arm64",
  "x86_64-apple-darwin": "@openai/codex-darwin-x64",
  "aarch64-apple-darwin": "@openai/codex-darwin-arm64",
  "x86_64-pc-windows-msvc": "@openai/codex-win32-x64",
  "aarch64-pc-windows-msvc": "@openai/codex-win32-arm64",
};

export const INSTALL_HINT =
  "Install Codex (`npm install -g @openai/codex`), put `codex` on PATH, set BATON_CODEX_BIN to a codex executable, " +
  "or set harnesses.codex.command (an argv array such as [\"codex\", \"app-server\"]) in Baton's config.yaml.";

export function targetTriple(platform: string = process.platform, arch: string = process.arch): string | undefined {
  if (platform === "linux" || platform === "android") {
    return arch === "x64" ? "x86_64-unknown-linux-musl" : arch === "arm64" ? "aarch64-unknown-linux-musl" : undefined;
  }
  if (platform === "darwin") return arch === "x64" ? "x86_64-apple-darwin" : arch === "arm64" ? "aarch64-apple-darwin" : undefined;
  if (platform === "win32") return arch === "x64" ? "x86_64-pc-windows-msvc" : arch === "arm64" ? "aarch64-pc-windows-msvc" : undefined;
  return undefined;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The native binary inside an `@openai/codex` package root, mirroring `bin/codex.js`. */
export function nativeBinaryForPackage(packageRoot: string): string | undefined {
  const triple = targetTriple();
  if (triple === undefined) return undefined;
  const platformPackage = PLATFORM_PACKAGE_BY_TARGET[triple];
  let vendorRoot = path.join(packageRoot, "vendor");
  if (platformPackage !== undefined) {
    try {
      const require = createRequire(path.join(packageRoot, "package.json"));
      vendorRoot = path.join(path.dirname(require.resolve(`${platformPackage}/package.json`)), "vendor");
    } catch {
      // fall back to the package's own vendor dir, as bin/codex.js does
    }
  }
  const binary = path.join(vendorRoot, triple, "bin", process.platform === "win32" ? "codex.exe" : "codex");
  return isExecutableFile(binary) ? binary : undefined;
}

/** The native binary of the `@openai/codex` package resolvable from Baton's own install, if any. */
export function resolveInstalledCodex(from: string = import.meta.dirname): string | undefined {
  try {
    const require = createRequire(path.join(from, "noop.js"));
    const packageJson = require.resolve(`${CODEX_PACKAGE}/package.json`);
    return nativeBinaryForPackage(path.dirname(packageJson));
  } catch {
    return undefined;
  }
}

/** When `file` is the npm wrapper (`…/@openai/codex/bin/codex.js`), the package root it belongs to. */
function wrapperPackageRoot(file: string): string | undefined {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    return undefined;
  }
  if (path.basename(real) !== "codex.js" || path.basename(path.dirname(real)) !== "bin") return undefined;
  const root = path.dirname(path.dirname(real));
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { name?: unknown };
    return pkg.name === CODEX_PACKAGE ? root : undefined;
  } catch {
    return undefined;
  }
}

function findOnPath(name: string, envPath: string | undefined): string | undefined {
  if (envPath === undefined || envPath === "") return undefined;
  for (const dir of envPath.split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

export interface ResolveOptions {
  /** Override for tests: where the installed package is looked up from. */
  readonly installedFrom?: string | null;
}

/** Resolve the `codex app-server` argv. Never spawns anything. */
export function resolveCodexCommand(
  settings: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string>>,
  options: ResolveOptions = {},
): ExecutableReport {
  const searched: string[] = [];
  const command = settings["command"];
  if (command !== undefined) {
    if (Array.isArray(command) && command.length > 0 && command.every((part) => typeof part === "string" && part !== "")) {
      return { ok: true, argv: command as string[], source: "config harnesses.codex.command" };
    }
    return {
      ok: false,
      searched: [`config harnesses.codex.command = ${JSON.stringify(command)} (not a non-empty argv array of strings)`],
      hint: 'Set harnesses.codex.command to an argv array, e.g. ["codex", "app-server"].',
    };
  }
  const fromEnv = env["BATON_CODEX_BIN"];
  if (fromEnv !== undefined && fromEnv !== "") {
    if (!isExecutableFile(fromEnv)) {
      return {
        ok: false,
        searched: [`BATON_CODEX_BIN=${fromEnv} (not an executable file)`],
        hint: "Point BATON_CODEX_BIN at a codex executable, or unset it.",
      };
    }
    const root = wrapperPackageRoot(fromEnv);
    const native = root === undefined ? undefined : nativeBinaryForPackage(root);
    return { ok: true, argv: [native ?? fromEnv, "app-server"], source: "env BATON_CODEX_BIN" };
  }
  searched.push("BATON_CODEX_BIN (unset)");
  const onPath = findOnPath(process.platform === "win32" ? "codex.exe" : "codex", env["PATH"]);
  if (onPath !== undefined) {
    const root = wrapperPackageRoot(onPath);
    const native = root === undefined ? undefined : nativeBinaryForPackage(root);
    return { ok: true, argv: [native ?? onPath, "app-server"], source: `PATH (${onPath})` };
  }
  searched.push(`codex on PATH (${env["PATH"] === undefined || env["PATH"] === "" ? "PATH is empty" : "not found"})`);
  if (options.installedFrom !== null) {
    const installed = resolveInstalledCodex(options.installedFrom ?? import.meta.dirname);
    if (installed !== undefined) return { ok: true, argv: [installed, "app-server"], source: `installed ${CODEX_PACKAGE} package` };
  }
  searched.push(`installed ${CODEX_PACKAGE} package (native binary for ${targetTriple() ?? `${process.platform}/${process.arch}`})`);
  return { ok: false, searched, hint: INSTALL_HINT };
}

/** The argv that prints the version for a resolved app-server argv: drop `app-server` and what follows. */
export function versionArgv(argv: readonly string[]): string[] {
  const at = argv.indexOf("app-server");
  return [...(at === -1 ? argv : argv.slice(0, at)), "--version"];
}
