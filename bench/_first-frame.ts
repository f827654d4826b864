/**
 * Time to the first full frame of the real `baton` in a real terminal (tmux), for `bench/tui.ts`.
 *
 * What is timed: from the moment the pane's shell is told to `exec` baton (it waits on `read` until then, so
 * tmux, the shell and the output pipe are up before the clock starts) until the terminal has received the
 * first complete frame: the footer (`queue:`) followed by the end of its synchronized update (`ESC[?2026l`).
 * The bytes are read from `tmux pipe-pane` (the pane's raw output), not from anything the app reports itself.
 *
 * Variants, alternated within every round (so each sees the same machine load), after one warm-up round:
 * direct (`bun src/app/main.ts`) and through the npm launcher (`node bin/baton.cjs`) on an empty BATON_HOME;
 * direct on an empty BATON_HOME with a small config.yaml (most users have one; the same ≤ 300 ms budget);
 * direct on a 100k-event session (bench/_fixture.ts) with its checkpoint and without one. With `--baseline DIR`
 * (another checkout, e.g. `git worktree add /tmp/base main`) every variant also runs from that tree, alternated
 * with this one, and the ratio this ÷ baseline is printed per variant. `--variants direct,launcher` runs only those
 * (keys: direct, launcher, configured, checkpoint, nocheckpoint).
 */
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { codexDefinition } from "../src/harness/codex/definition.ts";
import { makeTestHome, openTestSession } from "../tests/support/session-host.ts";
import { sessionDir } from "../tests/support/session-files.ts";
import { processesIn, Tmux } from "../tests/support/tmux.ts";
import { turnDrafts } from "./_fixture.ts";
import { startOf } from "./_proc.ts";
import { samples, withSpread, type BenchReport } from "./_report.ts";

export const FIRST_FRAME_BUDGET = { empty: 300, launcherAdds: 60, session100k: 350 } as const;
const FRAME_TIMEOUT_MS = 30_000;
const EXIT_TIMEOUT_MS = 30_000;

interface Home {
  readonly home: string;
  readonly cwd: string;
  readonly args: readonly string[];
  /** Called before each start (e.g. remove the checkpoint). */
  readonly prepare?: () => void;
  cleanup(): void;
}

/** A session of `events` events (bench/_fixture.ts turns), written and closed (so it has a checkpoint). */
async function sessionHome(events: number): Promise<{ home: string; cwd: string; id: string; cleanup(): void }> {
  const home = makeTestHome();
  const session = await openTestSession(home, { definitions: [codexDefinition] });
  let count = 0;
  for (let turn = 0; count < events; turn++) {
    for (const draft of turnDrafts(turn)) {
      session.controller.pipeline.append(draft as never);
      count++;
    }
  }
  const id = session.ref.batonSessionId;
  await session.close();
  return { home: home.home, cwd: home.cwd, id, cleanup: home.cleanup };
}

function removeCheckpoints(home: string, id: string): void {
  const dir = sessionDir(home, id);
  for (const name of readdirSync(dir)) if (name.startsWith("checkpoint")) rmSync(path.join(dir, name), { recursive: true, force: true });
}

/** New bytes of a growing file since `offset`. */
function readFrom(file: string, offset: number): string {
  if (!existsSync(file)) return "";
  const size = statSync(file).size;
  if (size <= offset) return "";
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(size - offset);
    readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.toString("latin1");
  } finally {
    closeSync(fd);
  }
}

/** Resident memory of a process, MB (0 when it is gone). */
function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? 0 : Number(kb) / 1024;
  } catch {
    return 0;
  }
}

/** Baton's RSS once the frame is out and what runs after it (history check, plugin host) had a second. */
const SETTLE_MS = 1000;

/**
 * One start in a fresh tmux server: ms from `exec` until the first full frame reached the terminal, and the
 * largest RSS of the processes it started, SETTLE_MS after that frame.
 */
