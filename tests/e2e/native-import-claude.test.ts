/**
 * Importing native Claude Code sessions (NAT-04/06/07) end to end: sessions are created by the real Claude Code
 * (through the Agent SDK, against the mock Anthropic API), then `baton resume <id>` / `baton fork <id>` run as
 * real processes. The transcript must stay byte-identical; the next Baton turn must resume the same session.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { allMessageText, reply } from "../support/mock-anthropic/script.ts";
import { useClaudeEnvEach, useMockAnthropic } from "../support/claude-rig.ts";
import { runBaton } from "../support/baton-process.ts";
import { readSummaries } from "../support/summaries.ts";

const mock = useMockAnthropic();
const env = useClaudeEnvEach(mock);

/** One turn in Claude Code itself (not through Baton); returns the session id. */
async function nativeTurn(prompt: string, resume?: string): Promise<string> {
  const q = query({
    prompt,
    options: {
      cwd: env.cwd,
      env: env.env,
      permissionMode: "default",
      settingSources: [],
      ...(resume === undefined ? {} : { resume }),
      canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: input }),
    },
  });
  let sessionId = "";
  for await (const message of q) if (message.type === "result") sessionId = message.session_id;
  if (sessionId === "") throw new Error("the native turn produced no result");
  return sessionId;
}

const baton = (args: string[]) => runBaton(args, { env: env.env, cwd: env.cwd });
const sha = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

interface Stored {
  kind: string;
  seq: number;
  payload: Record<string, unknown>;
  source: { type: string; harnessTargetId?: string };
  turnId?: string;
  harnessTargetId?: string;
  harnessSessionId?: string;
}

