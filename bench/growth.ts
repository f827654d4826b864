/**
 * Growth table (issue #18, "Scale"): how open time, memory and the checkpoint grow with the session.
 *
 *   node_modules/.bin/bun bench/growth.ts [--sizes 10000,30000,100000,300000,1000000] [--rounds 7] [--big-rounds 3] [--no-export]
 *   node_modules/.bin/bun bench/growth.ts --ratio-only [--rounds 21]
 *
 * One generated session (bench/_fixture.ts: 500-event turns, ~1 KB per event, ~92 % streamed chunks with `raw`
 * kept) grows through the sizes, folded as the live session folds it, with a checkpoint at each size. At each
 * size three more turns end with a checkpoint each (a turn end: the bytes it writes — node-file append + head —
 * and its CPU), one more turn is left as the tail an open replays, and the session directory is copied aside.
 * Then every copy is opened in fresh child processes, read-only, the sizes alternated round by round: with the
 * checkpoint and its digest check deferred (the TUI), with the digest checked during the open (exec, export),
 * and without a checkpoint (a full replay). `--rounds` rounds for the sizes of the ratio figures (the smallest
 * and 300k), `--big-rounds` for the others. Each figure: median (min–max). The goal (#18): open time and RSS
 * with a checkpoint at 300k within 1.3× of those at 10k, as the median of the per-round ratios.
 * Last, at each size, `export --format json` once as it streams and once as the whole-projection export it
 * replaced, each in a fresh process into /dev/null: their peak RSS (a memory check, not a timing).
 *
 * `--ratio-only`: only the budget figure, made steadier — 10k and 300k, only the open with a checkpoint (deferred),
 * the two sizes back to back in every round (order swapped from round to round), `--rounds` (default 21) rounds;
 * each open also reports its CPU (main thread, other threads), where its time goes (the ledger's open, the
 * checkpoint's restore, the tail's replay) and the checkpoint records it loaded, so a term that grows with the
 * history shows as a per-round difference of one phase.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { EXPORT_CACHE_BYTES, exportText, memoryKeeper } from "../src/app/commands/export.ts";
import { initialState, plainState, storedProjectionFold, type ProjectionState } from "../src/projection/index.ts";
import { terminalJson } from "../src/shared/terminal-text.ts";
import type { SessionMeta } from "../src/store/meta.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createUlidSource, type BatonSessionId } from "../src/shared/ids.ts";
import { CHECKPOINT_FILE, loadState, writeCheckpoint, type StateFold } from "../src/store/checkpoint.ts";
import { loadedNodeStats, NODE_CACHE, NODES_PATTERN } from "../src/store/checkpoint-nodes.ts";
import { openLedger, type Ledger } from "../src/store/ledger.ts";
import { threadCpu } from "./_proc.ts";
import { tableLines } from "./_report.ts";
import { EVENTS_PER_TURN, turnDrafts } from "./_fixture.ts";

const SESSION = "bs_01KBENCH0000000000000000000" as BatonSessionId;
const FOLD: StateFold<ProjectionState> = { ...storedProjectionFold, initial: () => initialState(SESSION) };
const RATIO_BUDGET = 1.3;
const RATIO_SIZE = 300_000;
const TURN_ENDS = 3;

type OpenMode = "deferred" | "checked" | "full";
/** `export`: `baton export --format json` as it streams now, into /dev/null; `export-whole`: the whole-projection export it replaced. */
type Mode = OpenMode | "export" | "export-whole";
const MODES: readonly OpenMode[] = ["deferred", "checked", "full"];
const EXPORTS = ["export", "export-whole"] as const;

interface OpenReport {
  readonly openMs: number;
  /** Peak resident set of the opening process (VmHWM). */
  readonly rssMb: number;
  readonly fromCheckpoint: boolean;
  readonly replayed: number;
  /** An export's output bytes. */
  readonly bytes?: number;
  /** CPU of the open, ms: the main thread's and the runtime's other threads' (JIT compilers, GC markers). */
  readonly mainCpuMs?: number;
  readonly otherCpuMs?: number;
  /** Where the open's time went, ms: `openLedger` (the ledger's tail), then `loadState` (checkpoint + tail replay). */
  readonly ledgerMs?: number;
  readonly loadMs?: number;
  /** Checkpoint records the open loaded, and their bytes. */
  readonly recordsLoaded?: number;
  readonly recordBytesLoaded?: number;
}

/** VmHWM (peak resident set) of this process, MB: what the open needed at its height. */
function peakRssMb(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
  return match?.[1] ? Number(match[1]) / 1024 : process.resourceUsage().maxRSS / 1024;
}

