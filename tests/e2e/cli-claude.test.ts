/**
 * Issue 5 end to end through the CLI: the real `baton` process driving the real Claude Code (Agent SDK)
 * against the project's mock Anthropic API. Asserts on what the mock received and on the ledger.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { allMessageText, reply, toolResultsOf } from "../support/mock-anthropic/script.ts";
import { useClaudeEnvEach, useMockAnthropic } from "../support/claude-rig.ts";
import { runBaton, spawnBaton, waitUntil } from "../support/baton-process.ts";

const mock = useMockAnthropic();
const env = useClaudeEnvEach(mock);

const exec = (args: string[], stdin?: string) => runBaton(["exec", ...args], { env: env.env, cwd: env.cwd, ...(stdin === undefined ? {} : { stdin }) });

function ledgerOf(sessionId: string): { kind: string; payload: Record<string, unknown>; turnId?: string }[] {
  const projects = path.join(env.batonHome, "projects");
  for (const project of readdirSync(projects)) {
    const file = path.join(projects, project, "sessions", sessionId, "session.jsonl");
    if (existsSync(file)) return readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
  }
  throw new Error(`no ledger for ${sessionId}`);
}

const sessionOf = (stderr: string) => /baton: session (bs_\w+) turn/.exec(stderr)?.[1] ?? "";

describe("baton exec --agent claude", () => {
  test("completes a text turn", async () => {
    await mock.script(reply.text("Hello from Claude."));
    const result = await exec(["--agent", "claude", "say hello"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello from Claude.\n");
    expect(result.stderr).toMatch(/turn t_\w+ end_turn$/m);
    const requests = await mock.modelRequests();
    expect(allMessageText(requests[0]!.body)).toContain("say hello");
  }, 60_000);

  test("prints its starting status once, though both Baton and the adapter announce the start (#11.15)", async () => {
    await mock.script(reply.text("Hello."));
    const result = await exec(["--agent", "claude", "say hello"]);
    expect(result.code).toBe(0);
    expect(result.stderr.split("\n").filter((line) => line.startsWith("[status] "))).toEqual(["[status] Starting Claude Code…"]);
    // Both announcements are in the ledger: what was deduplicated is the printing.
    const starts = ledgerOf(sessionOf(result.stderr)).filter((e) => e.kind === "_baton_run_status" && e.payload["phase"] === "starting");
    expect(starts.length).toBe(2);
  }, 60_000);

  test("Bash runs with --approve allow (file on disk) and not with --approve deny (declined; the model got the denial)", async () => {
    await mock.script(reply.tool("Bash", { command: "touch allowed.txt", description: "create a file" }), reply.text("created"));
    const allowed = await exec(["--approve", "allow", "create the file"]);
    expect(allowed.code).toBe(0);
    expect(existsSync(path.join(env.cwd, "allowed.txt"))).toBe(true);

    await mock.reset();
    await mock.script(reply.tool("Bash", { command: "touch denied.txt", description: "create a file" }), reply.text("ok, not created"));
    const denied = await exec(["create the other file"]);
    expect(denied.code).toBe(0);
    expect(existsSync(path.join(env.cwd, "denied.txt"))).toBe(false);
    const ledger = ledgerOf(sessionOf(denied.stderr));
    const statuses = ledger.filter((e) => e.kind === "tool_call_update").map((e) => e.payload["status"]).filter(Boolean);
    expect(statuses.at(-1)).toBe("declined");
    const resolved = ledger.find((e) => e.kind === "interaction.resolved");
    expect(resolved?.payload["resolution"]).toMatchObject({ outcome: "selected", answeredBy: "cli-policy:deny" });
    const [result] = toolResultsOf((await mock.modelRequests())[1]!.body);
    expect(result).toMatchObject({ is_error: true });
  }, 60_000);

  test("a second exec --session resumes the same Claude session (the mock sees the earlier history)", async () => {
    await mock.script(reply.text("The secret word is noted."), reply.text("You said pineapple."));
    const first = await exec(["remember the word pineapple"]);
    const id = sessionOf(first.stderr);
    const second = await exec(["--session", id, "what word did I say?"]);
    expect(second.code).toBe(0);
    const requests = await mock.modelRequests();
    const text = allMessageText(requests[1]!.body);
    expect(text).toContain("remember the word pineapple");
    expect(text).toContain("The secret word is noted.");
    const meta = JSON.parse(readFileSync(path.join(path.dirname(findLedger(id)), "meta.json"), "utf8"));
    expect(meta.harnessSessions.claude.harnessSessionId).toMatch(/^[0-9a-f-]{36}$/);
  }, 60_000);

  test("a turn stores what it needs once (#12.14): the unchanged command list is not recorded again by a second process; init and result raws are excerpts naming the messages the native trace holds whole", async () => {
    await mock.script(reply.text("one"), reply.text("two"));
    const first = await exec(["first"]);
    const id = sessionOf(first.stderr);
    expect((await exec(["--session", id, "second"])).code).toBe(0);
    type Line = { kind: string; payload: Record<string, unknown>; raw?: Record<string, unknown> };
    const ledger = ledgerOf(id) as Line[];
    const commands = ledger.filter((e) => e.kind === "available_commands_update");
    expect(commands.length).toBe(1);
    const names = (commands[0]!.payload["commands"] as { name: string }[]).map((c) => c.name);
    expect(names).toContain("compact");
    expect(Object.keys(commands[0]!.raw ?? {}).sort()).toEqual(["session_id", "subtype", "type", "uuid"]);
    const usages = ledger.filter((e) => e.kind === "usage_update");
    expect(usages.length).toBe(2);
    for (const usage of usages) expect(Object.keys(usage.raw ?? {}).sort()).toEqual(["session_id", "subtype", "type", "usage", "uuid"]);
    // Nothing is lost: the native trace has the init and result messages the raws name, whole.
    const trace = readFileSync(path.join(path.dirname(findLedger(id)), "native-claude.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { msg?: Record<string, unknown> });
    const byUuid = (uuid: unknown) => trace.find((line) => line.msg?.["uuid"] === uuid)?.msg;
    expect(byUuid(commands[0]!.raw?.["uuid"])).toMatchObject({ type: "system", subtype: "init", slash_commands: names, tools: expect.arrayContaining(["Bash"]) });
    for (const usage of usages) expect(byUuid(usage.raw?.["uuid"])).toMatchObject({ type: "result", usage: usage.raw?.["usage"], modelUsage: expect.any(Object) });
  }, 60_000);

  test("SIGINT during a slow stream ends the turn cancelled (exit 130) and the session continues", async () => {
    await mock.script(reply.text("slow ".repeat(80), { chunkSize: 5, chunkDelayMs: 100 }), reply.text("back again"));
    const child = spawnBaton(["exec", "go slowly"], { env: env.env, cwd: env.cwd });
    await waitUntil(() => child.stdout().includes("slow"), 30_000, "streamed text");
    child.signal("SIGINT");
    const result = await child.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/ cancelled$/m);
    const id = sessionOf(result.stderr);
    const kinds = ledgerOf(id).map((e) => `${e.kind}:${String(e.payload["stopReason"] ?? e.payload["title"] ?? "")}`);
    expect(kinds).toContain("state_update:cancelled");
    expect(kinds).toContain("_baton_notice:Conversation interrupted — tell the agent what to do differently");
    const next = await exec(["--session", id, "continue"]);
    expect(next.code).toBe(0);
    expect(next.stdout).toContain("back again");
  }, 60_000);

  test("TodoWrite shows as a plan", async () => {
    const todos = [
      { content: "Write the code", status: "in_progress", activeForm: "Writing" },
      { content: "Test it", status: "pending", activeForm: "Testing" },
    ];
    await mock.script(reply.tool("TodoWrite", { todos }), reply.text("Planned."));
    const result = await runBaton(["exec", "plan it"], { env: { ...env.env, CLAUDE_CODE_ENABLE_TASKS: "false", CLAUDE_CODE_ENABLE_TODO_TOOLS: "1" }, cwd: env.cwd, stdin: "" });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("[plan] › Write the code  · Test it");
  }, 60_000);

  test("an HTTP 401 from the API fails the turn with the error text (exit 1)", async () => {
    await mock.script(reply.error(401, "invalid x-api-key", "authentication_error"));
    const result = await exec(["hello?"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("[error]");
    expect(result.stderr.toLowerCase()).toMatch(/api key|401|authentication/);
    expect(result.stderr).toMatch(/ failed$/m);
  }, 60_000);
});

describe("baton repl --agent claude", () => {
  test("AskUserQuestion answered by number reaches the model", async () => {
    const question = { question: "Which color?", header: "Color", options: [{ label: "Red", description: "warm" }, { label: "Blue", description: "cool" }], multiSelect: false };
    await mock.script(reply.tool("AskUserQuestion", { questions: [question] }), reply.text("Blue it is."));
    const child = spawnBaton(["repl", "--agent", "claude"], { env: env.env, cwd: env.cwd });
    await waitUntil(() => child.stdout().includes("you> "), 20_000, "the prompt");
    child.write("pick a color for me\n");
    await waitUntil(() => child.stdout().includes("Which color?"), 30_000, "the question");
    child.write("2\n");
    await waitUntil(() => child.stdout().includes("— turn done"), 30_000, "the end of the turn");
    child.write("/exit\n");
    const result = await child.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Blue it is.");
    const [toolResult] = toolResultsOf((await mock.modelRequests())[1]!.body);
    expect(JSON.stringify(toolResult)).toContain("Blue");
  }, 60_000);
});

describe("reopening a session continues on the target it last drove (#11.1)", () => {
  test("exec --continue, exec --session and repl --session run on claude although defaultAgent is codex; --agent still wins", async () => {
    // defaultAgent codex points at a binary that does not exist: a turn sent there fails instead of reaching the network.
    writeFileSync(path.join(env.batonHome, "config.yaml"), 'defaultAgent: codex\nharnesses:\n  codex:\n    command: ["/nonexistent/codex", "app-server"]\n');
    const withDefault = { ...env.env, BATON_DEFAULT_AGENT: "" };
    const run = (args: string[], stdin = "") => runBaton(args, { env: withDefault, cwd: env.cwd, stdin });
    await mock.script(reply.text("first on claude"), reply.text("continued on claude"), reply.text("by id on claude"), reply.text("repl on claude"));
    const first = await run(["exec", "--agent", "claude", "hello"]);
    expect(first.code).toBe(0);
    const id = sessionOf(first.stderr);

    const continued = await run(["exec", "--continue", "and again"]);
    expect(continued.stderr).not.toContain("Codex");
    expect(continued.code).toBe(0);
    expect(continued.stdout).toBe("continued on claude\n");

    const byId = await run(["exec", "--session", id, "once more"]);
    expect(byId.code).toBe(0);
    expect(byId.stdout).toBe("by id on claude\n");

    const repl = await run(["repl", "--session", id], "last one\n/exit\n");
    expect(repl.code).toBe(0);
    expect(repl.stdout).toContain("target: claude");
    expect(repl.stdout).toContain("repl on claude");
    expect(await mock.queued()).toEqual([]);

    // --agent overrides the session's last target.
    const overridden = await run(["exec", "--continue", "--agent", "codex", "to codex"]);
    expect(overridden.code).toBe(1);
    expect(overridden.stderr).toContain("/nonexistent/codex");
    const targets = ledgerOf(id).filter((e) => e.kind === "_baton_turn_summary").map((e) => (e as { harnessTargetId?: string }).harnessTargetId);
    expect(targets).toEqual(["claude", "claude", "claude", "claude", "codex"]);
  }, 90_000);
});

describe("a session whose history names a target that is no longer configured (#11.7)", () => {
  test("exec --continue goes on on the default target, says so, and delivers the old target's turns labelled as such", async () => {
    const config = path.join(env.batonHome, "config.yaml");
    writeFileSync(config, "defaultAgent: claude\ntargets:\n  claude-b:\n    harness: claude\n");
    const run = (args: string[]) => runBaton(args, { env: { ...env.env, BATON_DEFAULT_AGENT: "" }, cwd: env.cwd, stdin: "" });
    await mock.script(reply.text("Noted: pineapple."), reply.text("You said pineapple."));
    const first = await run(["exec", "--agent", "claude-b", "remember the word pineapple"]);
    expect(first.code).toBe(0);
    writeFileSync(config, "defaultAgent: claude\n");
    const next = await run(["exec", "--continue", "what word did I say?"]);
    expect(next.stderr).not.toContain("unknown target");
    expect(next.code).toBe(0);
    expect(next.stderr).toContain("this session last used 'claude-b', which is no longer configured; continuing on claude");
    expect(next.stdout).toBe("You said pineapple.\n");
    const sent = allMessageText((await mock.modelRequests()).at(-1)!.body);
    expect(sent).toContain("[claude-b (no longer configured)]");
    expect(sent).toContain("remember the word pineapple");
    expect(sent).toContain("Noted: pineapple.");
  }, 60_000);
});

describe("subdirectories and --continue (#11.8)", () => {
  const at = (cwd: string, args: string[]) => runBaton(args, { env: env.env, cwd, stdin: "" });
  const sessionDirs = () => {
    const projects = path.join(env.batonHome, "projects");
    return existsSync(projects) ? readdirSync(projects).flatMap((p) => (existsSync(path.join(projects, p, "sessions")) ? readdirSync(path.join(projects, p, "sessions")) : [])) : [];
  };

  test("from a subdirectory, exec --continue and sessions find the project's sessions", async () => {
    await mock.script(reply.text("Noted: pineapple."), reply.text("You said pineapple."));
    const first = await at(env.cwd, ["exec", "remember the word pineapple"]);
    const id = sessionOf(first.stderr);
    const deep = path.join(env.cwd, "src", "deep");
    mkdirSync(deep, { recursive: true });

    const listed = await at(deep, ["sessions"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`Sessions of ${env.cwd} (the enclosing project of ${deep}):`);
    expect(listed.stdout).toContain(`@${id}`);
    expect((JSON.parse((await at(deep, ["sessions", "--json"])).stdout) as { id: string }[]).map((row) => row.id)).toEqual([id]);

    const continued = await at(deep, ["exec", "--continue", "what word did I say?"]);
    expect(continued.code).toBe(0);
    expect(sessionOf(continued.stderr)).toBe(id);
    expect(continued.stdout).toBe("You said pineapple.\n");
    expect(sessionDirs()).toEqual([id]);
  }, 60_000);

  test("--continue with nothing to continue is an error (exit 2) that creates nothing; the climb stops at the git root", async () => {
    await mock.script(reply.text("in the outer project"));
    const empty = path.join(env.root, "empty");
    mkdirSync(empty);
    const nothing = await at(empty, ["exec", "--continue", "hello?"]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain(`baton: nothing to continue: no session in ${empty} or its parent directories`);
    expect(sessionDirs()).toEqual([]);

    expect((await at(env.cwd, ["exec", "outer"])).code).toBe(0);
    // A nested repository is a project of its own: its subdirectories do not climb past its root.
    const nested = path.join(env.cwd, "vendor", "lib");
    mkdirSync(path.join(nested, ".git"), { recursive: true });
    mkdirSync(path.join(nested, "src"));
    const inner = await at(path.join(nested, "src"), ["exec", "--continue", "hello?"]);
    expect(inner.code).toBe(2);
    expect(inner.stderr).toContain("nothing to continue");
    expect(sessionDirs()).toHaveLength(1);
  }, 60_000);
});

describe("session ids and @session references (#11.12)", () => {
  const at = (args: string[], stdin = "") => runBaton(args, { env: env.env, cwd: env.cwd, stdin });
  const tree = (dir: string): string[] =>
    existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).map((entry) => path.join(entry.parentPath, entry.name)).sort() : [];

  test("an id that walks out of BATON_HOME is refused (exit 2) and nothing is written outside; a valid lower-case prefix still works", async () => {
    await mock.script(reply.text("first"), reply.text("second"));
    const first = await at(["exec", "hello"]);
    const id = sessionOf(first.stderr);
    // A planted session outside BATON_HOME whose meta.json names the escaping id.
    const outside = path.join(env.root, "elsewhere");
    mkdirSync(outside);
    const sessions = path.dirname(path.dirname(findLedger(id)));
    const evil = `bs_/${path.relative(path.join(sessions, "bs_"), outside)}`;
    writeFileSync(path.join(outside, "meta.json"), JSON.stringify({ batonSessionId: evil, cwd: env.cwd, createdAt: "2026-01-01T00:00:00.000Z", harnessSessions: {} }));
    writeFileSync(path.join(outside, "session.jsonl"), "");
    const before = tree(outside);
    for (const args of [["exec", "--session", evil, "hi"], ["export", evil], ["logs", evil], ["fork", evil]]) {
      const refused = await at(args);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`'${evil}' is not a Baton session id`);
    }
    expect(tree(outside)).toEqual(before);
    expect(readFileSync(path.join(outside, "session.jsonl"), "utf8")).toBe("");

    const byPrefix = await at(["exec", "--session", id.slice(3, 12).toLowerCase(), "again"]);
    expect(byPrefix.code).toBe(0);
    expect(sessionOf(byPrefix.stderr)).toBe(id);
  }, 60_000);

  test("@session references in piped stdin (exec -, repl) are not expanded; typed ones are", async () => {
    await mock.script(reply.text("We chose an LRU cache."), reply.text("piped ok"), reply.text("repl ok"), reply.text("typed ok"));
    const source = sessionOf((await at(["exec", "design the cache layer"])).stderr);
    const mention = `@session:${source}`;
    const piped = await at(["exec", "-"], `review this file:\nsee ${mention} for background\n`);
    expect(piped.code).toBe(0);
    const repl = await at(["repl"], `and this line mentions ${mention} too\n/exit\n`);
    expect(repl.code).toBe(0);
    const typed = await at(["exec", `implement what we decided in ${mention}`]);
    expect(typed.code).toBe(0);
    const texts = (await mock.modelRequests()).map((r) => allMessageText(r.body)).filter((text) => !text.includes("Write a title"));
    const [fromPipe, fromRepl, fromArgs] = ["review this file", "this line mentions", "implement what"].map((words) => texts.find((text) => text.includes(words)) ?? "");
    expect(fromPipe).toContain(mention);
    expect(fromPipe).not.toContain("We chose an LRU cache.");
    expect(fromRepl).toContain(mention);
    expect(fromRepl).not.toContain("We chose an LRU cache.");
    expect(fromArgs).toContain("<baton-context>");
    expect(fromArgs).toContain("We chose an LRU cache.");
  }, 90_000);
});

describe("exec --model / --effort are checked against the catalog (#11.6)", () => {
  const state = (name: string) => path.join(env.batonHome, "state", name);
  const sessionCount = () => (existsSync(path.join(env.batonHome, "projects")) ? readdirSync(path.join(env.batonHome, "projects")).length : 0);

  test("an unknown model or effort: exit 2 naming the choices, nothing sent or saved; a valid pair runs and is remembered", async () => {
    for (const args of [["--effort", "ultra"], ["--model", "nonsense"], ["--model", "haiku", "--effort", "ultra"]]) {
      const refused = await runBaton(["exec", ...args, "hello"], { env: env.env, cwd: env.cwd, stdin: "" });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--(model|effort): claude has no (model|effort) '(ultra|nonsense)'/);
      expect(refused.stderr).toMatch(/Choose one of: default, /);
    }
    expect(existsSync(state("model.json")) || existsSync(state("effort.json"))).toBe(false);
    expect(sessionCount()).toBe(0);
    expect((await mock.modelRequests()).length).toBe(0);

    await mock.script(reply.text("fast answer"));
    const ok = await runBaton(["exec", "--model", "Haiku", "--effort", "LOW", "hello"], { env: env.env, cwd: env.cwd, stdin: "" });
    expect(ok.code).toBe(0);
    expect(JSON.parse(readFileSync(state("model.json"), "utf8"))).toEqual({ models: { claude: "haiku" } });
    expect(JSON.parse(readFileSync(state("effort.json"), "utf8"))).toEqual({ efforts: { claude: "low" } });
    const [request] = await mock.modelRequests();
    expect((request?.body as { model?: string }).model).toContain("haiku");

    // On an existing session the same check applies; the remembered values stay as they were.
    const id = sessionOf(ok.stderr);
    const again = await runBaton(["exec", "--session", id, "--effort", "ultra", "more"], { env: env.env, cwd: env.cwd, stdin: "" });
    expect(again.code).toBe(2);
    expect(JSON.parse(readFileSync(state("effort.json"), "utf8"))).toEqual({ efforts: { claude: "low" } });
  }, 90_000);
});

function findLedger(sessionId: string): string {
  const projects = path.join(env.batonHome, "projects");
  for (const project of readdirSync(projects)) {
    const file = path.join(projects, project, "sessions", sessionId, "session.jsonl");
    if (existsSync(file)) return file;
  }
  throw new Error(`no ledger for ${sessionId}`);
}