async function startOnce(command: readonly string[], home: Home): Promise<{ ms: number; rssMb: number }> {
  home.prepare?.();
  const scratch = mkdtempSync(path.join(os.tmpdir(), "baton-bench-pane-"));
  const raw = path.join(scratch, "pane.raw");
  const env = { PATH: process.env["PATH"] ?? "", HOME: home.home, BATON_HOME: home.home, TERM: "screen-256color", LANG: "C.UTF-8" };
  const tmux = Tmux.start({ command: ["sh", "-c", 'read _ && exec "$@"', "sh", ...command, ...home.args], env, cwd: home.cwd, width: 120, height: 40 });
  try {
    tmux.pipeRaw(raw);
    await Bun.sleep(30);
    const started = performance.now();
    tmux.keys("Enter");
    let seen = "";
    for (;;) {
      seen += readFrom(raw, seen.length);
      const footer = seen.indexOf("queue:");
      if (footer >= 0 && seen.indexOf("\x1b[?2026l", footer) >= 0) {
        const ms = performance.now() - started;
        await Bun.sleep(SETTLE_MS);
        return { ms, rssMb: Math.max(0, ...[...processesIn(home.cwd, "node"), ...processesIn(home.cwd, "bun")].map(rssMb)) };
      }
      if (performance.now() - started > FRAME_TIMEOUT_MS) throw new Error(`no frame within ${FRAME_TIMEOUT_MS} ms: ${command.join(" ")}\n${tmux.capture()}`);
      await Bun.sleep(2);
    }
  } finally {
    // SIGTERM runs the normal shutdown (which closes the session and writes its checkpoint); wait for it, so the
    // next start finds the session unlocked and the machine quiet.
    const running = (): number[] => [...processesIn(home.cwd, "node"), ...processesIn(home.cwd, "bun")];
    for (const pid of running()) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // gone already
      }
    }
    const until = Date.now() + EXIT_TIMEOUT_MS;
    while (running().length > 0 && Date.now() < until) await Bun.sleep(10);
    tmux.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}

interface Tree {
  readonly label: string;
  readonly root: string;
}

interface Variant {
  readonly key: string;
  readonly figure: string;
  readonly command: (root: string) => readonly string[];
  readonly home: (tree: number) => Home;
}

