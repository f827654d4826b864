/**
 * File checkpoints on a 10,000-file git worktree (issue 19). The budget: taking the before-turn checkpoint
 * delays a turn's dispatch by at most 50 ms. Measured as the time from submit to the harness receiving the
 * turn (warm binding, idle session), with checkpoints on minus off, same repository, same turns. Also prints
 * (for information) one snapshot, a follow-up queued behind the previous turn's after-checkpoint, and a
 * rewind to before the session's first turn (restoring the files every turn after it wrote). Each line:
 * figure, value, budget, ratio, OK|OVER.
 *   bun bench/rewind.ts [turns=15] [files=10000]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { openSession, type OpenedSession } from "../src/app/open-session.ts";
import { performRewind, planRewind, rewindSessionOf } from "../src/app/rewind.ts";
import { DEFAULT_CONTROLLER_SETTINGS } from "../src/controller/ports.ts";
import type { Capabilities } from "../src/harness/capabilities.ts";
import type { BindingSink, EventSink, HarnessAdapter, HarnessHandle, HarnessOpenOptions, PromptInput, SendTurnResult } from "../src/harness/contract.ts";
import type { HarnessDefinition } from "../src/harness/definition.ts";
import { HarnessRegistry } from "../src/harness/registry.ts";
import { listToArray } from "../src/projection/index.ts";
import { createSessionStore } from "../src/store/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createUlidSource, type HandleId } from "../src/shared/ids.ts";

const TURNS = Number(process.argv[2] ?? 15);
const FILES = Number(process.argv[3] ?? 10_000);
const BUDGET_MS = 50;

const gitEnv: Record<string, string> = {
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  HOME: os.tmpdir(),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.com",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.com",
};

function git(cwd: string, ...args: string[]): string {
  const result = Bun.spawnSync(["git", ...args], { cwd, env: gitEnv });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

/** Records when each turn reached the harness; each turn edits one file and ends. */
class EditingAdapter implements HarnessAdapter {
  readonly capabilities: Capabilities = {};
  readonly received = new Map<string, number>();
  private sink: EventSink | undefined;
  private cwd = "";
  private n = 0;

  async open(options: HarnessOpenOptions, sink: EventSink, binding: BindingSink): Promise<HarnessHandle> {
    this.sink = sink;
    this.cwd = options.cwd;
    binding.publishIdentity({ harnessSessionId: "bench", resumeState: { version: 1, data: {} }, fresh: true });
    return { id: options.ids.mint("handle") as HandleId };
  }

  async sendTurn(_handle: HarnessHandle, input: PromptInput): Promise<SendTurnResult> {
    this.received.set(input.turnId, performance.now());
    setTimeout(() => {
      writeFileSync(path.join(this.cwd, "d1", `edited-${this.n++}.txt`), `turn ${input.turnId}\n`);
      this.sink?.emit({ kind: "agent_message", payload: { messageId: `m-${input.turnId}`, content: [{ type: "text", text: "done" }] }, turnId: input.turnId });
      this.sink?.emit({ kind: "state_update", payload: { state: "idle", stopReason: "end_turn" }, turnId: input.turnId });
    }, 5);
    return { accepted: true, effective: "new_turn" };
  }

  async cancel(): Promise<void> {}
  async close(): Promise<void> {}
}

function definition(adapter: EditingAdapter): HarnessDefinition {
  return {
    id: "bench",
    aliases: [],
    label: "Bench",
    sessionKey: "bench-wire",
    shortName: "bench",
    color: "#888888",
    settingsSchema: z.strictObject({}),
    capabilities: {},
    create: () => adapter,
    probeExecutable: async () => ({ ok: true, argv: ["bench"], source: "built-in", version: "1" }),
  };
}

async function open(home: string, cwd: string, adapter: EditingAdapter, checkpoints: boolean): Promise<OpenedSession> {
  const ids = createUlidSource();
  return openSession({
    store: createSessionStore({ home, clock: systemClock, ids }),
    registry: new HarnessRegistry([definition(adapter)]),
    cwd,
    choice: { kind: "new" },
    clock: systemClock,
    ids,
    env: gitEnv,
    settings: { ...DEFAULT_CONTROLLER_SETTINGS, generateTitles: false },
    logLevel: "warn",
    fileCheckpoints: checkpoints,
  });
}

async function afterCount(session: OpenedSession, n: number): Promise<void> {
  while (listToArray(session.controller.state.fileCheckpoints).filter((c) => c.boundary === "after").length < n) await Bun.sleep(2);
}

