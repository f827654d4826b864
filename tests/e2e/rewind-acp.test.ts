/**
 * Rewind covers any target alike (issue 19): an ACP agent's turn — the real claude-agent-acp against the mock
 * Anthropic API, from config.yaml — is checkpointed and rewound exactly as a native one. In one session in a git
 * worktree, the real Codex's apply_patch writes patched.txt, then the ACP agent's Write writes acp.txt. Rewinding
 * to before the ACP turn takes acp.txt away and keeps patched.txt; rewinding to before the Codex turn takes both;
 * the user's index, HEAD, branch and stash stay as they were.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { useTwoAgents } from "../support/two-agents.ts";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { acpAgentCommand } from "../support/acp-rig.ts";
import { runBaton } from "../support/baton-process.ts";
import { type ClaudeTestEnv } from "../support/claude-env.ts";
import { filesOf, git, gitEnv, initRepo, userView, writeFiles } from "../support/git-repo.ts";
import { type MockAnthropic } from "../support/mock-anthropic/client.ts";
import { reply } from "../support/mock-anthropic/script.ts";
import { type MockResponses } from "../support/mock-responses/index.ts";

let codexMock: MockResponses;
let claudeMock: MockAnthropic;
let claude: ClaudeTestEnv;
let env: Record<string, string>;
let cwd: string;

useTwoAgents((a) => ({ codexMock, claudeMock, claude, env, cwd } = a), { wrapEnv: gitEnv });
beforeEach(() => {
  mkdirSync(claude.batonHome, { recursive: true });
  const command = acpAgentCommand("claude-agent-acp");
  writeFileSync(path.join(claude.batonHome, "config.yaml"), ["targets:", "  claude-acp:", "    harness: acp", `    command: ${JSON.stringify(command)}`, "    mode: default", ""].join("\n"));
});

type Event = { kind: string; turnId?: string; harness?: string; harnessTargetId?: string; payload: Record<string, unknown> };
const baton = (args: string[]) => runBaton(args, { env, cwd, stdin: "" });
const turnOf = (stderr: string) => /baton: session (bs_\w+) turn (t_\w+) end_turn/.exec(stderr)?.slice(1) ?? [];

function ledgerOf(id: string): Event[] {
  const projects = path.join(env["BATON_HOME"]!, "projects");
  for (const project of readdirSync(projects)) {
    const file = path.join(projects, project, "sessions", id, "session.jsonl");
    if (existsSync(file)) return readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Event);
  }
  throw new Error(`no session ${id}`);
}

/** What rewinding must never change: the user's HEAD, branch, stash and index (status follows the files). */
const untouched = (view: ReturnType<typeof userView>) => ({ head: view.head, branch: view.branch, stash: view.stash, index: view.index });

describe("rewind with an ACP agent", () => {
  test("an ACP agent's turn is checkpointed and rewound like a native one: its file goes, Codex's stays; then both go", async () => {
    initRepo(cwd, { "README.md": "hello\n" });
    writeFiles(cwd, { "todo.md": "staged by the user\n" });
    git(cwd, "add", "todo.md");
    const initial = { files: filesOf(cwd), view: userView(cwd) };

    await codexMock.script([{ kind: "apply_patch", patch: "*** Begin Patch\n*** Add File: patched.txt\n+patched by codex\n*** End Patch" }, { kind: "text", text: "I added patched.txt." }]);
    const first = await baton(["exec", "--agent", "codex", "add patched.txt"]);
    expect(first.code).toBe(0);
    const [session, codexTurn] = turnOf(first.stderr);
    const afterCodex = filesOf(cwd);
    expect(afterCodex["patched.txt"]).toBe("patched by codex\n");

    await claudeMock.script(
      reply.tool("Write", { file_path: path.join(cwd, "acp.txt"), content: "written through ACP\n" }, { match: { lastUserIncludes: "write acp.txt" } }),
      reply.text("I wrote acp.txt.", { match: { hasToolResult: true } }),
    );
    const second = await baton(["exec", "--session", session!, "--agent", "claude-acp", "--approve", "allow", "write acp.txt"]);
    expect(second.code).toBe(0);
    const [, acpTurn] = turnOf(second.stderr);
    expect(readFileSync(path.join(cwd, "acp.txt"), "utf8")).toBe("written through ACP\n");

    const ledger = ledgerOf(session!);
    expect(ledger.find((e) => e.kind === "agent_message" && e.turnId === acpTurn)).toMatchObject({ harness: "acp", harnessTargetId: "claude-acp" });
    const checkpoints = ledger.filter((e) => e.kind === "_baton_checkpoint");
    expect(checkpoints.map((e) => [e.harnessTargetId, e.payload["boundary"], e.payload["turnId"], e.payload["dirtyPaths"]])).toEqual([
      ["codex", "before", codexTurn, []],
      ["codex", "after", codexTurn, ["patched.txt"]],
      ["claude-acp", "before", acpTurn, []],
      ["claude-acp", "after", acpTurn, ["acp.txt"]],
    ]);

    const beforeAcp = await baton(["rewind", session!, "--to", acpTurn!, "--yes"]);
    expect(beforeAcp.code).toBe(0);
    expect(filesOf(cwd)).toEqual(afterCodex);
    expect(untouched(userView(cwd))).toEqual(untouched(initial.view));
    const fork = ledgerOf(beforeAcp.stdout.trim());
    expect(fork.filter((e) => e.kind === "user_message").map((e) => e.turnId)).toEqual([codexTurn]);

    // The old session is intact and still rewinds further back: both agents' files go.
    const beforeCodex = await baton(["rewind", session!, "--to", codexTurn!, "--yes"]);
    expect(beforeCodex.code).toBe(0);
    expect(filesOf(cwd)).toEqual(initial.files);
    expect(userView(cwd)).toEqual(initial.view);
  }, 240_000);
});
