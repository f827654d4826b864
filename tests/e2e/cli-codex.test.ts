/**
 * Issue 4 end to end through the CLI: the real `baton` process driving the real `codex app-server`
 * against the project's mock Responses API. Asserts on what the mock received and on the ledger.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { MockResponses } from "../support/mock-responses/index.ts";
import type { CodexHome } from "../support/codex-home.ts";
import { execSessionId, useCodexCliRig } from "../support/codex-cli-rig.ts";
import { runBaton, spawnBaton, waitUntil } from "../support/baton-process.ts";
import { commandOf, descendants, tryKill } from "../support/processes.ts";

// Codex's own configuration asks before escalating out of the read-only sandbox.
const rig = useCodexCliRig({ fresh: "each", codex: { approvalPolicy: "on-request", sandboxMode: "read-only" } });
let mock: MockResponses;
let home: CodexHome;
let env: Record<string, string>;
beforeEach(() => void ({ mock, home, env } = rig));

const exec = (args: string[]) => runBaton(["exec", ...args], { env, cwd: home.workdir, stdin: "" });
const sessionOf = execSessionId;

function ledgerOf(sessionId: string): { kind: string; payload: Record<string, unknown>; turnId?: string }[] {
  const projects = path.join(env["BATON_HOME"]!, "projects");
  for (const project of readdirSync(projects)) {
    const file = path.join(projects, project, "sessions", sessionId, "session.jsonl");
    if (existsSync(file)) return readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
  }
  throw new Error(`no ledger for ${sessionId}`);
}

const requestText = (request: { body: unknown }) => JSON.stringify(request.body);

describe("baton exec --agent codex", () => {
  test("completes a text turn", async () => {
    await mock.script([{ kind: "text", text: "Hello from Codex." }]);
    const result = await exec(["--agent", "codex", "say hello"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello from Codex.\n");
    expect(result.stderr).toMatch(/turn t_\w+ end_turn$/m);
    const requests = await mock.requests();
    expect(requestText(requests[0]!)).toContain("say hello");
  }, 60_000);

  test("a command needing approval runs with --approve allow (file on disk) and not with --approve deny (declined)", async () => {
    await mock.script([{ kind: "exec", cmd: "echo yes > allowed.txt", escalate: true }, { kind: "text", text: "created" }]);
    const allowed = await exec(["--approve", "allow", "create the file"]);
    expect(allowed.code).toBe(0);
    expect(existsSync(path.join(home.workdir, "allowed.txt"))).toBe(true);

    await mock.reset();
    await mock.script([{ kind: "exec", cmd: "echo no > denied.txt", escalate: true }, { kind: "text", text: "ok, not created" }]);
    const denied = await exec(["create the other file"]);
    // Codex offers no plain decline for an escalation: the reject-once choice is its `cancel`, which ends the turn.
    expect([0, 1]).toContain(denied.code);
    expect(existsSync(path.join(home.workdir, "denied.txt"))).toBe(false);
    const ledger = ledgerOf(sessionOf(denied.stderr));
    const statuses = ledger.filter((e) => e.kind === "tool_call_update").map((e) => e.payload["status"]).filter(Boolean);
    expect(statuses.at(-1)).toBe("declined");
    expect(ledger.find((e) => e.kind === "interaction.resolved")?.payload["resolution"]).toMatchObject({ outcome: "selected", answeredBy: "cli-policy:deny" });
  }, 60_000);

  test("SIGINT mid-stream ends the turn cancelled (exit 130)", async () => {
    await mock.script([{ kind: "text", text: "slow ".repeat(100), chunkSize: 5, delayMs: 100 }]);
    const child = spawnBaton(["exec", "go slowly"], { env, cwd: home.workdir });
    await waitUntil(() => child.stdout().includes("slow"), 30_000, "streamed text");
    child.signal("SIGINT");
    const result = await child.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/ cancelled$/m);
  }, 60_000);

  test("SIGINT while Codex is still starting (its app-server hangs before the handshake): exec ends the turn cancelled at once, without waiting out the handshake timeout", async () => {
    const codex = path.resolve(import.meta.dir, "../../node_modules/.bin/codex");
    expect(existsSync(codex)).toBe(true);
    // The real Codex, stopped before it runs: the binding's open waits for an initialize answer that never comes.
    mkdirSync(env["BATON_HOME"]!, { recursive: true });
    writeFileSync(path.join(env["BATON_HOME"]!, "config.yaml"), `harnesses:\n  codex:\n    command: ["sh", "-c", "kill -STOP $$; exec '${codex}' app-server"]\n`);
    const child = spawnBaton(["exec", "hello while starting"], { env, cwd: home.workdir });
    let stopped: number[] = [];
    try {
      await waitUntil(() => (stopped = descendants(child.pid).filter((pid) => commandOf(pid).includes("kill -STOP"))).length > 0, 20_000, "the stopped app-server");
      // exec starts the app-server before it opens the session: the turn is starting once it says so.
      await waitUntil(() => child.stderr().includes("Starting Codex"), 20_000, "the turn's start");
      child.signal("SIGINT");
      // The handshake timeout is 30 s: an exit within 20 s did not wait for it.
      await waitUntil(() => child.exited(), 20_000, "baton exec to exit after SIGINT while the harness was starting");
      const result = await child.done;
      expect(result.code).toBe(130);
      expect(result.stderr).toMatch(/ cancelled$/m);
    } finally {
      for (const pid of [...stopped, ...descendants(child.pid)]) tryKill(pid);
      child.signal("SIGKILL");
    }
  }, 60_000);

  test("a second exec --session resumes the same thread (the mock sees the whole history)", async () => {
    await mock.script([{ kind: "text", text: "Noted: pineapple." }, { kind: "text", text: "You said pineapple." }]);
    const first = await exec(["remember the word pineapple"]);
    const id = sessionOf(first.stderr);
    const second = await exec(["--session", id, "what word did I say?"]);
    expect(second.code).toBe(0);
    const requests = await mock.requests();
    const text = requestText(requests.at(-1)!);
    expect(text).toContain("remember the word pineapple");
    expect(text).toContain("Noted: pineapple.");
    const ledger = ledgerOf(id);
    const threads = new Set(ledger.map((e) => (e as { harnessSessionId?: string }).harnessSessionId).filter(Boolean));
    expect(threads.size).toBe(1);
  }, 60_000);

  test("the mock returning 500 fails the turn with the error text (exit 1)", async () => {
    await mock.script([{ kind: "http_error", status: 500, body: "upstream exploded" }]);
    const result = await exec(["hello?"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("[error]");
    // Codex words a 500 its own way; the error is shown, not swallowed
    expect(result.stderr).toMatch(/\[error\] \S.+/);
    expect(result.stderr).toMatch(/ failed$/m);
  }, 60_000);

  test("kill -9 of the app-server mid-turn fails the turn with a visible error; the next turn works", async () => {
    await mock.script([{ kind: "text", text: "slow ".repeat(200), chunkSize: 5, delayMs: 100 }]);
    const child = spawnBaton(["exec", "go slowly"], { env, cwd: home.workdir });
    await waitUntil(() => child.stdout().includes("slow"), 30_000, "streamed text");
    const appServer = descendants(child.pid).find((pid) => commandOf(pid).includes("app-server"));
    expect(appServer).toBeDefined();
    process.kill(appServer!, "SIGKILL");
    const result = await child.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("[error]");
    expect(result.stderr).toMatch(/ failed$/m);
    await mock.reset();
    await mock.script([{ kind: "text", text: "alive again" }]);
    const next = await exec(["--session", sessionOf(result.stderr), "are you there?"]);
    expect(next.code).toBe(0);
    expect(next.stdout).toContain("alive again");
  }, 60_000);
});

describe("baton exec --model / --effort with Codex (#11.6)", () => {
  test("checked against the app-server's catalog before the turn: unknown values exit 2 and nothing is saved", async () => {
    const state = path.join(env["BATON_HOME"]!, "state");
    const bad = await exec(["--model", "nonsense", "hello"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--model: codex has no model 'nonsense'");
    expect(bad.stderr).toContain("Choose one of: default, mock-model");
    // The mock catalog's model lists no reasoning efforts.
    const effort = await exec(["--effort", "low", "hello"]);
    expect(effort.code).toBe(2);
    expect(effort.stderr).toContain("--effort: codex has no effort 'low'");
    expect(existsSync(state)).toBe(false);
    expect(await mock.requests()).toEqual([]);

    await mock.script([{ kind: "text", text: "on the mock model" }]);
    const ok = await exec(["--model", "mock-model", "hello"]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(state, "model.json"), "utf8"))).toEqual({ models: { codex: "mock-model" } });
  }, 60_000);
});

describe("baton doctor and the default agent (#11.16)", () => {
  const doctor = (extra: Record<string, string> = {}) => runBaton(["doctor"], { env: { ...env, BATON_DEFAULT_AGENT: "", ...extra }, cwd: home.workdir, stdin: "" });
  const config = (text: string) => {
    mkdirSync(env["BATON_HOME"]!, { recursive: true });
    mkdirSync(env["BATON_HOME"]!, { recursive: true });
    writeFileSync(path.join(env["BATON_HOME"]!, "config.yaml"), text);
  };

  test("a working default agent: 0 problems, exit 0", async () => {
    const result = await doctor();
    expect(result.stdout).toContain("ok    defaultAgent: codex: new sessions start there");
    expect(result.stdout).toMatch(/ok {4}codex: /);
    expect(result.stdout).toMatch(/^0 problems/m);
    expect(result.code).toBe(0);
  }, 60_000);

  test("defaultAgent naming no target is a problem with config.yaml, line and key (or the variable); exit 1", async () => {
    config("showThoughts: true\ndefaultAgent: nope\n");
    const fromFile = await doctor();
    expect(fromFile.code).toBe(1);
    expect(fromFile.stdout).toContain(`FAIL  ${path.join(env["BATON_HOME"]!, "config.yaml")}:2: defaultAgent: unknown target 'nope'. Known targets: codex (cx), claude (cc)`);
    expect(fromFile.stdout).toMatch(/^1 problem,/m);
    config("");
    const fromEnv = await doctor({ BATON_DEFAULT_AGENT: "nope" });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stdout).toContain("FAIL  environment BATON_DEFAULT_AGENT (defaultAgent): unknown target 'nope'");
  }, 60_000);

  test("the default agent's executable missing or broken is a problem; another agent's is a warning", async () => {
    config('harnesses:\n  codex:\n    command: ["/nonexistent/codex", "app-server"]\n');
    const missing = await doctor();
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/FAIL {2}codex: not usable \(searched .*\/nonexistent\/codex.*\(it is the default agent\)/);
    const broken = path.join(home.root, "broken-codex");
    writeFileSync(broken, "#!/bin/sh\necho 'codex: cannot load its runtime' >&2\nexit 3\n", { mode: 0o755 });
    config(`harnesses:\n  codex:\n    command: ["${broken}", "app-server"]\n`);
    const fails = await doctor();
    expect(fails.code).toBe(1);
    expect(fails.stdout).toContain("`--version` failed: exit 3: codex: cannot load its runtime");
    // The same broken codex while claude is the default: only a warning.
    config(`defaultAgent: claude\nharnesses:\n  codex:\n    command: ["${broken}", "app-server"]\n`);
    const other = await doctor();
    expect(other.stdout).toMatch(/warn {2}codex: not usable/);
    expect(other.stdout).toContain("ok    defaultAgent: claude: new sessions start there");
    expect(other.stdout).toMatch(/ok {4}claude: /);
    expect(other.code).toBe(0);
  }, 60_000);
});

describe("baton repl --agent codex", () => {
  test("answers an approval inline", async () => {
    await mock.script([{ kind: "exec", cmd: "echo inline > inline.txt", escalate: true }, { kind: "text", text: "made it" }]);
    const child = spawnBaton(["repl", "--agent", "codex"], { env, cwd: home.workdir });
    await waitUntil(() => child.stdout().includes("you> "), 20_000, "the prompt");
    child.write("make the file\n");
    await waitUntil(() => /choose 1-\d/.test(child.stdout()), 30_000, "the approval card");
    const options = child.stdout().split("[approval]")[1] ?? "";
    const allowIndex = options.split("\n").findIndex((line) => /^\s+\d\) .*(Allow|Yes|Approve|accept)/i.test(line));
    const number = /^\s+(\d)\)/.exec(options.split("\n")[allowIndex] ?? "")?.[1] ?? "1";
    child.write(`${number}\n`);
    await waitUntil(() => child.stdout().includes("— turn done"), 30_000, "the end of the turn");
    child.write("/exit\n");
    const result = await child.done;
    expect(result.code).toBe(0);
    expect(existsSync(path.join(home.workdir, "inline.txt"))).toBe(true);
  }, 60_000);
});

describe("baton repl: a file-change approval shows the diff before the choice (#11.9)", () => {
  test("the patch lines come before the numbered options", async () => {
    await mock.script([
      { kind: "apply_patch", patch: "*** Begin Patch\n*** Add File: repl-notes.txt\n+written from the repl\n*** End Patch" },
      { kind: "text", text: "added it" },
    ]);
    const child = spawnBaton(["repl", "--agent", "codex"], { env, cwd: home.workdir });
    await waitUntil(() => child.stdout().includes("you> "), 20_000, "the prompt");
    child.write("add the notes\n");
    await waitUntil(() => /choose 1-\d/.test(child.stdout()), 30_000, "the approval card");
    const card = child.stdout().slice(child.stdout().indexOf("[approval]"));
    expect(card).toMatch(/\n {4}\+written from the repl\n/);
    expect(card.indexOf("+written from the repl")).toBeLessThan(card.indexOf("1) "));
    child.write("1\n");
    await waitUntil(() => child.stdout().includes("— turn done"), 30_000, "the end of the turn");
    child.write("/exit\n");
    expect((await child.done).code).toBe(0);
    expect(readFileSync(path.join(home.workdir, "repl-notes.txt"), "utf8")).toBe("written from the repl\n");
  }, 60_000);
});

describe("control sequences from the agent and its tools (#11.11)", () => {
  const ESC = "\u001b";
  // eslint-disable-next-line no-control-regex
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
  const hostile = `copy${ESC}]52;c;cHduZWQ=\u0007 title${ESC}]0;pwned\u0007 clear${ESC}[2J done`;
  const script = () => mock.script([{ kind: "exec", cmd: `echo ${ESC}]2;pwned\u0007hi` }, { kind: "text", text: hostile, chunkSize: 7 }]);

  test("exec prints agent text and tool lines without them; --json keeps them, JSON-escaped", async () => {
    await script();
    const result = await exec(["--approve", "allow", "say something"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("copy title clear done\n");
    expect(result.stderr).toMatch(/\[tool:\w+\] .*echo hi/);
    expect(CONTROL.test(result.stdout + result.stderr)).toBe(false);

    await mock.reset();
    await script();
    const json = await exec(["--json", "--approve", "allow", "say something"]);
    expect(json.code).toBe(0);
    expect(CONTROL.test(json.stdout)).toBe(false);
    const events = json.stdout.trim().split("\n").map((line) => JSON.parse(line) as { kind: string; payload: { content?: { text?: string }[] } });
    const message = events.find((e) => e.kind === "agent_message");
    expect(message?.payload.content?.[0]?.text).toBe(hostile);
  }, 60_000);

  test("repl prints them without the sequences", async () => {
    await script();
    const result = await runBaton(["repl"], { env, cwd: home.workdir, stdin: "say something\n/exit\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("copy title clear done");
    expect(CONTROL.test(result.stdout + result.stderr)).toBe(false);
  }, 60_000);
});

describe("a missing codex binary", () => {
  test("fails the turn at admission with what was tried and how to install; the prompt stays", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(env["BATON_HOME"]!, { recursive: true });
    mkdirSync(env["BATON_HOME"]!, { recursive: true });
    writeFileSync(path.join(env["BATON_HOME"]!, "config.yaml"), 'harnesses:\n  codex:\n    command: ["/nonexistent/codex", "app-server"]\n');
    const result = await exec(["--agent", "codex", "are you there?"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("/nonexistent/codex");
    expect(result.stderr).toContain("npm install -g @openai/codex");
    const ledger = ledgerOf(sessionOf(result.stderr));
    expect(ledger.find((e) => e.kind === "user_message")).toBeDefined();
    expect(ledger.filter((e) => e.kind === "state_update").map((e) => e.payload["stopReason"] ?? e.payload["state"])).toEqual(["running", "error"]);
  }, 60_000);
});
