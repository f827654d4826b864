/**
 * Which Claude Code binary Baton starts: `settings.executable` → env `BATON_CLAUDE_BIN` → the binary the pinned
 * Agent SDK brings (its optional per-platform package). `probeClaudeExecutable` runs `--version` for `baton doctor`.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import { runOnce } from "../../rpc/run-once.ts";
import type { ExecutableReport } from "../definition.ts";

export type ExecutableSource = "settings.executable" | "BATON_CLAUDE_BIN" | "bundled";

export type ExecutableResolution =
  | { readonly ok: true; readonly path: string; readonly source: ExecutableSource }
  | { readonly ok: false; readonly searched: readonly string[]; readonly hint: string };

const SDK_PACKAGE = "@anthropic-ai/claude-agent-sdk";

/** The per-platform package names the SDK itself tries, in its order (glibc before musl on Linux). */
export function bundledCandidates(platform: string = process.platform, arch: string = process.arch): string[] {
  const exe = platform === "win32" ? ".exe" : "";
  const names =
    platform === "linux" ? [`${SDK_PACKAGE}-linux-${arch}`, `${SDK_PACKAGE}-linux-${arch}-musl`] : [`${SDK_PACKAGE}-${platform}-${arch}`];
  return names.map((name) => `${name}/claude${exe}`);
}

/** Absolute path of the binary shipped with the SDK, or undefined when no platform package is installed. */
export function bundledClaudePath(): string | undefined {
  let resolveFromSdk: NodeJS.Require;
  try {
    const here = createRequire(import.meta.url);
    resolveFromSdk = createRequire(here.resolve(SDK_PACKAGE));
  } catch {
    return undefined;
  }
  for (const candidate of bundledCandidates()) {
    try {
      const resolved = resolveFromSdk.resolve(candidate);
      if (fs.existsSync(resolved)) return resolved;
    } catch {
      // not installed for this platform; try the next one
    }
  }
  return undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.trim().length > 0 ? value.trim() : undefined;
}

export function resolveClaudeExecutable(
  settings: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): ExecutableResolution {
  const configured = nonEmpty(settings["executable"]);
  if (configured !== undefined) return { ok: true, path: configured, source: "settings.executable" };
  const fromEnv = nonEmpty(env["BATON_CLAUDE_BIN"]);
  if (fromEnv !== undefined) return { ok: true, path: fromEnv, source: "BATON_CLAUDE_BIN" };
  const bundled = bundledClaudePath();
  if (bundled !== undefined) return { ok: true, path: bundled, source: "bundled" };
  return {
    ok: false,
    searched: ["harnesses.claude.executable", "BATON_CLAUDE_BIN", ...bundledCandidates()],
    hint: `No Claude Code binary for ${process.platform}-${process.arch}: reinstall Baton so npm installs ${SDK_PACKAGE}'s platform package, or set harnesses.claude.executable / BATON_CLAUDE_BIN.`,
  };
}

async function runVersion(path: string, env: Readonly<Record<string, string>>): Promise<string> {
  const { exit, stdout, timedOut } = await runOnce(path, ["--version"], { env, timeoutMs: 10_000 });
  if (exit.error !== undefined) throw new Error(exit.error);
  if (timedOut) throw new Error("no answer within 10 s");
  if (exit.code !== 0) throw new Error(exit.signal !== null ? `killed by ${exit.signal}` : `exit code ${String(exit.code)}`);
  return stdout.trim();
}

/** Resolve and run `<claude> --version`; never starts a session. */
export async function probeClaudeExecutable(
  settings: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string>>,
): Promise<ExecutableReport> {
  const resolution = resolveClaudeExecutable(settings, env);
  if (!resolution.ok) return { ok: false, searched: resolution.searched, hint: resolution.hint };
  try {
    const version = await runVersion(resolution.path, env);
    return { ok: true, argv: [resolution.path], source: resolution.source, version };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      searched: [`${resolution.source}: ${resolution.path}`],
      hint: `${resolution.path} --version failed: ${reason}`,
    };
  }
}
