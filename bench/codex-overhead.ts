/**
 * Baton's overhead on Codex (issue #18), against the same mock Responses server, each pair of runs alternated
 * (which side goes first flips every pair) so both see the same machine load; median and spread:
 *
 *   1. A one-turn new session: `baton exec --agent codex "…"` (bun on src/app/main.ts) vs `codex exec "…"`, each
 *      timed from spawn to process exit — so whatever either leaves running after its turn (Baton's checkpoint,
 *      meta and log at close) is inside its own window. Budget: ≤ 1.3× `codex exec`. Each side keeps its own
 *      HOME, CODEX_HOME and BATON_HOME across the pairs — an installed, used Baton and Codex starting a new
 *      session (a fresh HOME per run would charge Bun's transpiler cache and Codex's first-run setup to every
 *      run); the first pair, in fresh homes, is the warm-up and is printed as the first run ever.
 *      `--against <checkout>` adds that checkout's `baton exec` as a third side (A/B in the same run).
 *      The floor beside them, in the same alternation: a raw client's one turn on `codex app-server` (spawn,
 *      initialize, thread/start, turn/start → turn/completed, stdin EOF → exit), with its phases — what any
 *      app-server client pays before Baton does anything, against `codex exec`'s whole run.
 *   2. Per turn in a long session: all of Baton (controller, ledger with its fsync before dispatch, projection,
 *      adapter) as `baton exec --session` drives a turn, on a session that already holds `--events` events,
 *      vs a minimal raw JSON-RPC client on `codex app-server`. Baton's window ends when the background work the
 *      turn started (checkpoint, meta.json, log, file checkpoints) has finished. The adapter alone is shown for
 *      reference. `--pairs` alternated pairs of `--turns`-turn blocks per side (bench/_turn-pairs.ts); with
 *      `--against`, that checkout's Baton on a copy of the same session is a side too (A/B in the same run).
 *      Budget: ≤ 5 % or ≤ 10 ms per turn.
 *
 *   node_modules/.bin/bun bench/codex-overhead.ts [--pairs 9] [--turns 5] [--events 100000] [--only exec|turns] [--against /work/main]
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { OpenedSession } from "../src/app/open-session.ts";
import { CodexAdapter } from "../src/harness/codex/adapter.ts";
import { resolveInstalledCodex } from "../src/harness/codex/executable.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createUlidSource } from "../src/shared/ids.ts";
import { silentLogger } from "../src/shared/log.ts";
import { BATON_ENTRY } from "../tests/support/baton-process.ts";
import { makeCodexHome } from "../tests/support/codex-home.ts";
import { startMockResponses, type MockReply } from "../tests/support/mock-responses/index.ts";
import { RecordingSink, ScriptedInteractions } from "../tests/support/recording-host.ts";
import { turnDrafts } from "./_fixture.ts";
import { BenchReport, samples, withSpread } from "./_report.ts";
import { startOf } from "./_proc.ts";
import { againstRoot, reportTurnPairs, runTurnPairs, type TurnSide } from "./_turn-pairs.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { pairs: { type: "string" }, turns: { type: "string" }, events: { type: "string" }, only: { type: "string" }, against: { type: "string" } } });
const PAIRS = Number(values.pairs ?? 9);
const TURNS = Number(values.turns ?? 5);
const EVENTS = Number(values.events ?? 100_000);
const EXEC_RATIO_BUDGET = 1.3;
const REPLY: MockReply = { kind: "text", text: "The quick brown fox jumps over the lazy dog. ".repeat(8), chunkSize: 24 };

const bin = resolveInstalledCodex();
if (bin === undefined) {
  process.stderr.write("codex-overhead: @openai/codex is not installed; nothing to measure\n");
  process.exit(1);
}

/** Runs a process to its exit; ms from spawn to exit. Throws on a non-zero exit. */
function timedRun(argv: readonly string[], env: Record<string, string>, cwd: string): Promise<number> {
  const [file, ...args] = argv;
  const started = performance.now();
  const child = spawn(file as string, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${argv.slice(0, 3).join(" ")} exited ${code}: ${stderr.slice(-1500)}`));
    });
  });
}

/** The minimal raw client: initialize, thread/start, turn/start → turn/completed. */
async function rawClient(env: Record<string, string>, cwd: string) {
  const child = spawn(bin as string, ["app-server"], { cwd, env, stdio: ["pipe", "pipe", "ignore"] });
  let buffer = "";
  let nextId = 1;
  const pending = new Map<number, (result: unknown) => void>();
  let onCompleted: (() => void) | undefined;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (data: string) => {
    buffer += data;
    for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
      const message = JSON.parse(buffer.slice(0, at)) as { id?: number; method?: string; result?: unknown };
      buffer = buffer.slice(at + 1);
      if (message.method === "turn/completed") onCompleted?.();
      else if (message.method === undefined && message.id !== undefined) pending.get(message.id)?.(message.result);
    }
  });
  const call = (method: string, params: unknown) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  await call("initialize", { clientInfo: { name: "raw", title: null, version: "0" }, capabilities: { experimentalApi: true, requestAttestation: false } });
  const initializedAt = performance.now();
  child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
  const thread = (await call("thread/start", { cwd })) as { thread: { id: string } };
  return {
    initializedAt,
    threadAt: performance.now(),
    async turn(text: string): Promise<number> {
      const done = new Promise<void>((resolve) => (onCompleted = resolve));
      const start = performance.now();
      void call("turn/start", { threadId: thread.thread.id, input: [{ type: "text", text, text_elements: [] }] });
      await done;
      return performance.now() - start;
    },
    async close() {
      child.stdin.end();
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

/** One turn of the raw client, each phase in ms from the spawn: the app-server's own cost of a one-turn run. */
async function rawOneTurn(env: Record<string, string>, cwd: string, text: string): Promise<Record<"initialized" | "thread" | "completed" | "exit", number>> {
  const started = performance.now();
  const client = await rawClient(env, cwd);
  const thread = client.threadAt - started;
  await client.turn(text);
  const completed = performance.now() - started;
  await client.close();
  return { initialized: client.initializedAt - started, thread, completed, exit: performance.now() - started };
}

const report = new BenchReport("codex-overhead");
const mock = await startMockResponses();
const homes: { cleanup(): void }[] = [];
const fresh = () => {
  const home = makeCodexHome({ baseUrl: mock.baseUrl });
  homes.push(home);
  return home;
};
try {
  if (values.only === undefined || values.only === "exec") {
    // 1. one-turn new session, process start to exit; each side in homes of its own, kept across the pairs.
    const sides: { name: string; argv: (prompt: string) => string[]; baton: boolean }[] = [
      { name: "codex exec", argv: (prompt) => [bin, "exec", "--skip-git-repo-check", prompt], baton: false },
      { name: "baton exec", argv: (prompt) => [process.execPath, BATON_ENTRY, "exec", "--agent", "codex", prompt], baton: true },
    ];
    if (values.against !== undefined) {
      const entry = path.resolve(values.against, "src/app/main.ts");
      sides.push({ name: `baton exec (${values.against})`, argv: (prompt) => [process.execPath, entry, "exec", "--agent", "codex", prompt], baton: true });
    }
    for (const side of sides) if (side.baton) report.info(`${side.name} starts from`, startOf(side.argv("")[1] as string));
    const sideHomes = sides.map(() => fresh());
    const times = sides.map(() => [] as number[]);
    const firstRun = sides.map(() => 0);
    const rawHome = fresh();
    const raw: Record<"initialized" | "thread" | "completed" | "exit", number>[] = [];
    for (let pair = 0; pair < PAIRS + 1; pair++) {
      const order = [...sides.map((_, i) => i), -1];
      if (pair % 2 === 1) order.reverse();
      for (const i of order) {
        if (i === -1) {
          await mock.script([REPLY]);
          const phases = await rawOneTurn(rawHome.env, rawHome.workdir, `pair ${pair}`);
          if (pair > 0) raw.push(phases);
          continue;
        }
        const side = sides[i]!;
        const home = sideHomes[i]!;
        await mock.script([REPLY]);
        const env = side.baton ? { ...home.env, BATON_HOME: path.join(home.root, "baton"), BATON_CODEX_BIN: bin } : home.env;
        const ms = await timedRun(side.argv(`pair ${pair}`), env, home.workdir);
        if (pair === 0) firstRun[i] = ms; // warm-up: fresh homes (transpiler cache, Codex's first start)
        else times[i]!.push(ms);
      }
    }
    const codexTimes = times[0]!;
    report.info("first run in fresh homes: " + sides.map((side) => side.name).join(" / "), firstRun.map((ms) => ms.toFixed(0)).join(" / ") + " ms");
    // The floor: what the app-server itself takes for the same turn, against codex exec's whole run (same pairs).
    const phase = (key: keyof (typeof raw)[number]) => withSpread(samples(raw.map((one) => one[key])), "ms");
    report.info("raw app-server client: spawn → initialize answered", phase("initialized"));
    report.info("  → thread/start answered", phase("thread"));
    report.info("  → turn/completed", phase("completed"));
    report.info("  → exit after stdin EOF (its one-turn run)", phase("exit"));
    const ofCodex = (values: readonly number[]) => samples(values.map((ms, k) => ms / (codexTimes[k] as number)));
    const spread = (s: { median: number; min: number; max: number }) => `${s.median.toFixed(2)}× (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
    report.info("  app-server spawn → initialize ÷ codex exec", spread(ofCodex(raw.map((one) => one.initialized))));
    report.info("  app-server one-turn run ÷ codex exec (the floor)", spread(ofCodex(raw.map((one) => one.exit))));
    for (const [i, side] of sides.entries()) {
      report.info(`${side.name}, one-turn new session (spawn → exit)`, withSpread(samples(times[i]!), "ms"));
      if (i === 0) continue;
      const ratios = samples(times[i]!.map((ms, k) => ms / (codexTimes[k] as number)));
      report.info(`  ${side.name} adds (median of pairs)`, withSpread(samples(times[i]!.map((ms, k) => ms - (codexTimes[k] as number))), "ms"));
      report.info(`  ${side.name} ÷ the raw app-server run`, spread(samples(times[i]!.map((ms, k) => ms / (raw[k] as { exit: number }).exit))));
      const label = `${side.name} ÷ codex exec (${PAIRS} pairs)`;
      const value = `${ratios.median.toFixed(2)}× (${ratios.min.toFixed(2)}–${ratios.max.toFixed(2)})`;
      if (i === 1) report.figure(label, value, `${EXEC_RATIO_BUDGET}×`, ratios.median / EXEC_RATIO_BUDGET);
      else {
        report.info(label, value);
        const ab = samples(times[1]!.map((ms, k) => ms / (times[i]![k] as number)));
        report.info(`  this checkout ÷ ${values.against}`, `${ab.median.toFixed(2)}× (${ab.min.toFixed(2)}–${ab.max.toFixed(2)})`);
      }
    }
  }

  if (values.only === undefined || values.only === "turns") {
    // 2. per turn in a long session: blocks of TURNS turns per side, PAIRS alternated pairs (bench/_turn-pairs.ts).
    const rawHome = fresh();
    const adapterHome = fresh();
    const fullHome = fresh();
    const storeDir = mkdtempSync(path.join(os.tmpdir(), "baton-bench-codex-"));
    homes.push({ cleanup: () => rmSync(storeDir, { recursive: true, force: true }) });
    const batonOf = async (root: string | undefined) => {
      const from = (file: string) => (root === undefined ? import(`../${file}`) : import(path.join(root, file)));
      const [app, ports, definition, registry, store, clock, ids] = await Promise.all([
        from("src/app/open-session.ts"), from("src/controller/ports.ts"), from("src/harness/codex/definition.ts"), from("src/harness/registry.ts"),
        from("src/store/index.ts"), from("src/shared/clock.ts"), from("src/shared/ids.ts"),
      ]);
      return (home: string, choice: { kind: "new" } | { kind: "id"; id: string }): Promise<OpenedSession> => {
        const sessionIds = ids.createUlidSource();
        return app.openSession({
          store: store.createSessionStore({ home, clock: clock.systemClock, ids: sessionIds }),
          registry: new registry.HarnessRegistry([definition.codexDefinition]),
          cwd: fullHome.workdir,
          choice,
          clock: clock.systemClock,
          ids: sessionIds,
          env: { ...fullHome.env, BATON_CODEX_BIN: bin },
          settings: { ...ports.DEFAULT_CONTROLLER_SETTINGS, generateTitles: false },
          logLevel: "warn",
        });
      };
    };
    const openHere = await batonOf(undefined);
    // The long session: EVENTS events of earlier turns, written and closed (checkpoint), opened again.
    const writer = await openHere(storeDir, { kind: "new" });
    let count = 0;
    for (let turn = 0; count < EVENTS; turn++) {
      for (const draft of turnDrafts(turn)) {
        writer.controller.pipeline.append(draft as never);
        count++;
      }
    }
    const sessionId = writer.ref.batonSessionId;
    await writer.close();
    const batonSide = (name: string, session: OpenedSession): TurnSide => ({
      name,
      async turn(text) {
        const start = performance.now();
        await session.controller.submit("codex", [{ type: "text", text }]);
        // What the turn left running (turn-end hook, checkpoint, meta.json, log, trace) is inside this window.
        await session.backgroundSettled();
        return performance.now() - start;
      },
    });
    const opened: OpenedSession[] = [];
    const session = await openHere(storeDir, { kind: "id", id: sessionId });
    opened.push(session);
    const raw = await rawClient(rawHome.env, rawHome.workdir);
    const ids = createUlidSource();
    const sink = new RecordingSink();
    const adapter = new CodexAdapter();
    const handle = await adapter.open(
      { targetId: "codex", cwd: adapterHome.workdir, env: { ...adapterHome.env, BATON_CODEX_BIN: bin }, interactions: new ScriptedInteractions(), ids, clock: systemClock, log: silentLogger },
      sink,
      sink,
    );
    const sides: TurnSide[] = [
      { name: "raw app-server client", turn: raw.turn },
      {
        name: "Codex adapter alone",
        async turn(text) {
          const turnId = ids.mint("turn");
          const start = performance.now();
          await adapter.sendTurn(handle, { turnId, messageId: ids.mint("message"), blocks: [{ type: "text", text }] });
          await sink.waitForIdle(turnId, 30_000);
          return performance.now() - start;
        },
      },
      batonSide(`all of Baton, ${Math.round(EVENTS / 1000)}k events, background incl.`, session),
    ];
    const against = againstRoot(values.against);
    if (against !== undefined) {
      // The same long session, copied, opened by the other checkout's Baton: an A/B in the same run.
      const baseDir = mkdtempSync(path.join(os.tmpdir(), "baton-bench-codex-base-"));
      homes.push({ cleanup: () => rmSync(baseDir, { recursive: true, force: true }) });
      cpSync(storeDir, baseDir, { recursive: true });
      const base = await (await batonOf(against))(baseDir, { kind: "id", id: sessionId });
      opened.push(base);
      sides.push(batonSide(`Baton of ${values.against}`, base));
    }
    const result = await runTurnPairs(sides, { pairs: PAIRS, turns: TURNS, warmup: 1, before: () => mock.script([REPLY]) });
    await adapter.close(handle);
    for (const one of opened) await one.close();
    await raw.close();
    const shape = `${PAIRS} pairs × ${TURNS} turns`;
    reportTurnPairs(report, result, sides, { direct: 0, baton: 2, ...(against !== undefined ? { baseline: 3 } : {}) }, "Baton adds per turn (≤ 10 ms or ≤ 5 %)", shape);
  }
} finally {
  await mock.stop();
  for (const home of homes) home.cleanup();
}
process.exit(report.summary() ? 0 : 1);
