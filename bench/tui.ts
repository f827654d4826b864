/**
 * TUI benchmarks (issue #18), each figure printed as `figure  value  budget  ratio  OK|OVER`:
 *   - time to the first full frame of the real `baton` in tmux (bench/_first-frame.ts: process exec → the frame's
 *     bytes at the terminal): empty session direct (≤ 300 ms), the same with a config.yaml (≤ 300 ms) and via
 *     bin/baton.cjs (adds ≤ 60 ms), a 100k-event
 *     session with its checkpoint (≤ 350 ms) and without one (info: bounded by the reducer's open budget).
 *     Variants alternate within each round; ≥ 7 rounds after a warm-up; median and spread.
 *   - frame time and RSS of the Baton screen (TuiHost + chat-tui, test renderer 120x40) over a real session
 *     with 100 / 2,000 / 10,000 transcript items, idle and while an answer streams (one chunk + publication +
 *     frame). Budget: ≤ 16 ms per frame at 10,000 items.
 *   - keystroke-to-frame while an answer streams at 10,000 items (a chunk's publication pending in the same tick
 *     as the key). Budget: ≤ 50 ms. The main-thread stall while streaming is bench/stall.ts.
 *   - command starts (docs/start.md): process exec → exit of `baton --version`, `baton sessions` and `baton exec`
 *     up to its first check (an unknown flag, after the exec command's modules loaded), for this tree's prebuilt
 *     start (dist/, `npm run build`), the same tree from its sources (BATON_START=sources), the sources with Bun's
 *     runtime transpiler cache on (BUN_RUNTIME_TRANSPILER_CACHE_PATH) and, with --baseline, the other checkout.
 *     Alternated within every round. Info, with each one's ratio to the sources per round.
 *
 *   node_modules/.bin/bun bench/tui.ts [--rounds 7] [--baseline DIR] [--events 100000] [--only first-frame|frames|starts]
 *     [--variants direct,launcher,configured,checkpoint,nocheckpoint]
 *   node_modules/.bin/bun bench/tui.ts --size N   (one size, prints JSON)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { firstFrames } from "./_first-frame.ts";
import { screenHost } from "./_screen-host.ts";
import { BenchReport, samples, withSpread } from "./_report.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const BUN = process.execPath;
const SIZES = [100, 2_000, 10_000] as const;
const BUDGET = { frame: 16, keystroke: 50 } as const;

interface SizeResult {
  readonly items: number;
  readonly mountMs: number;
  readonly idleMedian: number;
  readonly idleP95: number;
  readonly streamMedian: number;
  readonly streamP95: number;
  readonly keyMedian: number;
  readonly keyP95: number;
  readonly rssMb: number;
}

function stats(samples: readonly number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { median: at(0.5), p95: at(0.95) };
}


// ---------------------------------------------------------------------------------------------------------
// One size, in this process.

/** n transcript items: a prompt, a command with 20 lines of output, a thought and a markdown answer, repeated. */
function fillSession(appendFn: unknown, n: number): void {
  const append = appendFn as (draft: Record<string, unknown>) => unknown;
  const harness = { source: { type: "harness", harnessTargetId: "fake" }, harnessTargetId: "fake" } as const;
  for (let i = 0; i < n; i++) {
    switch (i % 4) {
      case 0:
        append({ kind: "user_message", payload: { messageId: `u${i}`, content: [{ type: "text", text: `Question ${i}: please look at the failing test and fix it.` }] }, source: { type: "user" }, harnessTargetId: "fake" });
        break;
      case 1:
        append({
          kind: "tool_call_update",
          payload: { toolCallId: `t${i}`, title: `bun test case-${i}`, kind: "execute", status: "completed", content: [{ type: "text", text: Array.from({ length: 20 }, (_, j) => `  ✓ case ${i}.${j}`).join("\n") }] },
          ...harness,
        });
        break;
      case 2:
        append({ kind: "agent_thought", payload: { messageId: `th${i}`, content: [{ type: "text", text: `**Thinking**\nConsidering option ${i}.` }] }, ...harness });
        break;
      default:
        append({ kind: "agent_message", payload: { messageId: `a${i}`, content: [{ type: "text", text: `Done with **step ${i}**.\n\n- checked\n- fixed` }] }, ...harness });
    }
  }
}

