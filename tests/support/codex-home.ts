/**
 * A throwaway HOME + CODEX_HOME + workdir for driving the real codex binary against the mock
 * Responses server (see shared notes on codex app-server §2): plugins, shell snapshot and
 * unbounded retries off, a one-entry model catalog, no network. Regenerate per test: the
 * app-server edits config.toml (project trust).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface CodexHomeOptions {
  /** The mock's base URL (`http://127.0.0.1:<port>/v1`). */
  readonly baseUrl: string;
  /** Written as `approval_policy` in config.toml (Codex's own configuration, not Baton's). */
  readonly approvalPolicy?: "on-request" | "never" | "on-failure";
  /** Written as `sandbox_mode`. */
  readonly sandboxMode?: "read-only" | "workspace-write" | "danger-full-access";
  /** Extra TOML appended verbatim. */
  readonly extraToml?: string;
  readonly model?: string;
}

export interface CodexHome {
  readonly root: string;
  readonly home: string;
  readonly codexHome: string;
  readonly workdir: string;
  /** The environment to give the app-server: PATH plus the temp HOME/CODEX_HOME and the mock key. */
  readonly env: Record<string, string>;
  cleanup(): void;
}

export function mockCatalog(model = "mock-model") {
  return {
    models: [
      {
        slug: model,
        display_name: "Mock model",
        description: "offline mock",
        base_instructions: "You are Codex running against a scripted mock model for offline tests.",
        shell_type: "unified_exec",
        apply_patch_tool_type: "freeform",
        visibility: "list",
        supported_in_api: true,
        priority: 1,
        context_window: 128000,
        supported_reasoning_levels: [],
        support_verbosity: false,
        truncation_policy: { mode: "tokens", limit: 10000 },
        experimental_supported_tools: [],
      },
    ],
  };
}

export function makeCodexHome(options: CodexHomeOptions): CodexHome {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "baton-codex-"));
  const home = path.join(root, "home");
  const codexHome = path.join(root, "codex-home");
  const workdir = path.join(root, "work");
  for (const dir of [home, codexHome, workdir]) fs.mkdirSync(dir, { recursive: true });
  const model = options.model ?? "mock-model";
  const catalog = path.join(codexHome, "mock-catalog.json");
  fs.writeFileSync(catalog, JSON.stringify(mockCatalog(model)));
  const lines = [
    `model = ${JSON.stringify(model)}`,
    `model_provider = "mock"`,
    `model_catalog_json = ${JSON.stringify(catalog)}`,
    `check_for_update_on_startup = false`,
  ];
  if (options.approvalPolicy !== undefined) lines.push(`approval_policy = ${JSON.stringify(options.approvalPolicy)}`);
  if (options.sandboxMode !== undefined) lines.push(`sandbox_mode = ${JSON.stringify(options.sandboxMode)}`);
  lines.push(
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[features]",
    "plugins = false",
    "shell_snapshot = false",
    "unbounded_connection_retries = false",
    "",
    "[model_providers.mock]",
    `name = "Mock"`,
    `base_url = ${JSON.stringify(options.baseUrl)}`,
    `wire_api = "responses"`,
    `env_key = "MOCK_API_KEY"`,
    "request_max_retries = 0",
    "stream_max_retries = 0",
  );
  if (options.extraToml !== undefined) lines.push("", options.extraToml);
  fs.writeFileSync(path.join(codexHome, "config.toml"), `${lines.join("\n")}\n`);
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: home,
    CODEX_HOME: codexHome,
    MOCK_API_KEY: "mock-key",
    LANG: "C.UTF-8",
  };
  return {
    root,
    home,
    codexHome,
    workdir,
    env,
    cleanup() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
