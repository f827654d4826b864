/**
 * The real `baton` (bin/baton.cjs → Bun → src/app/main.ts) in a private tmux server, driving the real Claude
 * Code against the mock Anthropic server: a working session typed key by key and read back from the screen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { makeClaudeEnv, type ClaudeTestEnv } from "../support/claude-env.ts";
import { startMockAnthropic, type MockAnthropic } from "../support/mock-anthropic/client.ts";
import { allMessageText, lastUserText, reply } from "../support/mock-anthropic/script.ts";
import { runBaton } from "../support/baton-process.ts";
import { EXIT_MARKER, processesIn, Tmux } from "../support/tmux.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const LAUNCHER = path.join(ROOT, "bin", "baton.cjs");

let mock: MockAnthropic;
let env: ClaudeTestEnv | undefined;
let tmux: Tmux | undefined;

beforeAll(async () => {
  mock = await startMockAnthropic();
});
afterAll(async () => {
  tmux?.kill();
  await mock.stop();
  env?.cleanup();
});

function startBaton(claudeEnv: ClaudeTestEnv, args: readonly string[] = []): Tmux {
  // A second target of the same harness lets a follow-up queue behind a running turn and receive the relay.
  fs.writeFileSync(path.join(claudeEnv.batonHome, "config.yaml"), "defaultAgent: claude\ntargets:\n  claude-b:\n    harness: claude\n");
  return Tmux.start({
    command: ["node", LAUNCHER, ...args],
    env: { ...claudeEnv.env, TERM: "screen-256color", LANG: "C.UTF-8" },
    cwd: claudeEnv.cwd,
    width: 100,
    height: 30,
  });
}

describe("baton TUI with the real Claude Code (tmux)", () => {
  test("stream, approve, plan mode, /model, Esc, queued follow-up with relay, resize, Ctrl+C twice", async () => {
    env = makeClaudeEnv({ baseUrl: mock.url });
    await mock.script(
      reply.text("Streaming hello from the mock model, one small piece at a time.", { chunkSize: 6, chunkDelayMs: 60, match: { lastUserIncludes: "say hello" } }),
      reply.tool("Bash", { command: "echo approved-run > ran.txt && cat ran.txt", description: "write ran.txt" }, { match: { lastUserIncludes: "run the command" } }),
      reply.text("The command ran.", { match: { hasToolResult: true } }),
      reply.text("word ".repeat(80), { chunkSize: 5, chunkDelayMs: 80, match: { lastUserIncludes: "long story" } }),
      reply.text("Counting: one, two, three, four, five, six, seven.", { chunkSize: 4, chunkDelayMs: 80, match: { lastUserIncludes: "count slowly" } }),
      reply.text("B here: claude counted to seven.", { match: { lastUserIncludes: "what did claude say" } }),
    );
    const t = (tmux = startBaton(env));

    // Startup: header with the session id, idle activity, the composer and the footer.
    await t.waitFor(/Message Claude Code .*Ctrl\+J newline/);
    const first = await t.waitFor(/baton · session bs_\w+/);
    const sessionId = /baton · session (bs_\w+)/.exec(first)?.[1];
    expect(sessionId).toBeDefined();
    expect(first).toContain("claude · idle");
    expect(first).toMatch(/queue:0/);

    // A prompt streams: a partial answer is on screen before the whole one.
    t.type("say hello");
    t.keys("Enter");
    const partial = await t.waitFor(/Streaming hello/);
    expect(partial).not.toContain("one small piece at a time.");
    await t.waitFor("one small piece at a time.");
    // The terminal title follows the session's display title (its first prompt).
    for (let i = 0; i < 200 && t.title() !== "say hello"; i++) await Bun.sleep(25);
    expect(t.title()).toBe("say hello");

    // An approval card; 1 allows; the command runs and its output shows.
    t.type("run the command");
    t.keys("Enter");
    const card = await t.waitFor("1. Allow once", 20_000);
    expect(card).toContain("echo approved-run > ran.txt");
    t.keys("1");
    await t.waitFor("The command ran.", 20_000);
    const ran = t.capture();
    expect(ran).toContain("Ran");
    expect(ran).toContain("approved-run");
    expect(fs.readFileSync(path.join(env.cwd, "ran.txt"), "utf8")).toBe("approved-run\n");

    // Shift+Tab shows plan mode; again leaves it.
    t.keys("BTab");
    await t.waitFor("plan mode (shift+tab to cycle)");
    t.keys("BTab");
    await t.waitFor("plan mode off");

    // /model: a picker of Claude's models; filter and choose one; it applies to the next turn.
    t.type("/model");
    t.keys("Enter");
    await t.waitFor("Claude Code model");
    t.type("haiku");
    await t.waitFor(/❯ Haiku/);
    t.keys("Enter");
    await t.waitFor("(takes effect next turn)");

    // Esc interrupts a running turn.
    t.type("tell me a long story");
    t.keys("Enter");
    await t.waitFor(/word word word/, 20_000);
    await t.waitFor("Esc to interrupt");
    t.keys("Escape");
    await t.waitFor(/claude · \S+ · idle|claude · idle/, 15_000);
    const story = (await mock.modelRequests()).find((r) => lastUserText(r.body).includes("long story"));
    expect((story?.body as { model?: string }).model).toContain("haiku");

    // A follow-up for another target queues behind the running turn, then runs and gets the relay.
    t.type("count slowly");
    t.keys("Enter");
    await t.waitFor("Counting:", 20_000);
    t.type("/claude-b what did claude say?");
    t.keys("Enter");
    const queued = await t.waitFor("queue:1");
    expect(queued).toContain("what did claude say?");
    await t.waitFor("B here: claude counted to seven.", 30_000);
    const relayed = (await mock.modelRequests()).find((r) => lastUserText(r.body).includes("what did claude say"));
    expect(allMessageText(relayed?.body)).toContain("count slowly");
    expect(t.capture()).toContain("queue:0");

    // Resize: everything is laid out again at 80x24.
    t.resize(80, 24);
    const small = await t.waitFor(/^╰─{78}╯$/m);
    const rows = small.replace(/\n$/, "").split("\n");
    expect(rows).toHaveLength(24);
    expect(rows[23]).toContain("queue:0");
    expect(small).toContain("cwd:");

    // Ctrl+C clears a draft; twice within 1.5 s exits: the session closes (no Claude process left), the
    // terminal is restored and the hints print.
    t.type("a draft to drop");
    await t.waitFor("a draft to drop");
    t.keys("C-c");
    const cleared = await t.waitFor("Press Ctrl+C again to exit");
    expect(cleared).not.toContain("a draft to drop");
    t.keys("C-c");
    const end = await t.waitFor(EXIT_MARKER, 20_000);
    expect(end).toContain(`Resume this session with: baton resume ${sessionId}`);
    expect(end).toContain(`Fork this session with: baton fork ${sessionId}`);
    expect(end).toContain(`${EXIT_MARKER}0]`);
    expect(processesIn(env.cwd, "claude")).toEqual([]);
  }, 110_000);

  test("baton -c reopens the latest session of the directory; -s opens one by id", async () => {
    const claudeEnv = makeClaudeEnv({ baseUrl: mock.url });
    try {
      const first = startBaton(claudeEnv);
      const id = /baton · session (bs_\w+)/.exec(await first.waitFor(/baton · session bs_\w+/))?.[1];
      await first.waitFor("queue:0");
      first.type("/exit");
      first.keys("Enter");
      await first.waitFor(`${EXIT_MARKER}0]`);
      first.kill();
      for (const args of [["-c"], ["tui", "-s", id ?? "?"]]) {
        const again = startBaton(claudeEnv, args);
        try {
          expect(await again.waitFor(/baton · session bs_\w+/)).toContain(`baton · session ${id}`);
          await again.waitFor("queue:0");
          again.keys("C-d");
          expect(await again.waitFor(`${EXIT_MARKER}0]`)).toContain(`Resume this session with: baton resume ${id}`);
        } finally {
          again.kill();
        }
      }
    } finally {
      claudeEnv.cleanup();
    }
  }, 60_000);
  test("-c, -s and resume cc:<claude-session> open on Claude although defaultAgent is codex (#11.1)", async () => {
    const claudeEnv = makeClaudeEnv({ baseUrl: mock.url });
    const open = (args: readonly string[]): Tmux =>
      Tmux.start({ command: ["node", LAUNCHER, ...args], env: { ...claudeEnv.env, TERM: "screen-256color", LANG: "C.UTF-8" }, cwd: claudeEnv.cwd, width: 100, height: 30 });
    try {
      // The default agent's binary does not exist: a screen that started on it would say "Codex was not found".
      fs.writeFileSync(path.join(claudeEnv.batonHome, "config.yaml"), 'defaultAgent: codex\nharnesses:\n  codex:\n    command: ["/nonexistent/codex", "app-server"]\n');
      await mock.script(reply.text("hello from claude"));
      const first = await runBaton(["exec", "--agent", "claude", "hello"], { env: claudeEnv.env, cwd: claudeEnv.cwd, stdin: "" });
      expect(first.code).toBe(0);
      const id = /baton: session (bs_\w+) turn/.exec(first.stderr)?.[1] ?? "?";
      const projects = path.join(claudeEnv.batonHome, "projects");
      const metaFile = fs.readdirSync(projects).map((p) => path.join(projects, p, "sessions", id, "meta.json")).find((f) => fs.existsSync(f)) ?? "";
      const native = JSON.parse(fs.readFileSync(metaFile, "utf8")).harnessSessions.claude.harnessSessionId as string;
      const check = async (args: readonly string[]): Promise<void> => {
        const t = open(args);
        try {
          const screen = await t.waitFor(/claude · (\S+ · )?idle/, 20_000);
          expect(screen).toContain("Message Claude Code");
          expect(screen).not.toContain("Codex was not found");
          t.keys("C-d");
          await t.waitFor(`${EXIT_MARKER}0]`, 20_000);
        } finally {
          t.kill();
        }
      };
      await check(["-c"]);
      await check(["-s", id]);
      // A Claude Code session Baton has not seen: imported, then opened on Claude.
      fs.rmSync(projects, { recursive: true, force: true });
      await check(["resume", `cc:${native}`]);
    } finally {
      claudeEnv.cleanup();
    }
  }, 90_000);

  test("Write and Edit approval cards show the change before the decision (#11.9)", async () => {
    const claudeEnv = makeClaudeEnv({ baseUrl: mock.url });
    const file = path.join(claudeEnv.cwd, "notes.txt");
    await mock.script(
      reply.tool("Write", { file_path: file, content: "first line\nsecond line\n" }, { match: { lastUserIncludes: "write the notes" } }),
      reply.text("Wrote the notes.", { match: { hasToolResult: true } }),
      reply.tool("Edit", { file_path: file, old_string: "second line", new_string: "2nd line" }, { match: { lastUserIncludes: "edit the notes" } }),
      reply.text("Edited the notes.", { match: { hasToolResult: true } }),
    );
    const t = startBaton(claudeEnv);
    try {
      await t.waitFor(/Message Claude Code .*Ctrl\+J newline/);
      t.type("write the notes");
      t.keys("Enter");
      const write = await t.waitFor("1. Allow once", 30_000);
      const writeCard = write.slice(write.lastIndexOf("╭", write.indexOf("1. Allow once")));
      expect(writeCard).toMatch(/Add \S*notes.txt \+2 -0/);
      expect(writeCard).toMatch(/1 \+first line/);
      expect(writeCard).toMatch(/2 \+second line/);
      expect(writeCard).not.toContain("+0 -0");
      t.keys("1");
      await t.waitFor("Wrote the notes.", 30_000);
      expect(fs.readFileSync(file, "utf8")).toBe("first line\nsecond line\n");

      t.type("edit the notes");
      t.keys("Enter");
      const edit = await t.waitFor(/2nd line[\s\S]*1\. Allow once/, 30_000);
      const editCard = edit.slice(edit.lastIndexOf("╭", edit.indexOf("1. Allow once")));
      expect(editCard).toMatch(/Update \S*notes.txt \+1 -1/);
      expect(editCard).toMatch(/-second line/);
      expect(editCard).toMatch(/\+2nd line/);
      t.keys("1");
      await t.waitFor("Edited the notes.", 30_000);
      expect(fs.readFileSync(file, "utf8")).toBe("first line\n2nd line\n");
      // Ctrl+D exits only on an idle, empty composer: the answer's text shows before the turn has ended.
      await t.waitFor(/claude · (\S+ · )?idle/, 20_000);
      t.keys("C-d");
      await t.waitFor(`${EXIT_MARKER}0]`, 20_000);
    } finally {
      t.kill();
      claudeEnv.cleanup();
    }
  }, 100_000);
});
