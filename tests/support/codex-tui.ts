/**
 * The real `baton --agent codex` (through the npm launcher) in tmux, over the real Codex against a mock Responses
 * server, with the pane's raw output piped to a file — for the e2e tests of what Baton writes to the terminal
 * itself (notifications, titles) and of what plugins show on its screen. `codexTuiFile()` registers the test
 * file's beforeAll/afterAll (one mock server per file; the last TUI, homes and server go at the end); `start()`
 * opens one TUI, with plugins installed and project files written first when asked.
 */
import { afterAll, beforeAll } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { makeClaudeEnv, type ClaudeTestEnv } from "./claude-env.ts";
import { makeCodexHome, type CodexHome, type CodexHomeOptions } from "./codex-home.ts";
import { startMockResponses, type MockReply, type MockResponses } from "./mock-responses/index.ts";
import { installPlugin } from "./plugin-rig.ts";
import { Tmux } from "./tmux.ts";

const LAUNCHER = path.resolve(import.meta.dir, "../../bin/baton.cjs");

export interface CodexTui {
  readonly t: Tmux;
  /** The environment baton runs with (for `baton …` commands from another shell). */
  readonly env: Record<string, string>;
  /** The project directory baton runs in. */
  readonly cwd: string;
  /** Everything written to the pane so far, raw (escape sequences included). */
  output(): string;
  /** The mock model server (what Codex asked it: `requests()`). */
  readonly mock: MockResponses;
}

export interface CodexTuiOptions {
  readonly codex: Omit<CodexHomeOptions, "baseUrl">;
  /** The mock model's replies, in order (a session title is a request of its own after the first turn). */
  readonly replies: readonly MockReply[];
  /** Baton's config.yaml. */
  readonly config?: string;
  /** Plugins installed, configured and enabled in Baton's home before it starts. */
  readonly plugins?: readonly { readonly dir: string; readonly config?: unknown }[];
  /** Files written into the project directory before Baton starts (name → content). */
  readonly files?: Readonly<Record<string, string>>;
  readonly width?: number;
  readonly height?: number;
}

export interface CodexTuiFile {
  start(options: CodexTuiOptions): Promise<CodexTui>;
}

export function codexTuiFile(): CodexTuiFile {
  let mock: MockResponses | undefined;
  let codex: CodexHome | undefined;
  let claude: ClaudeTestEnv | undefined;
  let tmux: Tmux | undefined;
  beforeAll(async () => {
    mock = await startMockResponses();
  });
  afterAll(async () => {
    tmux?.kill();
    await mock?.stop();
    codex?.cleanup();
    claude?.cleanup();
  });
  return {
    async start(options) {
      if (mock === undefined) throw new Error("codexTuiFile: the mock server is not up (call it at the top of the file)");
      codex = makeCodexHome({ baseUrl: mock.baseUrl, ...options.codex });
      claude = makeClaudeEnv({ baseUrl: "http://127.0.0.1:9" });
      if (options.config !== undefined) fs.writeFileSync(path.join(claude.batonHome, "config.yaml"), options.config);
      for (const [name, content] of Object.entries(options.files ?? {})) fs.writeFileSync(path.join(claude.cwd, name), content);
      for (const plugin of options.plugins ?? []) await installPlugin({ batonHome: claude.batonHome, npmHome: claude.root, ...plugin });
      await mock.script(options.replies);
      const raw = path.join(claude.cwd, "..", "pane.raw");
      const env = { ...claude.env, CODEX_HOME: codex.env["CODEX_HOME"]!, MOCK_API_KEY: "mock-key", TERM: "screen-256color", LANG: "C.UTF-8" };
      const size = { ...(options.width === undefined ? {} : { width: options.width }), ...(options.height === undefined ? {} : { height: options.height }) };
      const t = (tmux = Tmux.start({ command: ["node", LAUNCHER, "--agent", "codex"], env, cwd: claude.cwd, ...size }));
      t.pipeRaw(raw);
      return { t, env, cwd: claude.cwd, output: () => (fs.existsSync(raw) ? fs.readFileSync(raw, "latin1") : ""), mock };
    },
  };
}
