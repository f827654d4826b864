/**
 * Real ACP agents for tests, offline: `claude-agent-acp` against the mock Anthropic API and `codex-acp` against the
 * mock Responses API, each in a throwaway HOME / CLAUDE_CONFIG_DIR / CODEX_HOME / TMPDIR with a complete env
 * (retries off). A world knows how to script its mock for the contract suite's reply kinds (text, a permission,
 * a slow stream), how to read what the model was sent, and how to make adapters and config for its agent.
 * Not a test file.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { AcpAdapter, type AcpAdapterOptions } from "../../src/harness/acp/adapter.ts";
import { spawnAgent } from "../../src/harness/acp/connection.ts";
import { makeClaudeEnv } from "./claude-env.ts";
import { makeCodexHome } from "./codex-home.ts";
import type { MockAnthropic } from "./mock-anthropic/client.ts";
import { allMessageText, reply } from "./mock-anthropic/script.ts";
import type { MockResponses } from "./mock-responses/index.ts";

export type AcpAgentName = "claude-agent-acp" | "codex-acp";

const PACKAGES: Readonly<Record<AcpAgentName, string>> = {
  "claude-agent-acp": "@agentclientprotocol/claude-agent-acp",
  "codex-acp": "@agentclientprotocol/codex-acp",
};

const require = createRequire(import.meta.url);

/** `node <the agent's bin>`: the agents are devDependencies, run by Node (as npm would run them). */
export function acpAgentCommand(agent: AcpAgentName): string[] {
  const manifest = require.resolve(`${PACKAGES[agent]}/package.json`);
  const pkg = JSON.parse(fs.readFileSync(manifest, "utf8")) as { bin: Record<string, string> };
  const bin = path.join(path.dirname(manifest), pkg.bin[agent] ?? "dist/index.js");
  const node = Bun.which("node");
  if (node === null) throw new Error("node is not on PATH (the ACP agents run under Node)");
  return [node, bin];
}

export interface AcpWorld {
  readonly agent: AcpAgentName;
  readonly targetId: string;
  readonly cwd: string;
  /** The complete environment for the agent (and for a `baton` run driving it). */
  readonly env: Record<string, string>;
  readonly command: string[];
  /** The mode the permission tests need (codex-acp asks only in read-only). */
  readonly mode: string;
  /** The target's settings as config would give them. */
  readonly settings: Record<string, unknown>;
  /** BATON_HOME/state for the probe cache. */
  readonly stateDir: string;
  adapter(options?: Partial<AcpAdapterOptions>): AcpAdapter;
  scriptText(text: string): Promise<void>;
  /** A tool call that needs permission: a shell command (claude) or a patch (codex) that creates `file`. */
  scriptPermission(file?: string, then?: string): Promise<void>;
  scriptSlow(): Promise<void>;
  /** A model error answer (HTTP 500, no retries). */
  scriptError(): Promise<void>;
  /** Everything the model was sent in each main request, as text. */
  modelTexts(): Promise<string[]>;
  resetMock(): Promise<void>;
  /** The agent's own session store (deleting it makes the agent lose its sessions). */
  readonly agentStore: string;
  cleanup(): void;
}

export function makeClaudeAcpWorld(mock: MockAnthropic, targetId = "claude-acp"): AcpWorld {
  const claude = makeClaudeEnv({ baseUrl: mock.url });
  const command = acpAgentCommand("claude-agent-acp");
  const stateDir = path.join(claude.batonHome, "state");
  const settings = { command, mode: "default" };
  return {
    agent: "claude-agent-acp",
    targetId,
    cwd: claude.cwd,
    env: claude.env,
    command,
    mode: "default",
    settings,
    stateDir,
    adapter: (options = {}) => new AcpAdapter({ targetId, settings, stateDir, ...options }),
    scriptText: (text) => mock.script(reply.text(text)),
    async scriptPermission(file = "contract.txt", then = "done") {
      await mock.script(reply.tool("Bash", { command: `echo contract > ${file}`, description: "write a file" }), reply.text(then));
    },
    scriptSlow: () => mock.script(reply.text("slow ".repeat(60), { chunkSize: 5, chunkDelayMs: 100 }), reply.text("after the slow one")),
    scriptError: () => mock.script(reply.error(500, "mock overloaded")),
    async modelTexts() {
      return (await mock.modelRequests()).map((request) => allMessageText(request.body));
    },
    resetMock: () => mock.reset(),
    agentStore: path.join(claude.configDir, "projects"),
    cleanup: () => claude.cleanup(),
  };
}

