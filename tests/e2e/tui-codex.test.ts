/**
 * The real `baton` in tmux with the real Codex (`codex app-server`) and the real Claude Code against their
 * mock model servers: a Codex turn with an approval card, then `/claude <message>` switches agents and
 * Claude receives the Codex turn through the relay. Colours follow each harness definition. While an answer
 * streams, the runtime's helper threads run below the screen's thread (#18, src/app/helper-threads.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { makeClaudeEnv, type ClaudeTestEnv } from "../support/claude-env.ts";
import { makeCodexHome, type CodexHome } from "../support/codex-home.ts";
import { startMockAnthropic, type MockAnthropic } from "../support/mock-anthropic/client.ts";
import { allMessageText, lastUserText, reply } from "../support/mock-anthropic/script.ts";
import { startMockResponses, type MockResponses } from "../support/mock-responses/index.ts";
import { EXIT_MARKER, processesIn, Tmux } from "../support/tmux.ts";
import { waitUntil } from "../support/baton-process.ts";

const LAUNCHER = path.resolve(import.meta.dir, "../../bin/baton.cjs");

let codexMock: MockResponses;
let claudeMock: MockAnthropic;
let codex: CodexHome | undefined;
let claude: ClaudeTestEnv | undefined;
let tmux: Tmux | undefined;

beforeAll(async () => {
  [codexMock, claudeMock] = await Promise.all([startMockResponses(), startMockAnthropic()]);
});
afterAll(async () => {
  tmux?.kill();
  await Promise.all([codexMock.stop(), claudeMock.stop()]);
  codex?.cleanup();
  claude?.cleanup();
});

/** The SGR sequence tmux reports for a 24-bit foreground colour. */
const fg = (hex: string): string => {
  const n = Number.parseInt(hex.slice(1), 16);
  return `38;2;${(n >> 16) & 255};${(n >> 8) & 255};${n & 255}`;
};

/** The real baton on Codex in tmux, in `home` (its own BATON_HOME), once the composer shows. */
async function batonOnCodex(home: CodexHome): Promise<Tmux> {
  const t = (tmux = Tmux.start({
    command: ["node", LAUNCHER, "--agent", "codex"],
    env: { ...home.env, BATON_HOME: path.join(home.root, "baton"), TERM: "screen-256color", LANG: "C.UTF-8" },
    cwd: home.workdir,
  }));
  await t.waitFor(/Message Codex .*Ctrl\+J newline/);
  return t;
}

/** Ctrl+D exits only on an idle, empty composer (the answer's text shows before the turn has ended): exit status 0. */
async function exitWhenIdle(t: Tmux): Promise<void> {
  await t.waitFor(/codex · (\S+ · )?idle/, 20_000);
  t.keys("C-d");
  await t.waitFor(`${EXIT_MARKER}0]`, 20_000);
}

