/**
 * Plugin host benchmarks, each printed as `figure value budget ratio OK|OVER`:
 *   - host → runner round trip (a plugin command answered by the fixture plugin): p50 and p99; budget p99 ≤ 5 ms
 *     (architecture §8).
 *   - keystroke-to-frame latency of the Baton screen with 10 active bindings vs none, for ~6 s each so that
 *     heartbeats happen during the measurement; budget ≤ 1.1× (architecture §8: "10 active runners cost ≤ 10 %").
 *   - runner spawn → binding active (process start, SDK load, activate, registrations checked); budget ≤ 1500 ms
 *     (ours: §8 sets none; a tenth of the 15 s activation deadline of plugins.md §2).
 *   - RSS per runner (its process plus its watchdog), from /proc; budget ≤ 100 MB (ours: §8 sets none; a tenth of
 *     the default `limits.memoryMb`).
 * Exits 1 when a figure is over its budget.
 *
 *   node_modules/.bin/bun bench/plugins.ts
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { screenHost } from "./_screen-host.ts";

const BUDGET = { roundTripP99: 5, spawnToActive: 1500, keystrokeRatio: 1.1, runnerRssMb: 100 } as const;

function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

let allOk = true;
function report(figure: string, value: number, unit: string, budget: number): void {
  const ratio = value / budget;
  const ok = ratio <= 1;
  allOk &&= ok;
  process.stdout.write(`${figure.padEnd(44)} ${`${value.toFixed(unit === "x" ? 2 : 1)} ${unit}`.padStart(12)}   budget ${`${budget} ${unit}`.padEnd(9)} ${ratio.toFixed(2)}  ${ok ? "OK" : "OVER"}\n`);
}

function rssKb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
    return Number(line?.replace(/\D+/g, "") ?? 0);
  } catch {
    return 0;
  }
}

function watchdogOf(pid: number): number | undefined {
  const { readdirSync } = require("node:fs") as typeof import("node:fs");
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (cmd.includes("baton-watchdog") && cmd.includes(String(pid))) return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}

async function main(): Promise<void> {
  const [{ act, createElement }, { testRender }, { isEditBufferRenderable }] = await Promise.all([
    import("react").then((react) => ({ act: react.act, createElement: react.createElement })),
    import("@opentui/react/test-utils"),
    import("@opentui/core"),
  ]);
  const { BatonApp } = await import("../src/tui/index.ts");
  const { createCatalog, sessionPlugins } = await import("../src/app/plugins.ts");
  const { fakeDefinition } = await import("../tests/support/fake-adapter.ts");
  const { makeTestHome, openTestSession } = await import("../tests/support/session-host.ts");
  const { FIXTURE_DIR, fixtureVariant, npmEnv } = await import("../tests/support/plugin-rig.ts");
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

  const home = makeTestHome();
  const base = path.dirname(home.home);
  const ctx = { home: home.home, childEnv: npmEnv(base) } as never;
  const catalog = createCatalog(ctx);
  const COUNT = 10;
  process.stdout.write(`installing ${COUNT} plugins (npm pack + offline install each)…\n`);
  for (let i = 0; i < COUNT; i++) {
    const id = `bench/p${i}`;
    const dir = fixtureVariant(path.join(base, `p${i}`), { manifest: (m) => (m["pluginId"] = id) });
    const index = path.join(dir, "index.js");
    await Bun.write(index, readFileSync(path.join(FIXTURE_DIR, "index.js"), "utf8").replace('pluginId: "baton-test/fixture"', `pluginId: "${id}"`));
    await catalog.install(dir);
  }

  const definitions = [fakeDefinition({ turns: [] }, "fake")];
  const session = await openTestSession(home, { definitions });
  const plugins = sessionPlugins(ctx, session, new Set(["exit", "model"]));
  const host = await screenHost(session, home.cwd, plugins);
  const setup = await testRender(createElement(BatonApp, { host }), { width: 120, height: 40, exitOnCtrlC: false });
  await act(async () => {
    await setup.renderOnce();
  });
  const draft = (): string => {
    const focused = setup.renderer.currentFocusedRenderable;
    return focused !== null && isEditBufferRenderable(focused) ? focused.plainText : "";
  };
  /** Keystroke → frame for `ms` milliseconds, one key every 25 ms; the draft is cleared now and then. */
  const keystrokes = async (ms: number): Promise<number[]> => {
    const samples: number[] = [];
    const end = performance.now() + ms;
    while (performance.now() < end) {
      const before = draft().length;
      const s = performance.now();
      await act(async () => {
        host.publish();
        setup.mockInput.pressKey("x");
        await setup.renderOnce();
      });
      samples.push(performance.now() - s);
      if (draft().length !== before + 1) throw new Error("the keystroke did not reach the composer");
      if (draft().length > 60) await act(async () => setup.mockInput.pressKey("u", { ctrl: true }));
      await Bun.sleep(25);
    }
    return samples;
  };

  await keystrokes(2_000); // warm-up (JIT), not counted
  const idle = await keystrokes(6_000);

  // Spawn → active, one plugin at a time (each enable starts a fresh runner). Binding facts re-publish the
  // screen outside act(): fine here, so React is told not to warn.
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;
  const spawn: number[] = [];
  for (let i = 0; i < COUNT; i++) {
    const s = performance.now();
    const binding = await plugins.manager.enable(`bench/p${i}`, async () => true);
    spawn.push(performance.now() - s);
    if (binding.state !== "active") throw new Error(`bench/p${i} did not start: ${binding.reason?.detail ?? binding.state}`);
  }
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  const busy = await keystrokes(6_000);

  // Round trips to one runner.
  const first = plugins.manager.activeBindings()[0];
  if (first === undefined) throw new Error("no active binding");
  const rt: number[] = [];
  for (let i = 0; i < 1_000; i++) {
    const s = performance.now();
    await plugins.manager.execute(first.instance.pluginInstanceId, "echo", String(i));
    rt.push(performance.now() - s);
  }
  const rss = plugins.manager.activeBindings().map((b) => {
    const pid = b.runnerPid ?? 0;
    const dog = watchdogOf(pid);
    return (rssKb(pid) + (dog === undefined ? 0 : rssKb(dog))) / 1024;
  });

  await act(async () => setup.renderer.destroy());
  host.dispose();
  await session.close();
  home.cleanup();

  process.stdout.write(`\n${"figure".padEnd(44)} ${"value".padStart(12)}   budget    ratio OK|OVER\n`);
  report("host→runner round trip p50", quantile(rt, 0.5), "ms", BUDGET.roundTripP99);
  report("host→runner round trip p99", quantile(rt, 0.99), "ms", BUDGET.roundTripP99);
  report("runner spawn → active (median of 10)", quantile(spawn, 0.5), "ms", BUDGET.spawnToActive);
  report("runner spawn → active (max of 10)", Math.max(...spawn), "ms", BUDGET.spawnToActive);
  process.stdout.write(`${"keystroke→frame, no binding (median)".padEnd(44)} ${`${quantile(idle, 0.5).toFixed(2)} ms`.padStart(12)}   (${idle.length} keys)\n`);
  process.stdout.write(`${"keystroke→frame, 10 bindings (median)".padEnd(44)} ${`${quantile(busy, 0.5).toFixed(2)} ms`.padStart(12)}   (${busy.length} keys)\n`);
  report("keystroke→frame 10 bindings / none (median)", quantile(busy, 0.5) / quantile(idle, 0.5), "x", BUDGET.keystrokeRatio);
  report("keystroke→frame 10 bindings / none (p95)", quantile(busy, 0.95) / quantile(idle, 0.95), "x", BUDGET.keystrokeRatio);
  report("RSS per runner incl. watchdog (median)", quantile(rss, 0.5), "MB", BUDGET.runnerRssMb);
  process.exit(allOk ? 0 : 1);
}

await main();
