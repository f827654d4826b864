/**
 * Regenerates the screenshots of the bundled loops (README "Loops", bundled-plugins/<name>/README.md) from real
 * runs: each bundled plugin installed through the real pipeline into a temp BATON_HOME and enabled, `baton`
 * (bin/baton.cjs) in a private tmux server with the real Codex (and Claude Code) against the project's mock model
 * servers, a real turn, and the suggestion card and the Board as they appear; the pane is captured with
 * colours and turned into PNG by scripts/ansi-svg.ts. gh-review reads a fake `gh` (tests/support/fake-gh.ts).
 *
 *   node_modules/.bin/bun scripts/screenshots-loops.ts [outDir [test-watch|second-opinion|gh-review]]
 *   (outDir defaults to docs/images; a name takes that loop's pictures only)
 *
 * Needs tmux, rsvg-convert (Debian: `apt-get install tmux librsvg2-bin`) and the DejaVu Sans Mono font.
 * Tests do not use this script; tests/e2e/tui-bundled-loops.test.ts checks the test-watch scene.
 */
import fs from "node:fs";
import path from "node:path";
import { makeClaudeEnv } from "../tests/support/claude-env.ts";
import { makeCodexHome } from "../tests/support/codex-home.ts";
import { fakeGh, thread } from "../tests/support/fake-gh.ts";
import { initRepo } from "../tests/support/git-repo.ts";
import { startMockAnthropic, type MockAnthropic } from "../tests/support/mock-anthropic/client.ts";
import { reply } from "../tests/support/mock-anthropic/script.ts";
import { startMockResponses, type MockResponses } from "../tests/support/mock-responses/index.ts";
import { installPlugin } from "../tests/support/plugin-rig.ts";
import { Tmux } from "../tests/support/tmux.ts";
import { checkTools, shoot } from "./ansi-svg.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "docs/images"));
/** Wide enough for the Board beside the transcript (121 columns and more). */
const COLS = 132;
const ROWS = 42;
const TERMINAL = { TERM: "screen-256color", COLORTERM: "truecolor", LANG: "C.UTF-8" };

const enable = (batonHome: string, npmHome: string, name: string, config?: unknown) => installPlugin({ batonHome, npmHome, dir: path.join(ROOT, "bundled-plugins", name), config });

function picture(t: Tmux, name: string, title: string): void {
  const file = shoot(t, { out: OUT, name, title, cols: COLS, rows: ROWS });
  process.stdout.write(`wrote ${path.relative(ROOT, file)}\n`);
}

async function settleScreen(): Promise<void> {
  // Let the last frame land (spinners, the Board's refresh) before the capture: a picture, not an assertion.
  await Bun.sleep(600);
}

