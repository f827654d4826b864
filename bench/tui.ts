/**
 * TUI benchmarks, each printed against its budget:
 *   - time to first frame of the real `baton` in a terminal (tmux), direct (`bun src/app/main.ts`) and through
 *     the npm launcher (`node bin/baton.cjs`): the in-process first `frame` event and "visible" (the footer
 *     read back from the pane). Budgets: ≤ 300 ms direct, ≤ 450 ms via the launcher.
 *   - frame time and RSS of the Baton screen (TuiHost + chat-tui, test renderer 120x40) over a real session
 *     with 100 / 2,000 / 10,000 transcript items, idle and while an answer streams (one publication + frame).
 *     Budget: ≤ 16 ms per frame at 10,000 items.
 *   - keystroke-to-frame latency while streaming at 10,000 items. Budget: ≤ 50 ms.
 *
 *   node_modules/.bin/bun bench/tui.ts            (all; each size runs in its own process for a clean RSS)
 *   node_modules/.bin/bun bench/tui.ts --size N   (one size, prints JSON)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brand } from "../tests/support/ids.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const BUN = process.execPath;
const SIZES = [100, 2_000, 10_000] as const;
const BUDGET = { firstFrameDirect: 300, firstFrameLauncher: 450, frame: 16, keystroke: 50 } as const;

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

const ms = (value: number): string => `${value.toFixed(1).padStart(6)} ms`;
const verdict = (value: number, budget: number): string => `${value <= budget ? "ok  " : "OVER"} (budget ${budget} ms, ${((value / budget) * 100).toFixed(0)}%)`;

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

/** The real app (`bun src/app/main.ts -s <id>`) opening a session of n items in tmux: ms to first frame and RSS. */
async function realApp(n: number): Promise<{ readonly firstFrame: number; readonly rssMb: number }> {
  const { fakeDefinition } = await import("../tests/support/fake-adapter.ts");
  const { makeTestHome, openTestSession } = await import("../tests/support/session-host.ts");
  const home = makeTestHome();
  const socket = `baton-bench-app-${process.pid}`;
  try {
    const session = await openTestSession(home, { definitions: [fakeDefinition({ turns: [] }, "fake")] });
    fillSession(session.controller.pipeline.append, n);
    const id = session.ref.batonSessionId;
    await session.close();
    const marker = path.join(home.home, "first-frame");
    const env = [`PATH=${process.env["PATH"] ?? ""}`, `HOME=${home.home}`, `BATON_HOME=${home.home}`, `BATON_FIRST_FRAME_FILE=${marker}`, "TERM=screen-256color", "LANG=C.UTF-8"];
    const start = Date.now();
    tmux(socket, ["new-session", "-d", "-s", "main", "-x", "120", "-y", "40", `cd '${home.cwd}' && exec env -i ${env.join(" ")} ${BUN} ${path.join(ROOT, "src/app/main.ts")} -s ${id}`]);
    while (!(existsSync(marker) && readFileSync(marker, "utf8").trim() !== "")) {
      if (Date.now() - start > 20_000) throw new Error("the app did not draw within 20 s");
      await Bun.sleep(2);
    }
    const firstFrame = Number(readFileSync(marker, "utf8").trim()) - start;
    await Bun.sleep(500);
    const pid = tmux(socket, ["display-message", "-p", "-t", "main", "#{pane_pid}"]).trim();
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
    return { firstFrame, rssMb: rssKb / 1024 };
  } finally {
    killServer(socket);
    home.cleanup();
  }
}