function sessionDir(id: string): string {
  const projects = path.join(env.batonHome, "projects");
  for (const project of fs.readdirSync(projects)) {
    const dir = path.join(projects, project, "sessions", id);
    if (fs.existsSync(dir)) return dir;
  }
  throw new Error(`no session ${id}`);
}
const ledgerOf = (id: string): Stored[] => fs.readFileSync(path.join(sessionDir(id), "session.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Stored);
const metaOf = (id: string) => JSON.parse(fs.readFileSync(path.join(sessionDir(id), "meta.json"), "utf8"));
const adoptedId = (stdout: string) => /→ (bs_\w+)/.exec(stdout)?.[1] ?? "";
function allSessions(): string[] {
  const projects = path.join(env.batonHome, "projects");
  if (!fs.existsSync(projects)) return [];
  return fs.readdirSync(projects).flatMap((project) => {
    const dir = path.join(projects, project, "sessions");
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  });
}

describe("baton resume <claude session id>", () => {
  test("imports the history as Baton turns of the claude target, without touching the transcript", async () => {
    await mock.script(reply.text("Hello there."), reply.tool("Bash", { command: "echo imported-output", description: "print" }, { say: "Running it." }), reply.text("It printed."));
    const sid = await nativeTurn("say hello");
    await nativeTurn("run the command", sid);
    const transcript = env.transcriptPath(sid);
    const before = sha(transcript);

    const result = await baton(["resume", sid]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`adopted cc:${sid} → bs_`);
    expect(result.stdout).toContain("(2 turns imported)");
    expect(sha(transcript)).toBe(before);

    const id = adoptedId(result.stdout);
    const ledger = ledgerOf(id);
    const prompts = ledger.filter((e) => e.kind === "user_message").map((e) => JSON.stringify(e.payload["content"]));
    expect(prompts).toEqual([JSON.stringify([{ type: "text", text: "say hello" }]), JSON.stringify([{ type: "text", text: "run the command" }])]);
    const tools = ledger.filter((e) => e.kind === "tool_call_update");
    expect(tools.at(-1)?.payload).toMatchObject({ status: "completed" });
    expect(JSON.stringify(tools.at(-1)?.payload["content"])).toContain("imported-output");
    const idles = ledger.filter((e) => e.kind === "state_update" && e.payload["state"] === "idle");
    expect(idles.map((e) => e.payload["stopReason"])).toEqual(["unknown", "unknown"]);
    expect(idles.every((e) => e.source.type === "harness" && e.source.harnessTargetId === "claude" && e.harnessSessionId === sid)).toBe(true);
    const summaries = readSummaries(ledger as never);
    expect(summaries.map((e) => [e.harnessTargetId, e.userText, e.agentText])).toEqual([
      ["claude", "say hello", "Hello there."],
      ["claude", "run the command", "Running it.\n\nIt printed."],
    ]);
    const meta = metaOf(id);
    expect(meta.adoptedFrom.session).toEqual({ harnessTargetId: "claude", harness: "claude", identity: { id: sid } });
    expect(meta.adoptedFrom.importedThrough).toMatchObject({ version: 1, turnCount: 2 });
    expect(meta.harnessSessions.claude).toMatchObject({ harnessSessionId: sid, resumeState: { version: 1, data: { sessionId: sid } } });
    expect(meta.description).toMatch(/^import: Claude Code /);
    expect(meta.cwd).toBe(fs.realpathSync(env.cwd));
  }, 90_000);

  test("a second import appends only the new tail; a third changes nothing", async () => {
    await mock.script(reply.text("first answer"), reply.text("second answer"));
    const sid = await nativeTurn("first question");
    const first = await baton(["resume", sid]);
    const id = adoptedId(first.stdout);
    await nativeTurn("second question", sid);

    const second = await baton(["resume", `cc:${sid}`]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`adopted cc:${sid} → ${id} (1 turn new)`);
    const summaries = readSummaries(ledgerOf(id) as never).map((summary) => summary.userText);
    expect(summaries).toEqual(["first question", "second question"]);
    expect(metaOf(id).adoptedFrom.importedThrough).toMatchObject({ turnCount: 2 });

    const ledgerBytes = sha(path.join(sessionDir(id), "session.jsonl"));
    const third = await baton(["resume", sid]);
    expect(third.stdout).toContain("(already up to date)");
    expect(sha(path.join(sessionDir(id), "session.jsonl"))).toBe(ledgerBytes);
    expect(allSessions()).toEqual([id]);
  }, 90_000);

  test("the next Baton turn resumes the same native session with no catch-up, and is not imported twice", async () => {
    await mock.script(reply.text("Noted: pineapple."), reply.text("You said pineapple."));
    const sid = await nativeTurn("remember the word pineapple");
    const id = adoptedId((await baton(["resume", sid])).stdout);

    const exec = await baton(["exec", "--session", id, "what word did I say?"]);
    expect(exec.code).toBe(0);
    expect(exec.stdout).toContain("You said pineapple.");
    const requests = await mock.modelRequests();
    const text = allMessageText(requests.at(-1)!.body);
    expect(text).toContain("remember the word pineapple");
    expect(text).toContain("Noted: pineapple.");
    expect(text).not.toContain("<baton-sync>");
    expect(ledgerOf(id).some((e) => e.kind === "_baton_context_snapshot")).toBe(false);
    expect(metaOf(id).harnessSessions.claude.harnessSessionId).toBe(sid);

    const again = await baton(["resume", sid]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("(already up to date)");
    const summaries = readSummaries(ledgerOf(id) as never).map((summary) => summary.userText);
    expect(summaries).toEqual(["remember the word pineapple", "what word did I say?"]);
  }, 90_000);

  test("a rewritten native history is refused and nothing is written", async () => {
    await mock.script(reply.text("original answer"), reply.text("later answer"));
    const sid = await nativeTurn("question one");
    const id = adoptedId((await baton(["resume", sid])).stdout);
    await nativeTurn("question two", sid);
    const transcript = env.transcriptPath(sid);
    fs.writeFileSync(transcript, fs.readFileSync(transcript, "utf8").replace("original answer", "rewritten answer"));
    const ledgerBytes = sha(path.join(sessionDir(id), "session.jsonl"));
    const metaBytes = sha(path.join(sessionDir(id), "meta.json"));

    const result = await baton(["resume", sid]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot update ${id}`);
    expect(result.stderr).toContain("no longer what Baton imported");
    expect(result.stderr).toContain("diverged");
    expect(sha(path.join(sessionDir(id), "session.jsonl"))).toBe(ledgerBytes);
    expect(sha(path.join(sessionDir(id), "meta.json"))).toBe(metaBytes);
  }, 90_000);

  test("a session whose last prompt has no answer yet is not imported", async () => {
    await mock.script(reply.text("an answer"));
    const sid = await nativeTurn("a question");
    const transcript = env.transcriptPath(sid);
    const lines = fs.readFileSync(transcript, "utf8").trimEnd().split("\n");
    const lastPrompt = lines.findLastIndex((line) => line.includes('"type":"user"') && line.includes("a question"));
    const cut = "11111111-2222-4333-8444-555555555555";
    fs.writeFileSync(env.transcriptPath(cut), `${lines.slice(0, lastPrompt + 1).join("\n").replaceAll(sid, cut)}\n`);

    const result = await baton(["resume", cut]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is not finished: its last prompt has no answer yet");
    expect(result.stderr.trim().split("\n").length).toBeLessThanOrEqual(2);
    expect(allSessions()).toEqual([]);
  }, 90_000);
});

describe("native ids: references and fork", () => {
  test("unknown ids, unknown prefixes and bs_ ids that do not exist are usage errors (exit 2) that write nothing", async () => {
    const unknown = await baton(["resume", "00000000-0000-4000-8000-000000000000"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no Baton session or native session matches 00000000-0000-4000-8000-000000000000");
    const prefix = await baton(["resume", "nope:00000000-0000-4000-8000-000000000000"]);
    expect(prefix.code).toBe(2);
    expect(prefix.stderr).toContain("unknown target 'nope'");
    const missingBs = await baton(["fork", "bs_01XYZ"]);
    expect(missingBs.code).toBe(2);
    expect(allSessions()).toEqual([]);
  }, 60_000);

  test("baton fork <native id> adopts it into one owner and forks a child that keeps no native binding", async () => {
    await mock.script(reply.text("forkable answer"));
    const sid = await nativeTurn("fork me");
    const result = await baton(["fork", sid]);
    expect(result.code).toBe(0);
    const owner = adoptedId(result.stdout);
    const child = /forked (bs_\w+) → (bs_\w+)/.exec(result.stdout);
    expect(child?.[1]).toBe(owner);
    const childId = child?.[2] ?? "";
    expect(metaOf(owner).harnessSessions.claude.harnessSessionId).toBe(sid);
    expect(metaOf(childId).harnessSessions).toEqual({ claude: { harnessTargetId: "claude", harness: "claude" } });
    expect(metaOf(childId).forkedFrom.batonSessionId).toBe(owner);
    expect(readSummaries(ledgerOf(childId) as never).map((summary) => summary.userText)).toEqual(["fork me"]);
    expect(allSessions().sort()).toEqual([owner, childId].sort());
  }, 90_000);
});