const patch = (file: string, from: string, to: string) => ({ kind: "apply_patch" as const, patch: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch` });

/** test-watch: Codex's edit breaks a test; the card and the failing Board. */
async function testWatch(codexMock: MockResponses): Promise<void> {
  const codex = makeCodexHome({ baseUrl: codexMock.baseUrl, approvalPolicy: "never", sandboxMode: "danger-full-access" });
  let t: Tmux | undefined;
  try {
    const cwd = codex.workdir;
    initRepo(cwd, {
      "package.json": JSON.stringify({ name: "sums", type: "module", scripts: { test: "node --test" } }, null, 2) + "\n",
      "sum.js": "export function sum(a = 0, b = 0) {\n  return a + b;\n}\n",
      "sum.test.js": 'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { sum } from "./sum.js";\n\ntest("adds", () => assert.equal(sum(1, 2), 3));\ntest("no arguments", () => assert.equal(sum(), 0));\n',
    });
    const batonHome = path.join(codex.root, "baton");
    await enable(batonHome, codex.root, "test-watch", { command: "node --test" });
    await codexMock.reset();
    await codexMock.script([
      { kind: "apply_patch", patch: "*** Begin Patch\n*** Update File: sum.js\n@@\n-export function sum(a = 0, b = 0) {\n-  return a + b;\n+export function sum(...xs) {\n+  return xs.reduce((a, b) => a + b);\n*** End Patch" },
      { kind: "text", text: "`sum()` now takes any number of arguments." },
      { kind: "text", text: '{"title":"Variadic sum()"}' },
    ]);
    t = Tmux.start({ command: ["node", path.join(ROOT, "bin/baton.cjs"), "--agent", "codex"], env: { ...codex.env, BATON_HOME: batonHome, ...TERMINAL }, cwd, width: COLS, height: ROWS });
    await t.waitFor("waiting for an edit", 30_000);
    t.type("make sum() take any number of arguments");
    t.keys("Enter");
    await t.waitFor("Suggested by baton/test-watch", 60_000);
    await t.waitFor(/Tests\s+(\d+ failing|failing)/, 10_000);
    await settleScreen();
    picture(t, "loops-test-watch", "baton — test-watch suggests a fix after Codex's edit broke a test");
  } finally {
    t?.kill();
    codex.cleanup();
  }
}

/** second-opinion: Codex edits, Claude reviews (sent from the card), the findings card back to Codex. */
async function secondOpinion(codexMock: MockResponses, claudeMock: MockAnthropic): Promise<void> {
  const codex = makeCodexHome({ baseUrl: codexMock.baseUrl, approvalPolicy: "never", sandboxMode: "danger-full-access" });
  const claude = makeClaudeEnv({ baseUrl: claudeMock.url });
  let t: Tmux | undefined;
  try {
    const cwd = claude.cwd;
    initRepo(cwd, { "parser.ts": 'export function parse(input: string): string[] {\n  return input.split(",");\n}\n' });
    const batonHome = claude.batonHome;
    await enable(batonHome, claude.root, "second-opinion");
    await Promise.all([codexMock.reset(), claudeMock.reset()]);
    await codexMock.script([
      patch("parser.ts", '  return input.split(",");', '  return input.split(",").map((s) => s.trim());'),
      { kind: "text", text: "`parse()` now trims each field." },
      { kind: "text", text: '{"title":"Trim parse() fields"}' },
    ]);
    await claudeMock.script(
      reply.text(
        'Two findings:\n\n1. `parse("")` returns `[""]`: an empty input should give `[]`.\n2. A trailing comma (`"a,b,"`) still yields an empty last field.',
        { match: { lastUserIncludes: "second-opinion review" } },
      ),
    );
    t = Tmux.start({
      command: ["node", path.join(ROOT, "bin/baton.cjs"), "--agent", "codex"],
      env: { ...claude.env, BATON_HOME: batonHome, CODEX_HOME: codex.env["CODEX_HOME"]!, MOCK_API_KEY: "mock-key", ...TERMINAL },
      cwd,
      width: COLS,
      height: ROWS,
    });
    await t.waitFor(/Message Codex/, 30_000);
    t.type("trim the fields in parse()");
    t.keys("Enter");
    await t.waitFor("Suggested by baton/second-opinion", 60_000);
    await settleScreen();
    picture(t, "loops-second-opinion-ask", "baton — second-opinion suggests that Claude reviews Codex's change");
    t.keys("Enter");
    await t.waitFor("Send claude's findings to codex", 60_000);
    await settleScreen();
    picture(t, "loops-second-opinion", "baton — Claude reviewed Codex's change; second-opinion suggests sending the findings back");
  } finally {
    t?.kill();
    codex.cleanup();
    claude.cleanup();
  }
}

/** gh-review: the open review threads of the branch's PR (a fake gh) as one card, and the Board. */
async function ghReview(codexMock: MockResponses): Promise<void> {
  const codex = makeCodexHome({ baseUrl: codexMock.baseUrl, approvalPolicy: "never", sandboxMode: "danger-full-access" });
  const gh = fakeGh();
  let t: Tmux | undefined;
  try {
    const cwd = codex.workdir;
    initRepo(cwd, { "src/parse.ts": "export const parse = (s: string) => s.split(',');\n" });
    gh.threads(
      thread("T1", "src/parse.ts", 42, "alice", "This drops the last token when the input ends with a comma."),
      thread("T2", "src/lex.ts", 7, "bob", "Could this be named `nextToken`?"),
    );
    const batonHome = path.join(codex.root, "baton");
    await enable(batonHome, codex.root, "gh-review");
    t = Tmux.start({ command: ["node", path.join(ROOT, "bin/baton.cjs"), "--agent", "codex"], env: { ...codex.env, PATH: gh.path, BATON_HOME: batonHome, ...TERMINAL }, cwd, width: COLS, height: ROWS });
    await t.waitFor("Suggested by baton/gh-review", 60_000);
    await t.waitFor("2 open review threads", 10_000);
    await settleScreen();
    picture(t, "loops-gh-review", "baton — gh-review turns open review threads into one suggestion");
  } finally {
    t?.kill();
    codex.cleanup();
    fs.rmSync(gh.dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  checkTools();
  fs.mkdirSync(OUT, { recursive: true });
  const [codexMock, claudeMock] = await Promise.all([startMockResponses(), startMockAnthropic()]);
  try {
    const only = process.argv[3];
    if (only === undefined || only === "test-watch") await testWatch(codexMock);
    if (only === undefined || only === "second-opinion") await secondOpinion(codexMock, claudeMock);
    if (only === undefined || only === "gh-review") await ghReview(codexMock);
  } finally {
    await Promise.all([codexMock.stop(), claudeMock.stop()]);
  }
}

await main();