export function makeCodexAcpWorld(mock: MockResponses, targetId = "codex-acp"): AcpWorld {
  const home = makeCodexHome({ baseUrl: mock.baseUrl });
  const command = acpAgentCommand("codex-acp");
  const root = home.root;
  const tmp = path.join(root, "tmp");
  const batonHome = path.join(root, "baton");
  for (const dir of [tmp, batonHome]) fs.mkdirSync(dir, { recursive: true });
  const env = { ...home.env, TMPDIR: tmp, BATON_HOME: batonHome, NO_BROWSER: "1" };
  const stateDir = path.join(batonHome, "state");
  const settings = { command, mode: "read-only" };
  return {
    agent: "codex-acp",
    targetId,
    cwd: home.workdir,
    env,
    command,
    mode: "read-only",
    settings,
    stateDir,
    adapter: (options = {}) => new AcpAdapter({ targetId, settings, stateDir, ...options }),
    scriptText: (text) => mock.script([{ kind: "text", text }]),
    async scriptPermission(file = "contract.txt", then = "done") {
      const patch = `*** Begin Patch\n*** Add File: ${file}\n+contract\n*** End Patch`;
      await mock.script([{ kind: "apply_patch", patch }, { kind: "text", text: then }]);
    },
    scriptSlow: () => mock.script([{ kind: "text", text: "s".repeat(1000), chunkSize: 10, delayMs: 50 }, { kind: "text", text: "after the slow one" }]),
    scriptError: () => mock.script([{ kind: "http_error", status: 500, body: "mock overloaded" }]),
    async modelTexts() {
      return (await mock.requests()).map((request) => JSON.stringify(request.body));
    },
    resetMock: () => mock.reset(),
    agentStore: path.join(home.codexHome, "sessions"),
    cleanup: () => home.cleanup(),
  };
}

/**
 * A process port that starts the real agent but edits its stdout on the way in, a line's bytes at a time (the
 * terminator is added back): `edit` returns the bytes to pass on.
 */
export function spawnEditingLines(edit: (line: Buffer) => Uint8Array): typeof spawnAgent {
  return (argv, options) => {
    const agent = spawnAgent(argv, options);
    let buffered = Buffer.alloc(0);
    const rewrite = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffered = Buffer.concat([buffered, chunk]);
        for (let newline = buffered.indexOf(0x0a); newline !== -1; newline = buffered.indexOf(0x0a)) {
          controller.enqueue(Buffer.concat([edit(buffered.subarray(0, newline)), Buffer.from("\n")]));
          buffered = buffered.subarray(newline + 1);
        }
      },
      flush(controller) {
        if (buffered.byteLength > 0) controller.enqueue(buffered);
      },
    });
    return { ...agent, streams: { input: agent.streams.input.pipeThrough(rewrite), output: agent.streams.output } };
  };
}

/**
 * A process port that starts the real agent but edits its answers on the way in: `edit` sees each JSON-RPC
 * message from the agent and may change it in place (e.g. hide a capability so the fallback chain has to use
 * `session/load`, or report another starting mode).
 */
export function spawnEditingAnswers(edit: (message: Record<string, unknown>) => void): typeof spawnAgent {
  return spawnEditingLines((line) => {
    let message: Record<string, unknown> | undefined;
    try {
      message = JSON.parse(line.toString("utf8")) as Record<string, unknown>;
    } catch {
      return line; // not JSON: passed on as it came (the adapter reports it)
    }
    if (typeof message !== "object" || message === null) return line;
    edit(message);
    return Buffer.from(JSON.stringify(message));
  });
}

/** `initialize`'s `agentCapabilities`, edited (a capability that "lies"). */
export function spawnEditingInitialize(edit: (agentCapabilities: Record<string, unknown>) => void): typeof spawnAgent {
  return spawnEditingAnswers((message) => {
    const result = message["result"] as { agentCapabilities?: Record<string, unknown> } | undefined;
    if (result?.agentCapabilities) edit(result.agentCapabilities);
  });
}