function open(file: string, readOnly: boolean): Ledger {
  return openLedger({ path: file, batonSessionId: SESSION, clock: systemClock, ids: createUlidSource(), readOnly });
}

/** One open in a fresh process: the time to a state, and the resident memory holding it (or an export's, to its end). */
async function child(mode: Mode, file: string): Promise<void> {
  if (mode === "export" || mode === "export-whole") return exportChild(mode, file);
  const cpu = threadCpu();
  const started = Bun.nanoseconds();
  const ledger = open(file, true);
  const opened = Bun.nanoseconds();
  const loaded = loadState(ledger, mode === "full" ? { ...FOLD, version: "bench-no-checkpoint" } : FOLD, { verify: mode === "deferred" ? "deferred" : "sync" });
  const done = Bun.nanoseconds();
  const openMs = (done - started) / 1e6;
  const after = threadCpu();
  const records = loadedNodeStats();
  const report: OpenReport = {
    openMs,
    rssMb: peakRssMb(),
    fromCheckpoint: loaded.fromCheckpoint,
    replayed: loaded.replayed,
    mainCpuMs: (after.main - cpu.main) / 1e6,
    otherCpuMs: (after.all - cpu.all - (after.main - cpu.main)) / 1e6,
    ledgerMs: (opened - started) / 1e6,
    loadMs: (done - opened) / 1e6,
    recordsLoaded: records.count,
    recordBytesLoaded: records.bytes,
  };
  if (loaded.state.lastSeq === 0) throw new Error("empty state");
  console.log(JSON.stringify(report));
}

/** An export of the session as `baton export --format json` makes it (open with the digest checked, then the text), written to /dev/null. */
async function exportChild(mode: "export" | "export-whole", file: string): Promise<void> {
  const started = Bun.nanoseconds();
  const ledger = open(file, true);
  if (mode === "export") NODE_CACHE.maxBytes = Math.min(NODE_CACHE.maxBytes, EXPORT_CACHE_BYTES); // as the command does
  const loaded = loadState(ledger, FOLD, { verify: "sync" });
  const meta = { batonSessionId: SESSION, cwd: "/bench", createdAt: "2026-01-01T00:00:00.000Z", harnessSessions: {} } as unknown as SessionMeta;
  const out = fs.openSync("/dev/null", "w");
  let bytes = 0;
  if (mode === "export-whole") {
    const text = `${terminalJson({ meta, projection: plainState(loaded.state) })}\n`;
    bytes = Buffer.byteLength(text);
    fs.writeSync(out, text);
  } else {
    const keepMemory = memoryKeeper();
    for (const batch of exportText("json", { meta, batonSessionId: SESSION }, loaded.state)) {
      bytes += fs.writeSync(out, batch);
      await new Promise<void>((resolve) => setImmediate(resolve)); // as the command does between batches
      keepMemory();
    }
  }
  fs.closeSync(out);
  const report: OpenReport = { openMs: (Bun.nanoseconds() - started) / 1e6, rssMb: peakRssMb(), fromCheckpoint: loaded.fromCheckpoint, replayed: loaded.replayed, bytes };
  console.log(JSON.stringify(report));
}

