/**
 * The markdown half of bench/stall.ts (issue #18), without the Controller: chat-tui alone (React production build,
 * OpenTUI's test renderer 120x40, the real tree-sitter client), a streamed agent answer published every 100 ms
 * (`--per` pieces each, the ~700 chunks/s bench/stall.ts reaches) and a frame drawn every 33 ms, while a 4 ms timer
 * records its gaps. Also times OpenTUI's `MarkdownRenderable.updateBlocks` per call (what a publication costs the
 * markdown). The text (`--text`) is bench/stall.ts's markdown (prose, lists, fenced code) or `prose`, the same
 * without code blocks (one block to OpenTUI). Budget: no gap over 8 ms. As in the TUI, the runtime's helper threads
 * (JIT compilers, the highlighter's worker) run below the main thread (src/app/helper-threads.ts; `--helpers keep`
 * leaves them).
 *
 *   node_modules/.bin/bun bench/markdown-stall.tsx [--rounds 7] [--chunks 1500] [--per 70] [--text markdown|prose] [--helpers lower|keep]
 *   node_modules/.bin/bun bench/markdown-stall.tsx --child   (one round, prints JSON)
 */
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { BenchReport, samples, withSpread } from "./_report.ts";
import { markdownPieces } from "./_markdown-text.ts";

const BUDGET_MS = 8;
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { child: { type: "boolean" }, rounds: { type: "string" }, chunks: { type: "string" }, per: { type: "string" }, text: { type: "string" }, helpers: { type: "string" } },
});
const CHUNKS = Number(values.chunks ?? 1500);
const PER = Number(values.per ?? 70);
const TEXT = values.text ?? "markdown";
if (TEXT !== "markdown" && TEXT !== "prose") throw new Error(`--text: "${TEXT}" is neither markdown nor prose`);
const HELPERS = values.helpers ?? "lower";
if (HELPERS !== "lower" && HELPERS !== "keep") throw new Error(`--helpers: "${HELPERS}" is neither lower nor keep`);

interface Round {
  readonly gapMax: number;
  readonly gapP99: number;
  readonly updateMax: number;
  readonly updateMedian: number;
}

async function child(): Promise<Round> {
  const { loadWithReactProduction } = await import("../src/app/react-build.ts");
  const [{ createElement }, { createRoot, flushSync }, { createTestRenderer }, { ChatApp, createChatStore }, { MarkdownRenderable }] = await loadWithReactProduction(() =>
    Promise.all([import("react"), import("@opentui/react"), import("@opentui/core/testing"), import("chat-tui"), import("@opentui/core")]),
  );
  const updates: number[] = [];
  const proto = MarkdownRenderable.prototype as unknown as { updateBlocks(this: unknown, force?: boolean): void };
  const original = proto.updateBlocks;
  proto.updateBlocks = function (this: unknown, force?: boolean) {
    const start = performance.now();
    original.call(this, force);
    updates.push(performance.now() - start);
  };
  const history = Array.from({ length: 40 }, (_, i) =>
    i % 2 === 0 ? { kind: "user" as const, id: `u${i}`, text: `question ${i}` } : { kind: "agent" as const, id: `a${i}`, author: "fake", text: `Answer **${i}**.\n\n- one\n- two\n\n\`\`\`ts\nconst x = ${i};\n\`\`\`` },
  );
  const store = createChatStore({ timeline: { items: history } });
  const setup = await createTestRenderer({ width: 120, height: 40, exitOnCtrlC: false });
  const root = createRoot(setup.renderer);
  root.render(createElement(ChatApp, { store, onIntent: () => {}, commands: [] }));
  await Bun.sleep(0);
  await setup.renderOnce();
  let rendering = false;
  const frames = setInterval(() => {
    if (rendering) return;
    rendering = true;
    void setup.renderOnce().finally(() => (rendering = false));
  }, 33);
  const { lowerHelperThreads } = await import("../src/app/helper-threads.ts");
  const helpers = HELPERS === "lower" ? lowerHelperThreads((reason) => process.stderr.write(`markdown-stall child: helper threads keep their priority: ${reason}\n`)) : undefined;
  await Bun.sleep(500);
  updates.length = 0;

  const pieces = markdownPieces(CHUNKS, { code: TEXT === "markdown" });
  const gaps: number[] = [];
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 4);
  let text = "";
  for (let i = 0; i < pieces.length; i += PER) {
    text += pieces.slice(i, i + PER).join("");
    const streaming = i + PER < pieces.length;
    flushSync(() => store.commit({ timeline: { items: [...history, { kind: "agent", id: "live", author: "fake", text, streaming }] } }));
    await Bun.sleep(100);
  }
  await Bun.sleep(300);
  clearInterval(probe);
  clearInterval(frames);
  helpers?.stop();
  root.unmount();
  setup.renderer.destroy();
  const sorted = [...gaps].sort((a, b) => a - b);
  return { gapMax: sorted.at(-1) ?? NaN, gapP99: sorted[Math.floor(sorted.length * 0.99)] ?? NaN, updateMax: Math.max(...updates), updateMedian: samples(updates).median };
}

if (values.child === true) {
  process.stdout.write(`${JSON.stringify(await child())}\n`);
  process.exit(0);
}
const rounds = Number(values.rounds ?? 7);
const results: Round[] = [];
for (let round = 0; round < rounds; round++) {
  const run = spawnSync(process.execPath, [import.meta.path, "--child", "--chunks", String(CHUNKS), "--per", String(PER), "--text", TEXT, "--helpers", HELPERS], { encoding: "utf8" });
  const line = run.stdout.trim().split("\n").at(-1) ?? "";
  if (run.status !== 0 || !line.startsWith("{")) throw new Error(`markdown-stall child failed (${run.status}):\n${run.stderr.slice(-2000)}`);
  results.push(JSON.parse(line) as Round);
}
const report = new BenchReport("markdown-stall");
process.stdout.write(`Markdown stalls while streaming: ${CHUNKS} chunks (${TEXT}), ${PER} per 100 ms publication, ${rounds} processes, helper threads ${HELPERS === "lower" ? "lowered" : "kept"}\n\n`);
report.info("updateBlocks per publication, median", withSpread(samples(results.map((r) => r.updateMedian)), "ms", 2));
report.info("updateBlocks per publication, longest", withSpread(samples(results.map((r) => r.updateMax)), "ms", 2));
report.info("4 ms timer gap, p99", withSpread(samples(results.map((r) => r.gapP99)), "ms", 1));
const longest = samples(results.map((r) => r.gapMax));
report.figure("longest 4 ms timer gap while streaming", withSpread(longest, "ms", 1), `${BUDGET_MS} ms`, longest.max / BUDGET_MS);
process.exit(report.summary() ? 0 : 1);
