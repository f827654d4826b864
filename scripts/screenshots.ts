/**
 * Regenerates the README screenshots of the real UI: runs `baton` (bin/baton.cjs) in a private tmux server with
 * the real Codex and Claude Code against the project's mock model servers, captures the pane with colours
 * (`capture-pane -e`), turns the ANSI text into SVG and the SVG into PNG with `rsvg-convert` (scripts/ansi-svg.ts).
 * The loops' screenshots come from scripts/screenshots-loops.ts.
 *
 *   node_modules/.bin/bun scripts/screenshots.ts [outDir]     (default docs/images)
 *
 * Needs tmux and rsvg-convert (Debian: `apt-get install tmux librsvg2-bin`) and the DejaVu Sans Mono font.
 * Tests do not use this script.
 */
import fs from "node:fs";
import path from "node:path";
import { makeClaudeEnv } from "../tests/support/claude-env.ts";
import { makeCodexHome } from "../tests/support/codex-home.ts";
import { startMockAnthropic } from "../tests/support/mock-anthropic/client.ts";
import { reply } from "../tests/support/mock-anthropic/script.ts";
import { startMockResponses } from "../tests/support/mock-responses/index.ts";
import { Tmux } from "../tests/support/tmux.ts";
import { checkTools, shoot as shootPane } from "./ansi-svg.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "docs/images"));
const COLS = 110;
const ROWS = 34;

function shoot(t: Tmux, name: string, title: string): void {
  const file = shootPane(t, { out: OUT, name, title, cols: COLS, rows: ROWS });
  process.stdout.write(`wrote ${path.relative(ROOT, file)}\n`);
}

async function main(): Promise<void> {
  checkTools();
  fs.mkdirSync(OUT, { recursive: true });
  const [codexMock, claudeMock] = await Promise.all([startMockResponses(), startMockAnthropic()]);
  const codex = makeCodexHome({ baseUrl: codexMock.baseUrl, approvalPolicy: "on-request", sandboxMode: "read-only" });
  const claude = makeClaudeEnv({ baseUrl: claudeMock.url });
  fs.writeFileSync(path.join(claude.cwd, "parser.ts"), "export function parse(input: string): string[] {\n  return input.split(',');\n}\n");
  let t: Tmux | undefined;
  try {
    await codexMock.script([
      { kind: "exec", cmd: "grep -n split parser.ts", escalate: true, justification: "Look at how parse() splits its input" },
      {
        kind: "text",
        text: "The parser splits on commas but keeps **surrounding spaces**, so `parse(\"a, b\")` returns `[\"a\", \" b\"]`.\n\nI suggest:\n\n1. trim each field\n2. add a test for empty input\n\n```ts\nreturn input.split(\",\").map((s) => s.trim());\n```",
        chunkSize: 12,
        delayMs: 20,
      },
    ]);
    await claudeMock.script(
      reply.text(
        "I read what Codex found. Agreed on trimming; one more edge case: a **trailing comma** should not yield an empty field.\n\n- `parse(\"a,b,\")` → `[\"a\", \"b\"]`\n- `parse(\"\")` → `[]`\n\nShall I write both tests?",
        { chunkSize: 10, chunkDelayMs: 15, match: { lastUserIncludes: "review" } },
      ),
      reply.tool("TodoWrite", {
        todos: [
          { content: "Trim fields in parse()", status: "completed", activeForm: "Trimming fields" },
          { content: "Drop the empty trailing field", status: "in_progress", activeForm: "Dropping the trailing field" },
          { content: "Test empty input and trailing commas", status: "pending", activeForm: "Testing" },
        ],
      }, { match: { lastUserIncludes: "plan the fix" } }),
      reply.text("Working through the plan: trimming is done, now handling the trailing comma case so that `parse(\"a,b,\")` returns two fields…".repeat(3), {
        chunkSize: 4,
        chunkDelayMs: 120,
        match: { hasToolResult: true },
      }),
    );
    t = Tmux.start({
      command: ["node", path.join(ROOT, "bin/baton.cjs"), "--agent", "codex"],
      env: { ...claude.env, CODEX_HOME: codex.env["CODEX_HOME"]!, MOCK_API_KEY: "mock-key", TERM: "screen-256color", COLORTERM: "truecolor", LANG: "C.UTF-8" },
      cwd: claude.cwd,
      width: COLS,
      height: ROWS,
    });
    await t.waitFor(/baton · session bs_\w+/);
    t.type("why does parse() keep spaces? look at parser.ts first");
    t.keys("Enter");
    await t.waitFor("1. Allow once", 30_000);
    await Bun.sleep(300);
    shoot(t, "tui-approval", "baton — Codex asks before running a command");
    t.keys("1");
    await t.waitFor("trim each field", 30_000);
    await t.waitFor(/codex · \S+ · idle|codex · idle/, 30_000);
    t.type("/claude review what codex found");
    t.keys("Enter");
    await t.waitFor("Shall I write both tests?", 30_000);
    await t.waitFor(/claude · \S+ · idle|claude · idle/, 30_000);
    await Bun.sleep(300);
    shoot(t, "tui-switch", "baton — /claude picks up where Codex left off");
    t.type("/model");
    t.keys("Enter");
    await t.waitFor("Claude Code model", 15_000);
    await Bun.sleep(300);
    shoot(t, "tui-model-picker", "baton — /model");
    t.keys("Escape");
    await Bun.sleep(200);
    t.keys("BTab");
    await t.waitFor("plan mode (shift+tab to cycle)");
    t.type("plan the fix for trailing commas");
    t.keys("Enter");
    await t.waitFor("Working through the plan", 30_000);
    await Bun.sleep(1200);
    shoot(t, "tui-plan", "baton — plan mode, a pinned plan and a streaming answer");
    t.keys("Escape");
    await Bun.sleep(500);
  } finally {
    t?.kill();
    await Promise.all([codexMock.stop(), claudeMock.stop()]);
    codex.cleanup();
    claude.cleanup();
  }
}

await main();