function runChild(mode: Mode, file: string): OpenReport {
  const result = Bun.spawnSync([process.execPath, import.meta.path, "--child", mode, file], { stdout: "pipe", stderr: "inherit" });
  if (result.exitCode !== 0) throw new Error(`child ${mode} failed with ${result.exitCode}`);
  return JSON.parse(result.stdout.toString().trim().split("\n").at(-1) ?? "{}") as OpenReport;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const spread = (values: readonly number[], digits = 0): string => `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
const mb = (bytes: number): string => (bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 0);

interface Row {
  readonly events: number;
  readonly dir: string;
  readonly ledgerBytes: number;
  readonly headBytes: number;
  readonly nodeBytes: number;
  readonly liveBytes: number;
  readonly turnEndBytes: number[];
  readonly turnEndCpuMs: number[];
  readonly turnEndWallMs: number[];
  readonly opens: Record<OpenMode, OpenReport[]>;
  readonly exports: Partial<Record<(typeof EXPORTS)[number], OpenReport | string>>;
}

function nodeFileOf(dir: string): { name: string; bytes: number } {
  const name = fs.readdirSync(dir).find((entry) => NODES_PATTERN.test(entry));
  return { name: name ?? "", bytes: name === undefined ? 0 : fs.statSync(path.join(dir, name)).size };
}

function headerOf(dir: string): { nodes?: { length: number; live: number } } {
  const text = fs.readFileSync(path.join(dir, CHECKPOINT_FILE), "utf8");
  return JSON.parse(text.slice(0, text.indexOf("\n"))) as { nodes?: { length: number; live: number } };
}

function line(figure: string, value: string, budget = "—", ratio = "—", verdict = "(info)"): void {
  console.log(`${figure.padEnd(52)} ${value.padStart(24)}  ${budget.padStart(7)}  ${ratio.padStart(22)}  ${verdict}`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args[i + 1];
  };
  const ratioOnlyRun = args.includes("--ratio-only");
  const sizes = (ratioOnlyRun ? `10000,${RATIO_SIZE}` : (arg("--sizes") ?? "10000,30000,100000,300000,1000000")).split(",").map(Number).sort((a, b) => a - b);
  const rounds = Math.max(1, Number(arg("--rounds") ?? (ratioOnlyRun ? 21 : 7)));
  const bigRounds = Math.max(1, Number(arg("--big-rounds") ?? 3));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-growth-"));
  const live = path.join(root, "live");
  fs.mkdirSync(live);
  const file = path.join(live, "session.jsonl");
  const rows: Row[] = [];
  try {
    let state = FOLD.initial();
    let turn = 0;
    const ledger = open(file, false);
    const appendTurn = (): void => {
      state = (FOLD.batch ?? ((run) => run()))(() => {
        let next = state;
        for (const draft of turnDrafts(turn)) next = FOLD.fold(next, ledger.append(draft));
        return next;
      });
      turn++;
    };
    for (const size of sizes) {
      while ((turn + TURN_ENDS + 1) * EVENTS_PER_TURN < size) appendTurn();
      await ledger.sync();
      await writeCheckpoint(ledger, FOLD, state, ledger.position);
      const turnEndBytes: number[] = [];
      const turnEndCpuMs: number[] = [];
      const turnEndWallMs: number[] = [];
      for (let i = 0; i < TURN_ENDS; i++) {
        appendTurn();
        await ledger.sync();
        const nodesBefore = nodeFileOf(live);
        const cpu = process.cpuUsage();
        const wall = Bun.nanoseconds();
        await writeCheckpoint(ledger, FOLD, state, ledger.position);
        turnEndWallMs.push((Bun.nanoseconds() - wall) / 1e6);
        const used = process.cpuUsage(cpu);
        turnEndCpuMs.push((used.user + used.system) / 1000);
        const nodesAfter = nodeFileOf(live);
        const appended = nodesAfter.name === nodesBefore.name ? nodesAfter.bytes - nodesBefore.bytes : nodesAfter.bytes;
        turnEndBytes.push(appended + fs.statSync(path.join(live, CHECKPOINT_FILE)).size);
      }
      appendTurn(); // the tail after the last checkpoint, as after a turn end
      await ledger.sync();
      const copy = path.join(root, String(size));
      fs.cpSync(live, copy, { recursive: true });
      const header = headerOf(copy);
      rows.push({
        events: turn * EVENTS_PER_TURN,
        dir: copy,
        ledgerBytes: ledger.byteLength,
        headBytes: fs.statSync(path.join(copy, CHECKPOINT_FILE)).size,
        nodeBytes: nodeFileOf(copy).bytes,
        liveBytes: header.nodes?.live ?? 0,
        turnEndBytes,
        turnEndCpuMs,
        turnEndWallMs,
        opens: { deferred: [], checked: [], full: [] },
        exports: {},
      });
      console.log(`… ${turn * EVENTS_PER_TURN} events built`);
    }
    await ledger.close();
    if (args.includes("--ratio-only")) {
      ratioOnly(rows, rounds);
      return;
    }
    const base = rows[0];
    const ratioRow = rows.find((row) => row.events >= RATIO_SIZE) ?? rows.at(-1);
    for (let round = 0; round < rounds; round++) {
      // Rotate the order every round so no size always runs first (or last) on a shared machine.
      const order = rows.map((_, i) => rows[(i + round) % rows.length] as Row).filter((row) => round < bigRounds || row === base || row === ratioRow);
      for (const row of order) for (const mode of MODES) row.opens[mode].push(runChild(mode, path.join(row.dir, "session.jsonl")));
      console.log(`… round ${round + 1} of ${rounds} opened`);
    }
    for (const row of rows) {
      if (!row.opens.deferred.every((r) => r.fromCheckpoint) || !row.opens.checked.every((r) => r.fromCheckpoint)) throw new Error(`at ${row.events} events the checkpoint was not used`);
    }
    // Memory of `export --format json`, streamed and whole (one run each: a memory figure, not a timing).
    if (!args.includes("--no-export")) {
      for (const row of rows) {
        for (const mode of EXPORTS) {
          try {
            row.exports[mode] = runChild(mode, path.join(row.dir, "session.jsonl"));
          } catch (error) {
            row.exports[mode] = error instanceof Error ? error.message : String(error);
          }
        }
        console.log(`… ${row.events} events exported`);
      }
    }
    report(rows, rounds, bigRounds);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * `--ratio-only`: the open with a checkpoint (deferred) at the smallest and the largest size, back to back in every
 * round (the order swapped each round), and the per-round ratios of its time, CPU and phases.
 */
function ratioOnly(rows: readonly Row[], rounds: number): void {
  const small = rows[0];
  const big = rows.at(-1);
  if (small === undefined || big === undefined || small === big) throw new Error("--ratio-only needs two sizes");
  for (let round = 0; round < rounds; round++) {
    for (const row of round % 2 === 0 ? [small, big] : [big, small]) row.opens.deferred.push(runChild("deferred", path.join(row.dir, "session.jsonl")));
  }
  if (![...small.opens.deferred, ...big.opens.deferred].every((r) => r.fromCheckpoint)) throw new Error("the checkpoint was not used");
  console.log(`\nopen with a checkpoint (deferred), fresh read-only processes, ${small.events} and ${big.events} back to back, ${rounds} rounds; median (min–max)`);
  line("figure", `${small.events} / ${big.events}`, "budget", "ratio (per-round spread)", "verdict");
  const of = (row: Row, key: keyof OpenReport): number[] => row.opens.deferred.map((r) => Number(r[key] ?? NaN));
  const ratios = (key: keyof OpenReport): string => {
    const values = Array.from({ length: rounds }, (_, i) => of(big, key)[i]! / of(small, key)[i]!);
    return `${median(values).toFixed(2)}× (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
  };
  const row = (label: string, key: keyof OpenReport, budget?: number): void => {
    const values = Array.from({ length: rounds }, (_, i) => of(big, key)[i]! / of(small, key)[i]!);
    const verdict = budget === undefined ? "(info)" : median(values) <= budget ? "OK" : "OVER";
    line(label, `${spread(of(small, key), 1)} / ${spread(of(big, key), 1)}`, budget === undefined ? "—" : `${budget}×`, ratios(key), verdict);
  };
  row("open, ms", "openMs", RATIO_BUDGET);
  row("  the ledger's open (tail line), ms", "ledgerMs");
  row("  checkpoint restore + tail replay, ms", "loadMs");
  row("  CPU main thread, ms", "mainCpuMs");
  row("  CPU other threads, ms", "otherCpuMs");
  row("  checkpoint records loaded", "recordsLoaded");
  row("  their bytes", "recordBytesLoaded");
  row("peak RSS, MB", "rssMb", RATIO_BUDGET);
  line("  tail events replayed", `${of(small, "replayed")[0]} / ${of(big, "replayed")[0]}`);
  line("  head (checkpoint.jsonl) KB", `${(small.headBytes / 1e3).toFixed(1)} / ${(big.headBytes / 1e3).toFixed(1)}`);
}