async function benchSize(n: number): Promise<SizeResult> {
  const [{ act, createElement }, { testRender }, { isEditBufferRenderable }] = await Promise.all([
    import("react").then((react) => ({ act: react.act, createElement: react.createElement })),
    import("@opentui/react/test-utils"),
    import("@opentui/core"),
  ]);
  const { BatonApp } = await import("../src/tui/index.ts");
  const { fakeDefinition } = await import("../tests/support/fake-adapter.ts");
  const { makeTestHome, openTestSession } = await import("../tests/support/session-host.ts");
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

  const home = makeTestHome();
  const definitions = [fakeDefinition({ turns: [] }, "fake")];
  const session = await openTestSession(home, { definitions });
  const append = session.controller.pipeline.append;
  const harness = { source: { type: "harness", harnessTargetId: "fake" }, harnessTargetId: "fake" } as const;
  fillSession(append, n);
  const turnId = "t_bench" as never;
  append({ kind: "state_update", payload: { state: "running" }, source: { type: "baton" }, turnId, harnessTargetId: "fake" });

  const host = await screenHost(session, home.cwd);
  const t0 = performance.now();
  const setup = await testRender(createElement(BatonApp, { host }), { width: 120, height: 40, exitOnCtrlC: false });
  await act(async () => {
    await setup.renderOnce();
    await setup.renderOnce();
  });
  const mountMs = performance.now() - t0;

  const FRAMES = 60;
  const idle: number[] = [];
  for (let i = 0; i < FRAMES; i++) {
    const s = performance.now();
    await setup.renderOnce();
    idle.push(performance.now() - s);
  }

  // Streaming: one chunk appended (reduce), one publication (all five states), one frame.
  const stream: number[] = [];
  for (let i = 0; i < FRAMES; i++) {
    const s = performance.now();
    await act(async () => {
      append({ kind: "agent_message_chunk", payload: { messageId: "live", content: { type: "text", text: ` word${i}` } }, ...harness, turnId });
      host.publish();
      await setup.renderOnce();
    });
    stream.push(performance.now() - s);
  }

  // Keystroke while streaming: a publication is pending in the same tick as the key; time until the frame
  // that shows the key is drawn.
  const draft = (): string => {
    const focused = setup.renderer.currentFocusedRenderable;
    return focused !== null && isEditBufferRenderable(focused) ? focused.plainText : "";
  };
  const keys: number[] = [];
  for (let i = 0; i < 40; i++) {
    append({ kind: "agent_message_chunk", payload: { messageId: "live", content: { type: "text", text: ` more${i}` } }, ...harness, turnId });
    const before = draft().length;
    const s = performance.now();
    await act(async () => {
      host.publish();
      setup.mockInput.pressKey("x");
      await setup.renderOnce();
    });
    keys.push(performance.now() - s);
    if (draft().length !== before + 1) throw new Error("the keystroke did not reach the composer");
  }
  const rssMb = process.memoryUsage().rss / 1024 / 1024;
  await act(async () => {
    setup.renderer.destroy();
  });
  host.dispose();
  await session.close();
  home.cleanup();
  const a = stats(idle);
  const b = stats(stream);
  const k = stats(keys);
  return { items: n, mountMs, idleMedian: a.median, idleP95: a.p95, streamMedian: b.median, streamP95: b.p95, keyMedian: k.median, keyP95: k.p95, rssMb };
}

// ---------------------------------------------------------------------------------------------------------
// Command starts: how long a short command takes from exec to exit, per way of starting.

interface StartVariant {
  readonly label: string;
  readonly root: string;
  readonly env: Readonly<Record<string, string>>;
}

const START_COMMANDS: readonly { readonly label: string; readonly args: readonly string[] }[] = [
  { label: "baton --version", args: ["--version"] },
  { label: "baton sessions (none)", args: ["sessions"] },
  { label: "baton exec, to its first check", args: ["exec", "--bench-unknown-flag"] },
];

