/**
 * A throwaway environment for running the real Claude Code against the mock Anthropic server:
 * temp HOME / CLAUDE_CONFIG_DIR / TMPDIR / BATON_HOME and a workspace, and the complete env to pass to the child
 * (the SDK's `env` option replaces the environment, so PATH is carried over explicitly).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface ClaudeTestEnv {
  readonly root: string;
  readonly home: string;
  readonly configDir: string;
  readonly tmpDir: string;
  readonly batonHome: string;
  /** The working directory for the Claude session. */
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** `$CLAUDE_CONFIG_DIR/projects/<munged cwd>`: where Claude Code writes session transcripts for `cwd`. */
  readonly projectDir: string;
  transcriptPath(sessionId: string): string;
  /** Every `*.jsonl` transcript under `$CLAUDE_CONFIG_DIR/projects`. */
  transcripts(): string[];
  cleanup(): void;
}

export interface ClaudeEnvOptions {
  readonly baseUrl: string;
  /** Extra variables (e.g. CLAUDE_CODE_MAX_RETRIES). */
  readonly extra?: Readonly<Record<string, string>>;
}

/** Claude Code's project-directory munging: every non-alphanumeric character becomes "-". */
export function mungeCwd(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

export function makeClaudeEnv(options: ClaudeEnvOptions): ClaudeTestEnv {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "baton-claude-")));
  const home = path.join(root, "home");
  const configDir = path.join(home, ".claude");
  const tmpDir = path.join(home, "tmp");
  const batonHome = path.join(root, "baton");
  const cwd = path.join(root, "ws");
  for (const dir of [home, configDir, tmpDir, batonHome, cwd]) fs.mkdirSync(dir, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    TMPDIR: tmpDir,
    BATON_HOME: batonHome,
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: "sk-ant-dummy",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_MAX_RETRIES: "0",
    ...options.extra,
  };
  const projectDir = path.join(configDir, "projects", mungeCwd(cwd));
  return {
    root,
    home,
    configDir,
    tmpDir,
    batonHome,
    cwd,
    env,
    projectDir,
    transcriptPath: (sessionId) => path.join(projectDir, `${sessionId}.jsonl`),
    transcripts() {
      const base = path.join(configDir, "projects");
      if (!fs.existsSync(base)) return [];
      const out: string[] = [];
      for (const dir of fs.readdirSync(base)) {
        const full = path.join(base, dir);
        if (!fs.statSync(full).isDirectory()) continue;
        for (const file of fs.readdirSync(full)) if (file.endsWith(".jsonl")) out.push(path.join(full, file));
      }
      return out;
    },
    cleanup() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
