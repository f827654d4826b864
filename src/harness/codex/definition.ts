/** The Codex harness definition (HAR-02): identity, colours, factory, executable probe. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runOnce } from "../../rpc/run-once.ts";
import type { ExecutableReport, HarnessDefinition, HarnessTarget } from "../definition.ts";
import { CodexAdapter } from "./adapter.ts";
import { INSTALL_HINT, resolveCodexCommand, versionArgv } from "./executable.ts";
import { codexSettingsSchema } from "./settings.ts";

const VERSION_TIMEOUT_MS = 10_000;

/** `--version` output, or `{missing}` when the program cannot be started at all. */
async function runVersion(argv: readonly string[], env: Readonly<Record<string, string>>): Promise<string | undefined | { missing: string }> {
  const [file, ...args] = argv;
  if (file === undefined) return undefined;
  const { exit, stdout } = await runOnce(file, args, { env, timeoutMs: VERSION_TIMEOUT_MS, maxOutputChars: 4096 });
  if (exit.errorCode === "ENOENT" || exit.errorCode === "EACCES") return { missing: `${file} (${exit.errorCode})` };
  return exit.code === 0 && stdout.trim() !== "" ? stdout.trim() : undefined;
}

export async function probeCodexExecutable(target: HarnessTarget, env: Readonly<Record<string, string>>): Promise<ExecutableReport> {
  const report = resolveCodexCommand(target.settings, env);
  if (!report.ok) return report;
  // `codex --version` creates CODEX_HOME/tmp; asking for a version must not touch the user's ~/.codex.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "baton-codex-version-"));
  try {
    const version = await runVersion(versionArgv(report.argv), { ...env, CODEX_HOME: scratch });
    if (typeof version === "object") return { ok: false, searched: [`${version.missing} from ${report.source}`], hint: INSTALL_HINT };
    return version === undefined ? report : { ...report, version };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

export const codexDefinition: HarnessDefinition = {
  id: "codex",
  aliases: ["cx"],
  label: "Codex",
  sessionKey: "codex",
  shortName: "codex",
  color: "#73daca",
  settingsSchema: codexSettingsSchema,
  create: (context) =>
    new CodexAdapter({
      settings: context.target.settings,
      log: context.log,
      ...(context.trace ? { trace: context.trace } : {}),
      ...(context.stateDir !== undefined ? { stateDir: context.stateDir } : {}),
      env: context.target.env,
    }),
  probeExecutable: probeCodexExecutable,
};