async function commandStarts(report: BenchReport, rounds: number, baseline: string | undefined): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "baton-bench-start-"));
  const bunCache = path.join(scratch, "bun-transpiler-cache");
  const variants: StartVariant[] = [
    { label: "prebuilt start (dist/)", root: ROOT, env: {} },
    { label: "sources", root: ROOT, env: { BATON_START: "sources" } },
    { label: "sources + Bun's transpiler cache", root: ROOT, env: { BATON_START: "sources", BUN_RUNTIME_TRANSPILER_CACHE_PATH: bunCache } },
    ...(baseline === undefined ? [] : [{ label: `baseline ${baseline}`, root: path.resolve(baseline), env: {} }]),
  ];
  const env = (variant: StartVariant): Record<string, string> => ({ PATH: process.env["PATH"] ?? "", HOME: scratch, BATON_HOME: scratch, LANG: "C.UTF-8", ...variant.env });
  const run = (variant: StartVariant, args: readonly string[], extra: Record<string, string> = {}): { ms: number; stderr: string } => {
    const started = performance.now();
    const child = spawnSync(BUN, [path.join(variant.root, "src/app/main.ts"), ...args], { cwd: scratch, env: { ...env(variant), ...extra }, encoding: "utf8" });
    return { ms: performance.now() - started, stderr: child.stderr };
  };
  try {
    // What each variant really ran (the prebuilt start says so under BATON_DEBUG_START=1).
    for (const variant of variants.slice(0, 1)) {
      const line = run(variant, ["--version"], { BATON_DEBUG_START: "1" }).stderr.split("\n").find((l) => l.startsWith("baton: start:")) ?? "(no report)";
      report.info(`  ${variant.label} runs`, line.replace("baton: start: ", "").replace(ROOT + "/", "").slice(0, 60));
    }
    const times = new Map<string, number[]>();
    for (let round = 0; round <= rounds; round++) {
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const command of START_COMMANDS) {
        for (const variant of order) {
          const { ms } = run(variant, command.args);
          if (round === 0) continue;
          const key = `${command.label}|${variant.label}`;
          times.set(key, [...(times.get(key) ?? []), ms]);
        }
      }
    }
    for (const command of START_COMMANDS) {
      const sources = times.get(`${command.label}|sources`) ?? [];
      for (const variant of variants) {
        const mine = times.get(`${command.label}|${variant.label}`) ?? [];
        const ratio = samples(mine.map((ms, i) => ms / (sources[i] ?? ms)));
        const vs = variant.label === "sources" ? "" : `, ${ratio.median.toFixed(2)}× (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}) of sources`;
        report.info(`${command.label}: ${variant.label}`, `${withSpread(samples(mine), "ms")}${vs}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { size: { type: "string" }, rounds: { type: "string" }, baseline: { type: "string" }, events: { type: "string" }, only: { type: "string" }, variants: { type: "string" } },
  });
  if (values.size !== undefined) {
    const result = await benchSize(Number(values.size));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  }
  const report = new BenchReport("tui");
  const rounds = Number(values.rounds ?? 7);
  process.stdout.write(`Baton TUI benchmarks (issue #18, architecture §8); ${rounds} rounds after a warm-up, alternated\n\n`);
  if (values.only === undefined || values.only === "first-frame") {
    await firstFrames(report, { rounds, ...(values.baseline === undefined ? {} : { baseline: values.baseline }), ...(values.events === undefined ? {} : { events: Number(values.events) }), ...(values.variants === undefined ? {} : { variants: values.variants.split(",") }) });
    process.stdout.write("\n");
  }
  if (values.only === undefined || values.only === "starts") {
    await commandStarts(report, rounds, values.baseline);
    process.stdout.write("\n");
  }
  if (values.only === undefined || values.only === "frames") {
    for (const n of SIZES) {
      const child = spawnSync(BUN, [import.meta.path, "--size", String(n)], { encoding: "utf8", cwd: ROOT });
      const line = child.stdout.trim().split("\n").at(-1) ?? "";
      if (child.status !== 0 || !line.startsWith("{")) {
        report.figure(`${n} items: the bench failed`, child.stderr.trim().split("\n").at(-1) ?? "", "-", NaN);
        continue;
      }
      const r = JSON.parse(line) as SizeResult;
      report.info(`${n} items: mount + 2 frames (test renderer)`, `${r.mountMs.toFixed(1)} ms`);
      report.info(`${n} items: idle frame, median (p95)`, `${r.idleMedian.toFixed(1)} ms (${r.idleP95.toFixed(1)})`);
      report.info(`${n} items: RSS`, `${r.rssMb.toFixed(0)} MB`);
      const stream = `${n} items: chunk + publish + frame, median (p95)`;
      const key = `${n} items: keystroke→frame while streaming, median (p95)`;
      if (n === 10_000) {
        report.figure(stream, `${r.streamMedian.toFixed(1)} ms (${r.streamP95.toFixed(1)})`, `${BUDGET.frame} ms`, r.streamMedian / BUDGET.frame);
        report.figure(key, `${r.keyMedian.toFixed(1)} ms (${r.keyP95.toFixed(1)})`, `${BUDGET.keystroke} ms`, r.keyMedian / BUDGET.keystroke);
      } else {
        report.info(stream, `${r.streamMedian.toFixed(1)} ms (${r.streamP95.toFixed(1)})`);
        report.info(key, `${r.keyMedian.toFixed(1)} ms (${r.keyP95.toFixed(1)})`);
      }
    }
  }
  process.exit(report.summary() ? 0 : 1);
}

await main();
