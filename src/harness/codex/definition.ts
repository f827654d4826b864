/**
 * The Codex harness definition (HAR-02): identity, colours, factory, executable probe. The adapter (and the
 * app-server protocol behind it) is imported on first use, not when Baton starts: the TUI's first frame does
 * not wait for a harness nobody has used yet.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runOnce } from "../../rpc/run-once.ts";
import type { ExecutableReport, HarnessDefinition, HarnessTarget } from "../definition.ts";
import { LazyAdapter } from "../lazy-adapter.ts";
import { CODEX_CAPABILITIES } from "./capabilities.ts";
import { INSTALL_HINT, resolveCodexCommand, versionArgv } from "./executable.ts";
import { codexSettingsSchema } from "./settings.ts";
import type { CodexPrelaunch } from "./prelaunch.ts";

const VERSION_TIMEOUT_MS = 10_000;

type VersionResult = string | undefined | { readonly missing: string } | { readonly broken: string };

/**
 * `--version` output; `{missing}` when the program cannot be started at all; `{broken}` when it starts but
 * fails (a non-zero exit, a signal, no answer in time): such a Codex cannot run a session either.
 */
async function runVersion(argv: readonly string[], env: Readonly<Record<string, string>>): Promise<VersionResult> {
  const [file, ...args] = argv;
  if (file === undefined) return undefined;
  const { exit, stdout, stderr, timedOut } = await runOnce(file, args, { env, timeoutMs: VERSION_TIMEOUT_MS, maxOutputChars: 4096 });
  if (exit.errorCode === "ENOENT" || exit.errorCode === "EACCES") return { missing: `${file} (${exit.errorCode})` };
  if (exit.error !== undefined) return { broken: exit.error };
  if (exit.code === 0 && !timedOut) return stdout.trim() !== "" ? stdout.trim() : undefined;
  const how = timedOut ? `no answer within ${VERSION_TIMEOUT_MS / 1000} s` : exit.signal !== null ? `killed by ${exit.signal}` : `exit ${exit.code}`;
  const said = stderr.trim().split("\n")[0]?.slice(0, 200) ?? "";
  return { broken: said === "" ? how : `${how}: ${said}` };
}

export async function probeCodexExecutable(target: HarnessTarget, env: Readonly<Record<string, string>>): Promise<ExecutableReport> {
  const report = resolveCodexCommand(target.settings, env);
  if (!report.ok) return report;
  // `codex --version` creates CODEX_HOME/tmp; asking for a version must not touch the user's ~/.codex.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "baton-codex-version-"));
  try {
    const version = await runVersion(versionArgv(report.argv), { ...env, CODEX_HOME: scratch });
    if (typeof version === "object" && "missing" in version) return { ok: false, searched: [`${version.missing} from ${report.source}`], hint: INSTALL_HINT };
    if (typeof version === "object") {
      return { ok: false, searched: [`${report.argv.join(" ")} from ${report.source}`], hint: `it does not run (\`--version\` failed: ${version.broken}). ${INSTALL_HINT}` };
    }
    return version === undefined ? report : { ...report, version };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The Codex definition. Its adapters first look for a prelaunched app-server in what `prelaunch` returns (exec
 * starts one early, see prelaunch.ts); the shared `codexDefinition` has none.
 */
export function createCodexDefinition(prelaunch: () => CodexPrelaunch | undefined = () => undefined): HarnessDefinition {
  return {
    id: "codex",
    aliases: ["cx"],
    label: "Codex",
    sessionKey: "codex",
    shortName: "codex",
    color: "#73daca",
    settingsSchema: codexSettingsSchema,
    capabilities: CODEX_CAPABILITIES,
    create: (context) =>
      new LazyAdapter(CODEX_CAPABILITIES, async () => {
        const { CodexAdapter } = await import("./adapter.ts");
        return new CodexAdapter({
          settings: context.target.settings,
          log: context.log,
          ...(context.trace ? { trace: context.trace } : {}),
          ...(context.stateDir !== undefined ? { stateDir: context.stateDir } : {}),
          env: context.target.env,
          prelaunch: prelaunch(),
        });
      }),
    probeExecutable: probeCodexExecutable,
  };
}

export const codexDefinition: HarnessDefinition = createCodexDefinition();