function report(rows: readonly Row[], rounds: number, bigRounds: number): void {
  const base = rows[0];
  if (base === undefined) return;
  const ratioRow = rows.find((row) => row.events >= RATIO_SIZE) ?? rows.at(-1) ?? base;
  console.log(`\ngrowth: fresh read-only processes, sizes alternated; ${rounds} rounds at ${base.events} and ${ratioRow.events} events, ${bigRounds} at the others; median (min–max)`);
  const cells = rows.map((row) => {
    const pick = (mode: OpenMode, key: "openMs" | "rssMb"): number[] => row.opens[mode].map((r) => r[key]);
    return [
      String(row.events),
      mb(row.ledgerBytes),
      spread(pick("deferred", "openMs")),
      spread(pick("checked", "openMs")),
      spread(pick("full", "openMs")),
      spread(pick("deferred", "rssMb")),
      spread(pick("full", "rssMb")),
      (row.headBytes / 1e3).toFixed(1),
      mb(row.nodeBytes),
      row.nodeBytes === 0 ? "—" : ((100 * row.liveBytes) / row.nodeBytes).toFixed(0),
      (median(row.turnEndBytes) / 1e3).toFixed(1),
      spread(row.turnEndCpuMs),
    ];
  });
  const headers = ["events", "ledger MB", "open ckpt ms", "open checked ms", "open no ckpt ms", "peak RSS ckpt", "peak RSS none", "head KB", "nodes MB", "live %", "turn end KB", "turn end CPU ms"];
  for (const text of tableLines(headers, cells)) console.log(text);
  console.log("");
  line("figure", "value", "budget", "ratio (per-round spread)", "verdict");
  const verdicts: boolean[] = [];
  const ratioFigure = (label: string, key: "openMs" | "rssMb", unit: string, budget: number | undefined, row: Row): void => {
    const n = Math.min(row.opens.deferred.length, base.opens.deferred.length);
    const ratios = Array.from({ length: n }, (_, i) => (row.opens.deferred[i]?.[key] ?? 0) / (base.opens.deferred[i]?.[key] ?? 1));
    const ratio = median(ratios);
    const value = `${median(row.opens.deferred.map((r) => r[key])).toFixed(1)} ÷ ${median(base.opens.deferred.map((r) => r[key])).toFixed(1)} ${unit}`;
    const ratioText = `${ratio.toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
    if (budget === undefined) {
      line(label, value, "—", ratioText);
      return;
    }
    verdicts.push(ratio <= budget);
    line(label, value, `${budget}×`, ratioText, ratio <= budget ? "OK" : "OVER");
  };
  ratioFigure(`open with a checkpoint, ${ratioRow.events} ÷ ${base.events}`, "openMs", "ms", RATIO_BUDGET, ratioRow);
  ratioFigure(`peak RSS of that open, ${ratioRow.events} ÷ ${base.events}`, "rssMb", "MB", RATIO_BUDGET, ratioRow);
  const biggest = rows.at(-1);
  if (biggest !== undefined && biggest !== ratioRow) {
    ratioFigure(`open with a checkpoint, ${biggest.events} ÷ ${base.events}`, "openMs", "ms", undefined, biggest);
    ratioFigure(`peak RSS of that open, ${biggest.events} ÷ ${base.events}`, "rssMb", "MB", undefined, biggest);
  }
  for (const row of [ratioRow, ...(biggest !== undefined && biggest !== ratioRow ? [biggest] : [])]) {
    const bytes = median(row.turnEndBytes);
    const baseBytes = median(base.turnEndBytes);
    line(`turn end writes (node append + head), ${row.events}`, `${(bytes / 1e3).toFixed(1)} KB`, "—", `${(bytes / baseBytes).toFixed(2)}× of ${base.events}`);
    line(`turn end CPU, ${row.events}`, `${median(row.turnEndCpuMs).toFixed(1)} ms`, "—", `${(median(row.turnEndCpuMs) / median(base.turnEndCpuMs)).toFixed(2)}× of ${base.events}`);
  }
  const exported = rows.filter((row) => row.exports.export !== undefined);
  if (exported.length > 0) {
    console.log("\nexport --format json into /dev/null (open with the digest checked + the text), one run each: peak RSS MB and wall ms");
    const exportCells = exported.map((row) => {
      const cell = (mode: (typeof EXPORTS)[number], key: "rssMb" | "openMs"): string => {
        const value = row.exports[mode];
        return typeof value === "object" ? value[key].toFixed(0) : "failed";
      };
      const streamed = row.exports.export;
      return [String(row.events), typeof streamed === "object" ? mb(streamed.bytes ?? 0) : "—", cell("export", "rssMb"), cell("export-whole", "rssMb"), cell("export", "openMs"), cell("export-whole", "openMs")];
    });
    for (const text of tableLines(["events", "output MB", "streamed RSS", "whole RSS", "streamed ms", "whole ms"], exportCells)) console.log(text);
    const first = exported[0]?.exports.export;
    const last = exported.at(-1)?.exports.export;
    if (typeof first === "object" && typeof last === "object") {
      line(`export json peak RSS, streamed, ${exported.at(-1)?.events} ÷ ${exported[0]?.events}`, `${last.rssMb.toFixed(0)} ÷ ${first.rssMb.toFixed(0)} MB`, "—", `${(last.rssMb / first.rssMb).toFixed(2)}×`);
    }
  }
  const over = verdicts.filter((ok) => !ok).length;
  console.log(`summary: growth ${over === 0 ? "OK" : `${over} of ${verdicts.length} figures OVER budget`} (open and RSS with a checkpoint at ${ratioRow.events} ÷ ${base.events}, budget ${RATIO_BUDGET}×)`);
}

if (process.argv[2] === "--child") await child((process.argv[3] ?? "deferred") as Mode, process.argv[4] ?? "");
else await main();