async function benchSize(n: number): Promise<SizeResult> {
  const [{ act, createElement }, { testRender }, { isEditBufferRenderable }] = await Promise.all([
    import("react").then((react) => ({ act: react.act, createElement: react.createElement })),
    import("@opentui/react/test-utils"),
    import("@opentui/core"),
  ]);
  const { BatonApp, TuiHost } = await import("../src/tui/index.ts");
  const { systemClock } = await import("../src/shared/clock.ts");
  const { displayTitle } = await import("../src/store/index.ts");
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

  const host = new TuiHost({
    session: { sessionId: session.ref.batonSessionId, cwd: home.cwd, controller: session.controller, recovered: false, title: () => displayTitle(session.meta()) },
    sessions: { list: async () => [], open: () => Promise.reject(new Error("not in the bench")), close: async () => undefined },
    initialTarget: brand.target("fake"),
    showThoughts: true,
    clock: systemClock,
  });
  host.resize(120);
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
// First frame in a real terminal (tmux).

/** Kill a private tmux server and remove its socket. */
function killServer(socket: string): void {
  spawnSync("tmux", ["-L", socket, "kill-server"]);
  rmSync(path.join(process.env["TMUX_TMPDIR"] ?? "/tmp", `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
}

function tmux(socket: string, args: readonly string[]): string {
  const result = spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`tmux ${args[0]}: ${result.stderr}`);
  return result.stdout;
}

/** One launch in a fresh tmux server: ms until the first frame (marker written in-process), or until the
 * footer is visible in the pane (polling capture-pane, which costs CPU, so it is measured in separate runs). */
async function startupOnce(command: readonly string[], socket: string, visible: boolean): Promise<number> {
  const base = mkdtempSync(path.join(os.tmpdir(), "baton-bench-tui-"));
  const cwd = path.join(base, "ws");
  mkdirSync(cwd, { recursive: true });
  const marker = path.join(base, "first-frame");
  const env = [`PATH=${process.env["PATH"] ?? ""}`, `HOME=${base}`, `BATON_HOME=${path.join(base, "baton")}`, `BATON_FIRST_FRAME_FILE=${marker}`, "TERM=screen-256color", "LANG=C.UTF-8"];
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = `cd ${q(cwd)} && exec env -i ${env.map(q).join(" ")} ${command.map(q).join(" ")}`;
  const start = Date.now();
  tmux(socket, ["new-session", "-d", "-s", "main", "-x", "100", "-y", "30", `sh -c ${q(script)}`]);
  try {
    while (Date.now() - start < 10_000) {
      if (visible) {
        if (tmux(socket, ["capture-pane", "-p", "-t", "main"]).includes("queue:0")) return Date.now() - start;
        await Bun.sleep(5);
      } else {
        if (existsSync(marker) && readFileSync(marker, "utf8").trim() !== "") return Number(readFileSync(marker, "utf8").trim()) - start;
        await Bun.sleep(2);
      }
    }
    throw new Error(`baton did not start within 10 s: ${command.join(" ")}`);
  } finally {
    killServer(socket);
    rmSync(base, { recursive: true, force: true });
  }
}

async function startup(label: string, command: readonly string[], budget: number): Promise<boolean> {
  const socket = `baton-bench-${process.pid}`;
  await startupOnce(command, socket, false); // warm the file cache
  const firsts: number[] = [];
  const visibles: number[] = [];
  for (let i = 0; i < 7; i++) firsts.push(await startupOnce(command, socket, false));
  for (let i = 0; i < 5; i++) visibles.push(await startupOnce(command, socket, true));
  const first = stats(firsts);
  const visible = stats(visibles);
  process.stdout.write(
    `first frame ${label.padEnd(22)} median ${ms(first.median)} (p95 ${ms(first.p95)}) | visible in the pane ${ms(visible.median)} | ${verdict(first.median, budget)}\n`,
  );
  return first.median <= budget;
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const sizeArg = process.argv.indexOf("--size");
  if (sizeArg >= 0) {
    const result = await benchSize(Number(process.argv[sizeArg + 1]));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  }
  let ok = true;
  process.stdout.write("Baton TUI benchmarks (budgets from the architecture, §8)\n\n");
  ok = (await startup("direct (bun main.ts)", [BUN, path.join(ROOT, "src/app/main.ts")], BUDGET.firstFrameDirect)) && ok;
  ok = (await startup("via bin/baton.cjs", ["node", path.join(ROOT, "bin/baton.cjs")], BUDGET.firstFrameLauncher)) && ok;
  process.stdout.write("\n");
  for (const n of SIZES) {
    const child = spawnSync(BUN, [import.meta.path, "--size", String(n)], { encoding: "utf8", cwd: ROOT });
    const line = child.stdout.trim().split("\n").at(-1) ?? "";
    if (child.status !== 0 || !line.startsWith("{")) {
      process.stdout.write(`${n} items: failed\n${child.stderr}\n`);
      ok = false;
      continue;
    }
    const r = JSON.parse(line) as SizeResult;
    const budgeted = n === 10_000;
    process.stdout.write(
      `${String(n).padStart(6)} items | mount ${ms(r.mountMs)} | idle frame ${ms(r.idleMedian)} (p95 ${ms(r.idleP95)}) | ` +
        `streaming frame ${ms(r.streamMedian)} (p95 ${ms(r.streamP95)}) | keystroke→frame ${ms(r.keyMedian)} (p95 ${ms(r.keyP95)}) | RSS ${r.rssMb.toFixed(0)} MB\n`,
    );
    const app = await realApp(n);
    process.stdout.write(`        the real app opening a session of ${n} items: first frame ${ms(app.firstFrame)} | RSS ${app.rssMb.toFixed(0)} MB\n`);
    if (budgeted) {
      process.stdout.write(`        frame at 10,000 items (streaming, median):  ${verdict(r.streamMedian, BUDGET.frame)}\n`);
      process.stdout.write(`        keystroke→frame at 10,000 items (median):  ${verdict(r.keyMedian, BUDGET.keystroke)}\n`);
      ok = r.streamMedian <= BUDGET.frame && r.keyMedian <= BUDGET.keystroke && ok;
    }
  }
  process.stdout.write(`\nall budgets: ${ok ? "met" : "NOT met"}\n`);
  process.exit(ok ? 0 : 1);
}

await main();