describe("baton TUI with the real Codex and Claude Code (tmux)", () => {
  test("a Codex turn with an approval, then /claude switches and Claude gets the relay; /exit prints the hints", async () => {
    codex = makeCodexHome({ baseUrl: codexMock.baseUrl, approvalPolicy: "on-request", sandboxMode: "read-only" });
    claude = makeClaudeEnv({ baseUrl: claudeMock.url });
    await codexMock.script([
      { kind: "exec", cmd: "echo from-codex > codex.txt && cat codex.txt", escalate: true },
      { kind: "text", text: "Codex wrote codex.txt with the words from-codex.", chunkSize: 8, delayMs: 40 },
    ]);
    await claudeMock.script(reply.text("Claude sees that Codex wrote codex.txt.", { match: { lastUserIncludes: "what did codex do" } }));
    const t = (tmux = Tmux.start({
      command: ["node", LAUNCHER, "--agent", "codex"],
      env: { ...claude.env, CODEX_HOME: codex.env["CODEX_HOME"]!, MOCK_API_KEY: "mock-key", TERM: "screen-256color", COLORTERM: "truecolor", LANG: "C.UTF-8" },
      cwd: claude.cwd,
    }));
    await t.waitFor(/Message Codex .*Ctrl\+J newline/);
    const sessionId = /baton · session (bs_\w+)/.exec(await t.waitFor(/baton · session bs_\w+/))?.[1];

    t.type("make the file");
    t.keys("Enter");
    const card = await t.waitFor("1. Allow once", 30_000);
    expect(card).toContain("from-codex > codex.txt");
    t.keys("1");
    await t.waitFor("Codex wrote codex.txt with the words from-codex.", 30_000);
    await t.waitFor("codex · ", 5_000);
    expect(fs.readFileSync(path.join(claude.cwd, "codex.txt"), "utf8")).toBe("from-codex\n");
    const coloured = t.capture({ escapes: true });
    expect(coloured).toContain(fg("#73daca"));

    t.type("/claude what did codex do?");
    t.keys("Enter");
    await t.waitFor("Claude sees that Codex wrote codex.txt.", 30_000);
    const screen = t.capture();
    expect(screen).toContain("Message Claude Code");
    const turn = (await claudeMock.modelRequests()).find((r) => lastUserText(r.body).includes("what did codex do"));
    const relayed = allMessageText(turn?.body);
    expect(relayed).toContain("<baton-sync>");
    expect(relayed).toContain("make the file");
    expect(relayed).toContain("Codex wrote codex.txt with the words from-codex.");
    expect(t.capture({ escapes: true })).toContain(fg("#ff9e64"));

    t.type("/exit");
    t.keys("Enter");
    const end = await t.waitFor(EXIT_MARKER, 20_000);
    expect(end).toContain(`Resume this session with: baton resume ${sessionId}`);
    expect(end).toContain(`Fork this session with: baton fork ${sessionId}`);
    expect(processesIn(claude.cwd, "codex")).toEqual([]);
    expect(processesIn(claude.cwd, "claude")).toEqual([]);
  }, 100_000);
  test("a Codex file-change card shows the diff Codex sent before the decision (#11.9)", async () => {
    const home = makeCodexHome({ baseUrl: codexMock.baseUrl, approvalPolicy: "on-request", sandboxMode: "read-only" });
    try {
      fs.writeFileSync(path.join(home.workdir, "notes.txt"), "alpha\nbeta\n");
      await codexMock.reset();
      await codexMock.script([
        { kind: "apply_patch", patch: "*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+gamma\n*** End Patch" },
        { kind: "text", text: "Changed beta to gamma." },
      ]);
      const t = await batonOnCodex(home);
      t.type("change beta");
      t.keys("Enter");
      const screen = await t.waitFor("1. Allow once", 30_000);
      const card = screen.slice(screen.lastIndexOf("╭", screen.indexOf("1. Allow once")));
      expect(card).toContain("Apply file changes?");
      expect(card).toMatch(/Update \S*notes.txt \+1 -1/);
      expect(card).toMatch(/-beta/);
      expect(card).toMatch(/\+gamma/);
      t.keys("1");
      await t.waitFor("Changed beta to gamma.", 30_000);
      expect(fs.readFileSync(path.join(home.workdir, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
      await exitWhenIdle(t);
    } finally {
      tmux?.kill();
      home.cleanup();
    }
  }, 100_000);
  test("while Codex streams, the JIT compilers and the highlighter's worker run at nice 10, the screen's thread at 0 (#18)", async () => {
    const home = makeCodexHome({ baseUrl: codexMock.baseUrl });
    try {
      await codexMock.reset();
      await codexMock.script([{ kind: "text", text: "The **answer** streams in `pieces`.\n\n```ts\nconst x = 1;\n```\n\n" + "more ".repeat(200), chunkSize: 6, delayMs: 30 }]);
      const t = await batonOnCodex(home);
      t.type("stream an answer");
      t.keys("Enter");
      await t.waitFor("more more", 30_000);
      const [baton] = processesIn(home.workdir, "bun");
      expect(baton).toBeDefined();
      /** name → nice values of the process's threads (field 19 of each thread's stat). */
      const threads = (): Map<string, number[]> => {
        const byName = new Map<string, number[]>();
        for (const id of fs.readdirSync(`/proc/${baton}/task`)) {
          try {
            const name = fs.readFileSync(`/proc/${baton}/task/${id}/comm`, "latin1").trim();
            const stat = fs.readFileSync(`/proc/${baton}/task/${id}/stat`, "latin1");
            const nice = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
            const key = Number(id) === baton ? "(main)" : name;
            byName.set(key, [...(byName.get(key) ?? []), nice]);
          } catch {
            // the thread ended while it was read
          }
        }
        return byName;
      };
      await waitUntil(() => ["JITWorker", "Worker"].every((name) => (threads().get(name) ?? []).some((nice) => nice === 10)), 10_000, "the helper threads to be lowered");
      const now = threads();
      expect(now.get("(main)")).toEqual([0]);
      // The main heap's GC helpers (the main thread waits for them) and Bun's I/O pool keep theirs; threads a lowered
      // one starts (the worker's own GC helpers) inherit its priority.
      for (const [name, nices] of now) if (name === "HeapHelper" || name.startsWith("Bun Pool")) expect({ name, nices }).toEqual({ name, nices: nices.map(() => 0) });
      t.keys("Escape");
      await exitWhenIdle(t);
    } finally {
      tmux?.kill();
      home.cleanup();
    }
  }, 100_000);
});
