/**
 * Rewind across agents (issue 19) with the real `codex` and the real Claude Code against the mock model
 * servers, in one session in a git worktree: Codex's apply_patch writes patched.txt, then Claude Code's Write
 * writes written.txt. Rewinding to before the Codex turn brings both files back and forks the transcript;
 * a file the user edited since is refused by name; --undo (the rewind of the rewind) brings everything back;
 * the user's index and branch are untouched; a fork continues with a fresh native session and the history.
 */
import { describe, expect, test } from "bun:test";
import { useTwoAgents } from "../support/two-agents.ts";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { runBaton } from "../support/baton-process.ts";
import { filesOf, git, gitEnv, initRepo, userView, writeFiles } from "../support/git-repo.ts";
import { type MockAnthropic } from "../support/mock-anthropic/client.ts";
import { allMessageText, reply } from "../support/mock-anthropic/script.ts";
import { type MockResponses } from "../support/mock-responses/index.ts";

let codexMock: MockResponses;
let claudeMock: MockAnthropic;
let env: Record<string, string>;
let cwd: string;

useTwoAgents((a) => ({ codexMock, claudeMock, env, cwd } = a), { wrapEnv: gitEnv });

type Event = { kind: string; seq: number; turnId?: string; payload: Record<string, unknown> };
const baton = (args: string[]) => runBaton(args, { env, cwd, stdin: "" });
const turnOf = (stderr: string) => /baton: session (bs_\w+) turn (t_\w+) end_turn/.exec(stderr)?.slice(1) ?? [];

function sessionDir(id: string): string {
  const projects = path.join(env["BATON_HOME"]!, "projects");
  for (const project of readdirSync(projects)) {
    const dir = path.join(projects, project, "sessions", id);
    if (existsSync(dir)) return dir;
  }
  throw new Error(`no session ${id}`);
}
const ledgerOf = (id: string): Event[] => readFileSync(path.join(sessionDir(id), "session.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Event);
const metaOf = (id: string) => JSON.parse(readFileSync(path.join(sessionDir(id), "meta.json"), "utf8"));
const strip = (events: Event[]) => events.map(({ kind, seq, turnId, payload }) => ({ kind, seq, turnId, payload }));

describe("rewind across Codex and Claude Code", () => {
  test("both agents' files come back; refusal names the user's file; undo restores all; index and branch untouched; the fork goes on", async () => {
    initRepo(cwd, { "README.md": "hello\n" });
    writeFiles(cwd, { "todo.md": "staged by the user\n" });
    git(cwd, "add", "todo.md");
    const initial = { files: filesOf(cwd), view: userView(cwd) };

    await codexMock.script([{ kind: "apply_patch", patch: "*** Begin Patch\n*** Add File: patched.txt\n+patched by codex\n*** End Patch" }, { kind: "text", text: "I added patched.txt." }]);
    const first = await baton(["exec", "--agent", "codex", "add patched.txt"]);
    expect(first.code).toBe(0);
    const [session, codexTurn] = turnOf(first.stderr);
    expect(readFileSync(path.join(cwd, "patched.txt"), "utf8")).toBe("patched by codex\n");

    await claudeMock.script(reply.tool("Write", { file_path: path.join(cwd, "written.txt"), content: "written by claude\n" }), reply.text("I wrote written.txt.", { match: { hasToolResult: true } }));
    const second = await baton(["exec", "--session", session!, "--agent", "claude", "--approve", "allow", "write written.txt"]);
    expect(second.code).toBe(0);
    const [, claudeTurn] = turnOf(second.stderr);
    expect(readFileSync(path.join(cwd, "written.txt"), "utf8")).toBe("written by claude\n");
    const atEnd = filesOf(cwd);

    const checkpoints = ledgerOf(session!).filter((e) => e.kind === "_baton_checkpoint");
    expect(checkpoints.map((e) => [e.payload["boundary"], e.payload["turnId"], e.payload["dirtyPaths"]])).toEqual([
      ["before", codexTurn, []],
      ["after", codexTurn, ["patched.txt"]],
      ["before", claudeTurn, []],
      ["after", claudeTurn, ["written.txt"]],
    ]);

    // The user edits a file after the turns: rewinding over it is refused, by name, and nothing moves.
    writeFiles(cwd, { "README.md": "hello, edited by me\n" });
    const refused = await baton(["rewind", session!, "--to", codexTurn!, "--yes"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("outside any agent turn since then: README.md");
    expect(existsSync(path.join(cwd, "patched.txt"))).toBe(true);
    writeFiles(cwd, { "README.md": "hello\n" });

    const rewound = await baton(["rewind", session!, "--to", codexTurn!, "--yes"]);
    expect(rewound.code).toBe(0);
    const beforeCodex = rewound.stdout.trim();
    expect(filesOf(cwd)).toEqual(initial.files);
    expect(userView(cwd)).toEqual(initial.view);
    expect(ledgerOf(beforeCodex).filter((e) => e.kind === "user_message")).toEqual([]);

    // The rewind of the rewind: everything as it was, the whole conversation in a new session.
    const undone = await baton(["rewind", beforeCodex, "--undo", "--yes"]);
    expect(undone.code).toBe(0);
    const again = undone.stdout.trim();
    expect(filesOf(cwd)).toEqual(atEnd);
    expect(strip(ledgerOf(again).slice(0, -1))).toEqual(strip(ledgerOf(session!)));

    // Before the Claude turn only: Codex's file stays; the fork's Claude gets a fresh session and the history.
    const beforeClaude = (await baton(["rewind", again, "--to", claudeTurn!, "--yes"])).stdout.trim();
    expect(filesOf(cwd)).toEqual({ ...initial.files, "patched.txt": "patched by codex\n" });
    await claudeMock.reset();
    await claudeMock.script(reply.text("Fresh, but I know what Codex did."));
    const next = await baton(["exec", "--session", beforeClaude, "--agent", "claude", "what happened so far?"]);
    expect(next.code).toBe(0);
    const seen = allMessageText((await claudeMock.modelRequests())[0]!.body);
    expect(seen).toContain("<baton-sync>");
    expect(seen).toContain("add patched.txt");
    expect(seen).not.toContain("write written.txt");
    expect(metaOf(beforeClaude).harnessSessions["claude"].harnessSessionId).not.toBe(metaOf(session!).harnessSessions["claude"].harnessSessionId);
    expect(git(cwd, "symbolic-ref", "HEAD").trim()).toBe("refs/heads/main");
  }, 240_000);
});
