/**
 * Baton's per-turn overhead on Codex: the same scripted turns against the mock Responses server,
 * driven (a) through all of Baton — controller, ledger (with its fsync before dispatch), projection,
 * adapter — as `baton exec --session` does it, minus the process start; (b) through the Codex adapter
 * alone; (c) through a minimal raw JSON-RPC client on `codex app-server`. Turns alternate so all three
 * see the same machine load. Budget: Baton adds ≤ 5 % or ≤ 10 ms per turn.
 *   bun bench/codex-overhead.ts [turns=20]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSession } from "../src/app/open-session.ts";
import { DEFAULT_CONTROLLER_SETTINGS } from "../src/controller/ports.ts";
import { CodexAdapter } from "../src/harness/codex/adapter.ts";
import { codexDefinition } from "../src/harness/codex/definition.ts";
import { HarnessRegistry } from "../src/harness/registry.ts";
import { createSessionStore } from "../src/store/index.ts";
import { resolveInstalledCodex } from "../src/harness/codex/executable.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createUlidSource } from "../src/shared/ids.ts";
import { silentLogger } from "../src/shared/log.ts";
import { makeCodexHome } from "../tests/support/codex-home.ts";
import { startMockResponses, type MockReply } from "../tests/support/mock-responses/index.ts";
import { RecordingSink, ScriptedInteractions } from "../tests/support/recording-host.ts";

const TURNS = Number(process.argv[2] ?? 20);
const WARMUP = 2;
const REPLY: MockReply = { kind: "text", text: "The quick brown fox jumps over the lazy dog. ".repeat(8), chunkSize: 24 };

const bin = resolveInstalledCodex();
if (bin === undefined) {
  process.stderr.write("codex-overhead: @openai/codex is not installed; nothing to measure\n");
  process.exit(1);
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
  child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
  const thread = (await call("thread/start", { cwd })) as { thread: { id: string } };
  return {
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

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))] as number;

const mock = await startMockResponses();
const rawHome = makeCodexHome({ baseUrl: mock.baseUrl });
const batonHome = makeCodexHome({ baseUrl: mock.baseUrl });
const fullHome = makeCodexHome({ baseUrl: mock.baseUrl });
const storeDir = mkdtempSync(path.join(os.tmpdir(), "baton-bench-codex-"));
try {
  const fullIds = createUlidSource();
  const session = await openSession({
    store: createSessionStore({ home: storeDir, clock: systemClock, ids: fullIds }),
    registry: new HarnessRegistry([codexDefinition]),
    cwd: fullHome.workdir,
    choice: { kind: "new" },
    clock: systemClock,
    ids: fullIds,
    env: { ...fullHome.env, BATON_CODEX_BIN: bin },
    settings: { ...DEFAULT_CONTROLLER_SETTINGS, generateTitles: false },
    logLevel: "warn",
  });
  const fullTurn = async (text: string): Promise<number> => {
    const start = performance.now();
    await session.controller.submit("codex", [{ type: "text", text }]);
    return performance.now() - start;
  };
  const raw = await rawClient(rawHome.env, rawHome.workdir);
  const ids = createUlidSource();
  const sink = new RecordingSink();
  const adapter = new CodexAdapter();
  const handle = await adapter.open(
    { targetId: "codex", cwd: batonHome.workdir, env: { ...batonHome.env, BATON_CODEX_BIN: bin }, interactions: new ScriptedInteractions(), ids, clock: systemClock, log: silentLogger },
    sink,
    sink,
  );
  const batonTurn = async (text: string): Promise<number> => {
    const turnId = ids.mint("turn");
    const start = performance.now();
    await adapter.sendTurn(handle, { turnId, messageId: ids.mint("message"), blocks: [{ type: "text", text }] });
    await sink.waitForIdle(turnId, 30_000);
    return performance.now() - start;
  };
  const rawTimes: number[] = [];
  const batonTimes: number[] = [];
  const fullTimes: number[] = [];
  for (let i = 0; i < WARMUP + TURNS; i++) {
    await mock.script([REPLY]);
    const r = await raw.turn(`turn ${i}`);
    await mock.script([REPLY]);
    const b = await batonTurn(`turn ${i}`);
    await mock.script([REPLY]);
    const f = await fullTurn(`turn ${i}`);
    if (i >= WARMUP) {
      rawTimes.push(r);
      batonTimes.push(b);
      fullTimes.push(f);
    }
  }
  await adapter.close(handle);
  await session.close();
  await raw.close();
  const rawMedian = median(rawTimes);
  const batonMedian = median(batonTimes);
  const fullMedian = median(fullTimes);
  const overheadMs = fullMedian - rawMedian;
  const ratio = fullMedian / rawMedian;
  const within = overheadMs <= 10 || ratio <= 1.05;
  const fmt = (n: number) => n.toFixed(1).padStart(7);
  process.stdout.write(
    [
      `codex-overhead: ${TURNS} text turns (+${WARMUP} warm-up), ${REPLY.kind} reply of ${REPLY.text.length} chars in ${Math.ceil(REPLY.text.length / (REPLY.chunkSize ?? 1))} deltas`,
      `                     median ms     p90 ms`,
      `  raw app-server   ${fmt(rawMedian)}    ${fmt(p90(rawTimes))}`,
      `  baton adapter    ${fmt(batonMedian)}    ${fmt(p90(batonTimes))}   (adapter alone: +${(batonMedian - rawMedian).toFixed(1)} ms)`,
      `  all of baton     ${fmt(fullMedian)}    ${fmt(p90(fullTimes))}   (controller + ledger + projection + adapter)`,
      `  overhead: ${overheadMs.toFixed(1)} ms per turn, ratio ${ratio.toFixed(3)}  (budget: ≤ 5 % or ≤ 10 ms) → ${within ? "within budget" : "OVER BUDGET"}`,
      `  drafts per baton turn: ${(sink.drafts.length / (WARMUP + TURNS)).toFixed(1)}`,
      "",
    ].join("\n"),
  );
} finally {
  await mock.stop();
  rawHome.cleanup();
  batonHome.cleanup();
  fullHome.cleanup();
  rmSync(storeDir, { recursive: true, force: true });
}