/** Submit-to-dispatch delay of each turn after the first (the first is the cold start). */
async function dispatchDelays(home: string, cwd: string, checkpoints: boolean): Promise<number[]> {
  const adapter = new EditingAdapter();
  const session = await open(home, cwd, adapter, checkpoints);
  const delays: number[] = [];
  try {
    for (let i = 0; i <= TURNS; i++) {
      const submitted = performance.now();
      let turnId = "";
      const stop = session.controller.subscribe((event) => {
        if (turnId === "" && event.kind === "user_message" && event.turnId) turnId = event.turnId;
      });
      await session.controller.submit("bench", [{ type: "text", text: `turn ${i}` }]);
      stop();
      if (checkpoints) await afterCount(session, i + 1);
      // an idle moment between turns, as when a person reads the answer
      await Bun.sleep(30);
      if (i > 0) delays.push((adapter.received.get(turnId) ?? Number.NaN) - submitted);
    }
  } finally {
    await session.close();
  }
  return delays;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function line(figure: string, value: number, budget?: number): boolean {
  const ok = budget === undefined || value <= budget;
  const verdict = budget === undefined ? "(info)" : `budget ${budget} ms  ratio ${(value / budget).toFixed(2)}  ${ok ? "OK" : "OVER"}`;
  console.log(`${figure.padEnd(64)} ${value.toFixed(1).padStart(7)} ms  ${verdict}`);
  return ok;
}

const base = mkdtempSync(path.join(os.tmpdir(), "baton-bench-rewind-"));
try {
  const cwd = path.join(base, "repo");
  mkdirSync(cwd, { recursive: true });
  const perDir = 100;
  for (let d = 0; d < FILES / perDir; d++) {
    mkdirSync(path.join(cwd, `d${d}`), { recursive: true });
    for (let f = 0; f < perDir; f++) writeFileSync(path.join(cwd, `d${d}`, `f${f}.txt`), `file ${d}/${f}\n${"x".repeat(200)}\n`);
  }
  git(cwd, "init", "-q", "-b", "main", ".");
  git(cwd, "add", "-A");
  git(cwd, "commit", "-q", "-m", "bench");
  // Files older than the index, as in a repository someone has worked in (not racily clean).
  await Bun.sleep(1100);
  git(cwd, "update-index", "--refresh");
  console.log(`file checkpoints: ${FILES} tracked files, ${TURNS} warm turns per run, git ${git(cwd, "--version").trim().replace("git version ", "")}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}\n`);

  const off = await dispatchDelays(path.join(base, "home-off"), cwd, false);
  const on = await dispatchDelays(path.join(base, "home-on"), cwd, true);
  const added = median(on) - median(off);
  let ok = line("dispatch delay, checkpoints off (median)", median(off));
  ok = line("dispatch delay, checkpoints on (median)", median(on)) && ok;
  ok = line("added by the before-turn checkpoint (median)", added, BUDGET_MS) && ok;
  line("added by the before-turn checkpoint (p90)", quantile(on, 0.9) - median(off));

  // A follow-up queued behind the previous turn: it waits for that turn's after-checkpoint too.
  const adapter = new EditingAdapter();
  const session = await open(path.join(base, "home-queued"), cwd, adapter, true);
  try {
    await session.controller.submit("bench", [{ type: "text", text: "warm up" }]);
    await afterCount(session, 1);
    const queued: number[] = [];
    for (let i = 0; i < 5; i++) {
      let second = "";
      const stop = session.controller.subscribe((event) => {
        if (event.kind === "user_message" && event.turnId) second = event.turnId;
      });
      const first = session.controller.submit("bench", [{ type: "text", text: `first ${i}` }]);
      const queuedAt = performance.now();
      const next = session.controller.submit("bench", [{ type: "text", text: `queued ${i}` }]);
      await first;
      const released = performance.now();
      await next;
      stop();
      queued.push((adapter.received.get(second) ?? Number.NaN) - Math.max(released, queuedAt));
      await afterCount(session, 2 + 2 * i + 1);
    }
    line("queued follow-up: end of previous turn → dispatch (median)", median(queued));

    // One snapshot on its own, and a rewind to before the first turn.
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) await session.checkpoints.snapshot("bench");
    line("one snapshot (add -A, write-tree, commit-tree; mean of 5)", (performance.now() - t0) / 5);
    const rewind = rewindSessionOf(session, { store: createSessionStore({ home: path.join(base, "home-queued"), clock: systemClock, ids: createUlidSource() }), ids: createUlidSource(), clock: systemClock, env: {} });
    const point = rewind.state().fileCheckpoints.length > 0 ? listToArray(rewind.state().fileCheckpoints).find((c) => c.boundary === "before")! : undefined;
    if (point) {
      const start = performance.now();
      const plan = await planRewind(rewind, point.turnId);
      await performRewind(rewind, plan);
      line(`rewind: preview + restore ${plan.files.length} files + fork`, performance.now() - start);
    }
  } finally {
    await session.close();
  }
  console.log(`\nbudget ${ok ? "met" : "NOT met"}`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