/** Runs every variant `rounds` times (after a warm-up round), alternated, on each tree; prints the figures. */
export async function firstFrames(report: BenchReport, options: { readonly rounds: number; readonly baseline?: string; readonly events?: number; readonly variants?: readonly string[] }): Promise<void> {
  const trees: Tree[] = [{ label: "this", root: path.resolve(import.meta.dir, "..") }];
  if (options.baseline !== undefined) trees.push({ label: "baseline", root: path.resolve(options.baseline) });
  const bun = process.execPath;
  const direct = (root: string): readonly string[] => [bun, path.join(root, "src/app/main.ts")];
  const launcher = (root: string): readonly string[] => ["node", path.join(root, "bin/baton.cjs")];
  for (const tree of trees) report.info(`${tree.label === "this" ? "this checkout" : `baseline (${options.baseline})`} starts from`, startOf(path.join(tree.root, "src/app/main.ts")));

  const events = options.events ?? 100_000;
  const empties = trees.map(() => makeTestHome());
  // Most users have a config.yaml: the same empty session with one (what loading it costs a start is in the frame).
  const configured = trees.map(() => makeTestHome());
  for (const home of configured) {
    mkdirSync(home.home, { recursive: true });
    writeFileSync(path.join(home.home, "config.yaml"), "# a typical config\ndefaultAgent: codex\nshowThoughts: true\nnotify:\n  afterSeconds: 30\n");
  }
  // One session per tree (the same deterministic events), so neither reads a checkpoint the other wrote.
  const sessions: Awaited<ReturnType<typeof sessionHome>>[] = [];
  const needsSession = options.variants === undefined || options.variants.some((key) => key === "checkpoint" || key === "nocheckpoint");
  if (needsSession) for (const _ of trees) sessions.push(await sessionHome(events));
  const emptyHome = (tree: number): Home => ({ home: empties[tree]!.home, cwd: empties[tree]!.cwd, args: [], cleanup: () => undefined });
  const configuredHome = (tree: number): Home => ({ home: configured[tree]!.home, cwd: configured[tree]!.cwd, args: [], cleanup: () => undefined });
  const sessionOf = (tree: number, withCheckpoint: boolean): Home => {
    const s = sessions[tree]!;
    return { home: s.home, cwd: s.cwd, args: ["-s", s.id], cleanup: () => undefined, ...(withCheckpoint ? {} : { prepare: () => removeCheckpoints(s.home, s.id) }) };
  };
  const k = `${Math.round(events / 1000)}k`;
  const all: Variant[] = [
    { key: "direct", figure: "first frame, empty session, direct", command: direct, home: emptyHome },
    { key: "launcher", figure: "first frame, empty session, via bin/baton.cjs", command: launcher, home: emptyHome },
    { key: "configured", figure: "first frame, empty session with a config.yaml, direct", command: direct, home: configuredHome },
    // With its checkpoint first: the open without one rewrites it at close, for the next round.
    { key: "checkpoint", figure: `first frame, ${k} session with checkpoint`, command: direct, home: (tree) => sessionOf(tree, true) },
    { key: "nocheckpoint", figure: `first frame, ${k} session without checkpoint`, command: direct, home: (tree) => sessionOf(tree, false) },
  ];
  const variants = options.variants === undefined ? all : all.filter((variant) => options.variants!.includes(variant.key));
  const times = new Map<string, number[]>();
  const rss = new Map<string, number[]>();
  try {
    for (let round = 0; round <= options.rounds; round++) {
      // Alternate which tree goes first, so neither always runs right after the other's shutdown.
      const order = round % 2 === 0 ? trees.map((_, i) => i) : trees.map((_, i) => i).reverse();
      for (const variant of variants) {
        for (const tree of order) {
          const { ms, rssMb } = await startOnce(variant.command(trees[tree]!.root), variant.home(tree));
          if (round === 0) continue;
          const key = `${tree}:${variant.key}`;
          times.set(key, [...(times.get(key) ?? []), ms]);
          rss.set(key, [...(rss.get(key) ?? []), rssMb]);
        }
      }
    }
  } finally {
    for (const home of [...empties, ...configured]) home.cleanup();
    for (const s of sessions) s.cleanup();
  }
  const of = (tree: number, key: string): number[] => times.get(`${tree}:${key}`) ?? [];
  const budgetOf: Record<string, number | undefined> = { direct: FIRST_FRAME_BUDGET.empty, configured: FIRST_FRAME_BUDGET.empty, checkpoint: FIRST_FRAME_BUDGET.session100k };
  for (const variant of variants) {
    const mine = samples(of(0, variant.key));
    const budget = budgetOf[variant.key];
    if (budget !== undefined) report.figure(variant.figure, withSpread(mine, "ms"), `${budget} ms`, mine.median / budget);
    else report.info(variant.figure, withSpread(mine, "ms"));
    report.info(`  RSS ${SETTLE_MS / 1000} s after the first frame`, withSpread(samples(rss.get(`0:${variant.key}`) ?? []), "MB"));
    if (variant.key === "launcher") {
      const added = samples(of(0, "launcher").map((ms, i) => ms - (of(0, "direct")[i] ?? ms)));
      report.figure("  the launcher adds (paired per round)", withSpread(added, "ms"), `${FIRST_FRAME_BUDGET.launcherAdds} ms`, added.median / FIRST_FRAME_BUDGET.launcherAdds);
    }
    if (trees.length > 1) {
      const base = samples(of(1, variant.key));
      const ratios = samples(of(0, variant.key).map((ms, i) => ms / (of(1, variant.key)[i] ?? ms)));
      report.info(`  baseline (${options.baseline})`, withSpread(base, "ms"));
      report.info(`  baseline RSS ${SETTLE_MS / 1000} s after the first frame`, withSpread(samples(rss.get(`1:${variant.key}`) ?? []), "MB"));
      report.info("  this ÷ baseline, per round", `${ratios.median.toFixed(2)}× (${ratios.min.toFixed(2)}–${ratios.max.toFixed(2)})`);
    }
  }
}
