/**
 * Importing native Codex threads (NAT-03/06/07) end to end: threads are created by the real `codex exec` against
 * the mock Responses API, then `baton resume <thread id>` runs as a real process (its inspector starts a
 * temporary `codex app-server`). The rollout files must stay byte-identical; the next Baton turn resumes the thread.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { resolveInstalledCodex } from "../../src/harness/codex/executable.ts";
import type { MockResponses } from "../support/mock-responses/index.ts";
import type { CodexHome } from "../support/codex-home.ts";
import { useCodexCliRig } from "../support/codex-cli-rig.ts";
import { runBaton } from "../support/baton-process.ts";
import { readSummaries } from "../support/summaries.ts";

const codex = resolveInstalledCodex();
const rig = useCodexCliRig({ fresh: "each", codex: { approvalPolicy: "never", sandboxMode: "danger-full-access" } });
let mock: MockResponses;
let home: CodexHome;
let env: Record<string, string>;
beforeEach(() => void ({ mock, home, env } = rig));

const execArgs = (prompt: string, resume?: string) => ["exec", "--json", "--skip-git-repo-check", ...(resume === undefined ? [] : ["resume", resume]), prompt];

/** One turn in Codex itself (`codex exec`, not through Baton); returns the thread id. */
function nativeTurn(prompt: string, resume?: string): string {
  const run = spawnSync(codex as string, execArgs(prompt, resume), { cwd: home.workdir, env: home.env, input: "", encoding: "utf8", timeout: 60_000 });
  const threadId = /"thread_id":"([^"]+)"/.exec(run.stdout)?.[1] ?? resume;
  if (run.status !== 0 || threadId === undefined) throw new Error(`codex exec failed (${run.status}): ${run.stderr}`);
  return threadId;
}

const baton = (args: string[]) => runBaton(args, { env, cwd: home.workdir });

function rolloutHashes(): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (dir: string): void => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else out[full] = createHash("sha256").update(fs.readFileSync(full)).digest("hex");
    }
  };
  visit(path.join(home.codexHome, "sessions"));
  return out;
}

