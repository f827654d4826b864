/**
 * Growth table (issue #18, "Scale"): how open time, memory and the checkpoint grow with the session.
 *
 *   node_modules/.bin/bun bench/growth.ts [--sizes 10000,30000,100000,300000,1000000] [--rounds 3]
 *
 * One generated ledger (bench/_fixture.ts: 500-event turns, ~1 KB per event, ~92 % streamed chunks with
 * `raw` kept) grows through the sizes. At each size the builder folds what it appended (as the live
 * session does), writes a checkpoint of that state (as a turn end does: the write time, its size) and
 * appends one more turn (the tail an open replays). Then the session is opened in fresh child processes,
 * read-only, alternating `--rounds` times: with the checkpoint and its digest check deferred (the TUI),
 * with the digest checked during the open (exec, export), and without a checkpoint (a full replay).
 * Each figure: median (min–max); the last columns are the ratio to the smallest size — the issue's goal is
 * open time and RSS with a checkpoint at 300k within 1.3× of 10k.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { initialState, storedProjectionFold, type ProjectionState } from "../src/projection/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createUlidSource, type BatonSessionId } from "../src/shared/ids.ts";
import { CHECKPOINT_FILE, loadState, writeCheckpoint, type StateFold } from "../src/store/checkpoint.ts";
import { openLedger, type Ledger } from "../src/store/ledger.ts";
import { EVENTS_PER_TURN, turnDrafts } from "./_fixture.ts";

const SESSION = "bs_01KBENCH0000000000000000000" as BatonSessionId;
const FOLD: StateFold<ProjectionState> = { ...storedProjectionFold, initial: () => initialState(SESSION) };
const RATIO_BUDGET = 1.3;

type Mode = "deferred" | "checked" | "full";
const MODES: readonly Mode[] = ["deferred", "checked", "full"];

interface OpenReport {
  readonly openMs: number;
  readonly peakRssMb: number;
  readonly fromCheckpoint: boolean;
  readonly replayed: number;
}

function peakRssMb(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
  return match?.[1] ? Number(match[1]) / 1024 : process.resourceUsage().maxRSS / 1024;
}

function open(file: string, readOnly: boolean): Ledger {
  return openLedger({ path: file, batonSessionId: SESSION, clock: systemClock, ids: createUlidSource(), readOnly });
}

function child(mode: Mode, file: string): void {
  Bun.gc(true);
  const started = Bun.nanoseconds();
  const ledger = open(file, true);
  const loaded = loadState(ledger, mode === "full" ? { ...FOLD, version: "bench-no-checkpoint" } : FOLD, { verify: mode === "deferred" ? "deferred" : "sync" });
  const openMs = (Bun.nanoseconds() - started) / 1e6;
  const report: OpenReport = { openMs, peakRssMb: peakRssMb(), fromCheckpoint: loaded.fromCheckpoint, replayed: loaded.replayed };
  console.log(JSON.stringify(report));
}

function runChild(mode: Mode, file: string): OpenReport {
  const result = Bun.spawnSync([process.execPath, import.meta.path, "--child", mode, file], { stdout: "pipe", stderr: "inherit" });
  if (result.exitCode !== 0) throw new Error(`child ${mode} failed with ${result.exitCode}`);
  return JSON.parse(result.stdout.toString().trim().split("\n").at(-1) ?? "{}") as OpenReport;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const fmt = (values: readonly number[], digits = 0): string => `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

interface Row {
  readonly events: number;
  readonly ledgerMb: number;
  readonly checkpointMb: number;
  readonly checkpointWriteMs: number;
  readonly opens: Record<Mode, OpenReport[]>;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args[i + 1];
  };
  const sizes = (arg("--sizes") ?? "10000,30000,100000,300000,1000000").split(",").map(Number).sort((a, b) => a - b);
  const rounds = Math.max(1, Number(arg("--rounds") ?? 3));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-growth-"));
  const file = path.join(dir, "session.jsonl");
  const rows: Row[] = [];
  try {
    let state = FOLD.initial();
    let turn = 0;
    for (const size of sizes) {
      const ledger = open(file, false);
      const appendTurn = (): void => {
        state = (FOLD.batch ?? ((run) => run()))(() => {
          let next = state;
          for (const draft of turnDrafts(turn)) next = FOLD.fold(next, ledger.append(draft));
          return next;
        });
        turn++;
      };
      while (turn * EVENTS_PER_TURN < size) appendTurn();
      await ledger.sync();
      const started = Bun.nanoseconds();
      await writeCheckpoint(ledger, FOLD, state, ledger.position);
      const checkpointWriteMs = (Bun.nanoseconds() - started) / 1e6;
      appendTurn(); // the tail after the checkpoint, as after a turn end
      const ledgerMb = ledger.byteLength / 1e6;
      await ledger.close();
      const opens: Record<Mode, OpenReport[]> = { deferred: [], checked: [], full: [] };
      for (let round = 0; round < rounds; round++) for (const mode of MODES) opens[mode].push(runChild(mode, file));
      if (!opens.deferred.every((r) => r.fromCheckpoint) || !opens.checked.every((r) => r.fromCheckpoint)) throw new Error(`at ${size} events the checkpoint was not used`);
      const checkpointMb = fs.statSync(path.join(dir, CHECKPOINT_FILE)).size / 1e6;
      rows.push({ events: turn * EVENTS_PER_TURN, ledgerMb, checkpointMb, checkpointWriteMs, opens });
      console.log(`… ${turn * EVENTS_PER_TURN} events done`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const base = rows[0];
  if (base === undefined) return;
  console.log(`\ngrowth (median (min–max) of ${rounds} fresh processes per mode, alternated; ratio = ÷ the ${base.events}-event row)`);
  console.log(
    ["events", "ledger MB", "ckpt MB", "ckpt write ms", "open deferred ms", "open checked ms", "open full ms", "RSS deferred MB", "RSS full MB", "open÷", "RSS÷"]
      .map((h) => h.padStart(16))
      .join(""),
  );
  for (const row of rows) {
    const open = (mode: Mode): number[] => row.opens[mode].map((r) => r.openMs);
    const rss = (mode: Mode): number[] => row.opens[mode].map((r) => r.peakRssMb);
    const openRatio = median(open("deferred")) / median(base.opens.deferred.map((r) => r.openMs));
    const rssRatio = median(rss("deferred")) / median(base.opens.deferred.map((r) => r.peakRssMb));
    console.log(
      [
        `${row.events}`,
        row.ledgerMb.toFixed(0),
        row.checkpointMb.toFixed(1),
        row.checkpointWriteMs.toFixed(0),
        fmt(open("deferred")),
        fmt(open("checked")),
        fmt(open("full")),
        fmt(rss("deferred")),
        fmt(rss("full")),
        `${openRatio.toFixed(2)}×`,
        `${rssRatio.toFixed(2)}×`,
      ]
        .map((cell) => cell.padStart(16))
        .join(""),
    );
  }
  const at300k = rows.find((row) => row.events >= 300_000);
  const verdicts: string[] = [];
  if (at300k !== undefined) {
    for (const [label, pick] of [
      ["open with a checkpoint (deferred)", (r: OpenReport) => r.openMs],
      ["RSS after open with a checkpoint", (r: OpenReport) => r.peakRssMb],
    ] as const) {
      const ratio = median(at300k.opens.deferred.map(pick)) / median(base.opens.deferred.map(pick));
      const ok = ratio <= RATIO_BUDGET;
      verdicts.push(ok ? "OK" : "OVER");
      console.log(`${`${label}, ${at300k.events} ÷ ${base.events}`.padEnd(56)} ${`${ratio.toFixed(2)}×`.padStart(8)}  budget ${RATIO_BUDGET}×  ${ok ? "OK" : "OVER"}`);
    }
  }
  const over = verdicts.filter((v) => v === "OVER").length;
  console.log(`summary: growth ${over === 0 ? "OK" : `${over} of ${verdicts.length} figures OVER budget`}`);
}

if (process.argv[2] === "--child") child((process.argv[3] ?? "deferred") as Mode, process.argv[4] ?? "");
else await main();
