/**
 * The real `baton` binary with an ACP target from config.yaml (claude-agent-acp against the mock Anthropic API),
 * offline: `baton exec --agent claude-acp`, `baton doctor`, a session the agent lost, and the relay between the
 * native Codex harness and the ACP target (`/claude-acp` and `/codex` in one repl session).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { acpAgentCommand } from "../support/acp-rig.ts";
import { runBaton } from "../support/baton-process.ts";
import { makeClaudeEnv, type ClaudeTestEnv } from "../support/claude-env.ts";
import { makeCodexHome, type CodexHome } from "../support/codex-home.ts";
import { codexLastUserText } from "../support/crash-harnesses.ts";
import { startMockAnthropic, type MockAnthropic } from "../support/mock-anthropic/client.ts";
import { allMessageText, reply } from "../support/mock-anthropic/script.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";

let anthropic: MockAnthropic;
let responses: MockResponses;
let claude: ClaudeTestEnv;
let codex: CodexHome;
let env: Record<string, string>;

beforeAll(async () => {
  [anthropic, responses] = await Promise.all([startMockAnthropic(), startMockResponses()]);
});
afterAll(async () => {
  await Promise.all([anthropic.stop(), responses.stop()]);
  claude?.cleanup();
  codex?.cleanup();
});
beforeEach(async () => {
  await Promise.all([anthropic.reset(), responses.reset()]);
  claude?.cleanup();
  codex?.cleanup();
  claude = makeClaudeEnv({ baseUrl: anthropic.url });
  codex = makeCodexHome({ baseUrl: responses.baseUrl, approvalPolicy: "never", sandboxMode: "danger-full-access" });
  env = { ...claude.env, CODEX_HOME: codex.env["CODEX_HOME"]!, MOCK_API_KEY: "mock-key" };
  mkdirSync(claude.batonHome, { recursive: true });
  const command = acpAgentCommand("claude-agent-acp");
  writeFileSync(
    path.join(claude.batonHome, "config.yaml"),
    ["targets:", "  claude-acp:", "    harness: acp", `    command: ${JSON.stringify(command)}`, "    mode: default", ""].join("\n"),
  );
});

type Event = { kind: string; payload: Record<string, unknown>; turnId?: string; harnessTargetId?: string; harness?: string };
const sessionOf = (stderr: string) => /baton: session (bs_\w+) turn/.exec(stderr)?.[1] ?? "";
function ledgerOf(id: string): Event[] {
  const projects = path.join(claude.batonHome, "projects");
  for (const project of readdirSync(projects)) {
    const file = path.join(projects, project, "sessions", id, "session.jsonl");
    if (existsSync(file)) return readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Event);
  }
  throw new Error(`no session ${id}`);
}
const exec = (args: string[]) => runBaton(["exec", ...args], { env, cwd: claude.cwd, stdin: "" });

describe("an ACP target from config.yaml", () => {
  test("baton exec --agent claude-acp answers through the agent; events carry the acp harness and the target id", async () => {
    await anthropic.script(reply.text("Hello through ACP."));
    const run = await exec(["--agent", "claude-acp", "say hello"]);
    expect(run.stderr).not.toContain("error");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello through ACP.");
    const ledger = ledgerOf(sessionOf(run.stderr));
    const answer = ledger.find((e) => e.kind === "agent_message");
    expect(answer).toMatchObject({ harness: "acp", harnessTargetId: "claude-acp" });
    expect(ledger.filter((e) => e.kind === "_baton_turn_summary").map((e) => e.payload["stopReason"])).toEqual(["end_turn"]);
  }, 60_000);

  test("baton doctor shows the target's command, the agent's name and version, and what it can do", async () => {
    const run = await runBaton(["doctor"], { env, cwd: claude.cwd, stdin: "" });
    const command = acpAgentCommand("claude-agent-acp").join(" ");
    expect(run.stdout).toContain(`claude-acp: ${command}  (targets.claude-acp.command, @agentclientprotocol/claude-agent-acp 0.49.0)`);
    expect(run.stdout).toContain("sessions: new, resume, load, close; prompts: text, resource links, images, embedded resources");
    // there is no bundled 'acp' target
    expect(run.stdout).not.toMatch(/^\s+(ok|warn|FAIL)\s+acp:/m);
  }, 60_000);

  test("the agent lost its session: a new one gets the history, with a receipt", async () => {
    await anthropic.script(reply.text("first answer"), reply.text("fresh but informed"));
    const first = await exec(["--agent", "claude-acp", "remember the word mango"]);
    expect(first.code).toBe(0);
    const id = sessionOf(first.stderr);
    rmSync(path.join(claude.configDir, "projects"), { recursive: true, force: true });
    const second = await exec(["--session", id, "--agent", "claude-acp", "which word?"]);
    expect(second.code).toBe(0);
    const last = allMessageText((await anthropic.modelRequests()).at(-1)!.body);
    expect(last).toContain("remember the word mango");
    expect(last).toContain("first answer");
    expect(ledgerOf(id).filter((e) => e.kind === "_baton_context_delivery_receipt").map((e) => e.payload["transport"])).toEqual(["prompt_prepend"]);
  }, 90_000);

  test("Codex (native) → /claude-acp → /codex in one repl: each switch hands over only what the target has not seen", async () => {
    await responses.script([{ kind: "text", text: "Codex wrote the plan." }, { kind: "text", text: "Codex continues." }]);
    // the session title is generated through Claude's textgen on the same mock: keep the scripted reply for the ACP turn
    await anthropic.script(reply.text("The ACP agent reviewed it.", { match: { lastUserIncludes: "review what codex did" } }));
    const run = await runBaton(["repl", "--agent", "codex"], {
      env,
      cwd: claude.cwd,
      stdin: "write the plan\n/claude-acp review what codex did\n/codex continue from there\n/exit\n",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("switched to claude-acp");
    const toAcp = (await anthropic.modelRequests()).map((r) => allMessageText(r.body)).find((t) => !t.includes("Write a title")) ?? "";
    expect(toAcp).toContain("<baton-sync>");
    expect(toAcp).toContain("write the plan");
    expect(toAcp).toContain("Codex wrote the plan.");
    expect(toAcp).toContain("review what codex did");
    const backToCodex = (await responses.requests()).at(-1)!.body;
    const sent = JSON.stringify(backToCodex);
    expect(sent).toContain("The ACP agent reviewed it.");
    const sync = sent.slice(sent.indexOf("<baton-sync>"), sent.indexOf("</baton-sync>"));
    expect(sync).not.toContain("Codex wrote the plan.");
    expect(codexLastUserText(backToCodex)).toBe("continue from there");
    const id = /bs_\w+/.exec(run.stdout + run.stderr)?.[0] ?? "";
    const receipts = ledgerOf(id).filter((e) => e.kind === "_baton_context_delivery_receipt");
    expect(receipts.map((r) => r.payload["transport"])).toEqual(["prompt_prepend", "sync_context"]);
  }, 120_000);
});