interface Stored {
  kind: string;
  payload: Record<string, unknown>;
  source: { type: string; harnessTargetId?: string };
  harnessTargetId?: string;
  harnessSessionId?: string;
}
function sessionDir(id: string): string {
  const projects = path.join(env["BATON_HOME"] as string, "projects");
  for (const project of fs.readdirSync(projects)) {
    const dir = path.join(projects, project, "sessions", id);
    if (fs.existsSync(dir)) return dir;
  }
  throw new Error(`no session ${id}`);
}
const ledgerOf = (id: string): Stored[] => fs.readFileSync(path.join(sessionDir(id), "session.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Stored);
const metaOf = (id: string) => JSON.parse(fs.readFileSync(path.join(sessionDir(id), "meta.json"), "utf8"));
const adoptedId = (stdout: string) => /→ (bs_\w+)/.exec(stdout)?.[1] ?? "";
const summaries = (id: string) => readSummaries(ledgerOf(id) as never).map((summary) => summary.userText);
function allSessions(): string[] {
  const projects = path.join(env["BATON_HOME"] as string, "projects");
  if (!fs.existsSync(projects)) return [];
  return fs.readdirSync(projects).flatMap((project) => {
    const dir = path.join(projects, project, "sessions");
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  });
}

describe.skipIf(codex === undefined)("baton resume <codex thread id>", () => {
  test("imports the thread as Baton turns of the codex target, leaving the rollout byte-identical", async () => {
    await mock.script([{ kind: "text", text: "hello from codex", reasoning: ["thinking about it"] }, { kind: "exec", cmd: "echo codex-out" }, { kind: "text", text: "ran it" }]);
    const tid = nativeTurn("say hello");
    nativeTurn("run a command", tid);
    const before = rolloutHashes();
    expect(Object.keys(before).length).toBeGreaterThan(0);

    const result = await baton(["resume", tid]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`adopted cx:${tid} → bs_`);
    expect(result.stdout).toContain("(2 turns imported)");
    expect(rolloutHashes()).toEqual(before);

    const id = adoptedId(result.stdout);
    const ledger = ledgerOf(id);
    expect(ledger.filter((e) => e.kind === "agent_thought").map((e) => JSON.stringify(e.payload["content"]))).toEqual([JSON.stringify([{ type: "text", text: "thinking about it" }])]);
    const tool = ledger.find((e) => e.kind === "tool_call_update");
    expect(tool?.payload).toMatchObject({ kind: "execute", status: "completed" });
    expect(JSON.stringify(tool?.payload["content"])).toContain("codex-out");
    const idles = ledger.filter((e) => e.kind === "state_update" && e.payload["state"] === "idle");
    expect(idles.map((e) => e.payload["stopReason"])).toEqual(["end_turn", "end_turn"]);
    expect(idles.every((e) => e.source.type === "harness" && e.harnessTargetId === "codex" && e.harnessSessionId === tid)).toBe(true);
    expect(summaries(id)).toEqual(["say hello", "run a command"]);
    const meta = metaOf(id);
    expect(meta.adoptedFrom.session).toEqual({ harnessTargetId: "codex", harness: "codex", identity: { id: tid } });
    expect(meta.harnessSessions.codex).toMatchObject({ harnessSessionId: tid, resumeState: { version: 1, data: { threadId: tid } } });
  }, 120_000);

  test("cx: pins Codex; a second import appends only the new tail", async () => {
    await mock.script([{ kind: "text", text: "one" }, { kind: "text", text: "two" }]);
    const tid = nativeTurn("first");
    const id = adoptedId((await baton(["resume", `cx:${tid}`])).stdout);
    nativeTurn("second", tid);
    const again = await baton(["resume", `codex:${tid}`]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`→ ${id} (1 turn new)`);
    expect(summaries(id)).toEqual(["first", "second"]);
    expect(allSessions()).toEqual([id]);
  }, 120_000);

  test("the next Baton turn resumes the same thread (the model sees the earlier history) without catch-up", async () => {
    await mock.script([{ kind: "text", text: "Noted: pineapple." }, { kind: "text", text: "You said pineapple." }]);
    const tid = nativeTurn("remember the word pineapple");
    const id = adoptedId((await baton(["resume", tid])).stdout);
    const exec = await baton(["exec", "--session", id, "what word did I say?"]);
    expect(exec.code).toBe(0);
    expect(exec.stdout).toContain("You said pineapple.");
    const last = JSON.stringify((await mock.requests()).at(-1)?.body);
    expect(last).toContain("remember the word pineapple");
    expect(last).toContain("Noted: pineapple.");
    expect(last).not.toContain("baton-sync");
    expect(ledgerOf(id).some((e) => e.kind === "_baton_context_snapshot")).toBe(false);
    expect(metaOf(id).harnessSessions.codex.harnessSessionId).toBe(tid);
    const again = await baton(["resume", tid]);
    expect(again.stdout).toContain("(already up to date)");
    expect(summaries(id)).toEqual(["remember the word pineapple", "what word did I say?"]);
  }, 120_000);

  test("a rewritten past turn is refused as diverged", async () => {
    await mock.script([{ kind: "text", text: "original words" }, { kind: "text", text: "more words" }]);
    const tid = nativeTurn("tell me something");
    const id = adoptedId((await baton(["resume", tid])).stdout);
    nativeTurn("and more", tid);
    // Codex serves stored turns from its thread-history database (the rollout is its log): rewrite both.
    for (const file of Object.keys(rolloutHashes())) fs.writeFileSync(file, fs.readFileSync(file, "utf8").replaceAll("original words", "different words"));
    const historyDb = fs.readdirSync(home.codexHome).find((name) => /^thread_history_\d+\.sqlite$/.test(name));
    expect(historyDb).toBeDefined();
    const db = new Database(path.join(home.codexHome, historyDb as string));
    db.run("update thread_items set item_json = replace(item_json, 'original words', 'different words')");
    db.close();
    const ledgerBefore = fs.readFileSync(path.join(sessionDir(id), "session.jsonl"));
    const result = await baton(["resume", tid]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no longer what Baton imported");
    expect(result.stderr).toContain("diverged");
    expect(fs.readFileSync(path.join(sessionDir(id), "session.jsonl")).equals(ledgerBefore)).toBe(true);
  }, 120_000);

  test("a thread whose turn is still running in another Codex process cannot be adopted", async () => {
    await mock.script([{ kind: "text", text: "done" }, { kind: "hang" }]);
    const tid = nativeTurn("one");
    const running = spawn(codex as string, execArgs("two", tid), { cwd: home.workdir, env: home.env, stdio: ["ignore", "pipe", "ignore"] });
    try {
      let out = "";
      running.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const deadline = Date.now() + 30_000;
      while (!out.includes("turn.started") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const result = await baton(["resume", tid]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("has a turn in progress");
      expect(allSessions()).toEqual([]);
    } finally {
      if (running.pid !== undefined) process.kill(running.pid, "SIGKILL");
    }
  }, 120_000);
});
