/**
 * `kill -9` while incremental checkpoints are written (#18): a real child process appends turns to a session
 * and writes a checkpoint after each one (node-file appends, head replaces, compactions — the policy is
 * lowered so they happen) until it is killed at a random moment, again and again on the same session, each
 * child reopening it from the checkpoint the last one left. After every kill: the opener's stale-temp sweep
 * removes the dead writer's temp, the open (from checkpoint + tail, or a full replay when the checkpoint is
 * unusable) equals a full reduce, and the next checkpoint cuts any torn node-file tail off before appending.
 */
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { initialState, plainState, storedProjectionFold, type ProjectionState } from "../../src/projection/index.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type BatonSessionId } from "../../src/shared/ids.ts";
import { checkpointPathFor, loadState, writeCheckpoint, type StateFold } from "../../src/store/checkpoint.ts";
import { NODES_PATTERN } from "../../src/store/checkpoint-nodes.ts";
import { openLedger, type Ledger } from "../../src/store/ledger.ts";
import { removeStaleTemps } from "../../src/store/stale-temps.ts";

const SESSION = "bs_0000000000000000000000000K" as BatonSessionId;
const FOLD: StateFold<ProjectionState> = { ...storedProjectionFold, initial: () => initialState(SESSION) };
const ROOT = path.resolve(import.meta.dir, "../..");
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The writer: reopen the session (lazily, from its checkpoint), then turn after turn, checkpoint after checkpoint.
 * From its third turn on, `stop` makes it stop itself (SIGSTOP, as the app's failpoints do) in the middle of one
 * write — half of a node-file append's bytes written, half of a new generation's (a compaction), or half of the
 * head's temp — so the kill lands exactly there; `timing` never stops and is killed after a delay.
 */
const CHILD = `
const fs = await import("node:fs");
const { openLedger } = await import(${JSON.stringify(`${ROOT}/src/store/ledger.ts`)});
const { loadState, writeCheckpoint } = await import(${JSON.stringify(`${ROOT}/src/store/checkpoint.ts`)});
const { COMPACTION } = await import(${JSON.stringify(`${ROOT}/src/store/checkpoint-nodes.ts`)});
const { initialState, storedProjectionFold } = await import(${JSON.stringify(`${ROOT}/src/projection/index.ts`)});
const { ManualClock } = await import(${JSON.stringify(`${ROOT}/src/shared/clock.ts`)});
const { createSequentialIdSource } = await import(${JSON.stringify(`${ROOT}/src/shared/ids.ts`)});
const { turnDrafts } = await import(${JSON.stringify(`${ROOT}/bench/_fixture.ts`)});
const [file, block, stop] = process.argv.slice(-3);
COMPACTION.minBytes = 256 * 1024;
COMPACTION.liveRatio = stop === "generation" ? 0.999 : 0.5;
let armed = false;
const open = fs.promises.open;
fs.promises.open = async (target, flags, ...rest) => {
  const handle = await open(target, flags, ...rest);
  const name = String(target).split("/").at(-1);
  const hit = (stop === "append" && name.endsWith(".nodes") && flags === "r+") || (stop === "generation" && name.endsWith(".nodes") && flags === "w") || (stop === "head" && name.startsWith("checkpoint.jsonl.tmp-"));
  if (!armed || !hit) return handle;
  const write = handle.write.bind(handle);
  handle.write = async (buffer, offset, length, position) => {
    const half = Math.max(1, Math.floor(length / 2));
    await write(buffer, offset, half, position);
    process.kill(process.pid, "SIGSTOP");
    return write(buffer, offset + half, length - half, position === undefined || position === null ? position : position + half);
  };
  return handle;
};
const fold = { ...storedProjectionFold, initial: () => initialState(${JSON.stringify(SESSION)}) };
const ledger = openLedger({ path: file, batonSessionId: ${JSON.stringify(SESSION)}, clock: new ManualClock(), ids: createSequentialIdSource(Number(block)) });
let state = loadState(ledger, fold).state;
for (let turn = Number(block) / 1000, done = 0; ; turn++, done++) {
  armed = stop !== "timing" && done >= 2;
  for (const draft of turnDrafts(turn)) state = fold.fold(state, ledger.append(draft));
  await writeCheckpoint(ledger, fold, state, ledger.position);
  process.stdout.write("turn\\n");
}
`;

type Stop = "append" | "generation" | "head" | "timing";

/** Linux: is the process stopped (state T)? */
function stopped(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "T";
  } catch {
    return false;
  }
}

function open(file: string, block: number): Ledger {
  return openLedger({ path: file, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(block) });
}

function header(file: string): { name: string; length: number } {
  const text = fs.readFileSync(checkpointPathFor(file), "utf8");
  return (JSON.parse(text.slice(0, text.indexOf("\n"))) as { nodes: { name: string; length: number } }).nodes;
}

const headerName = (file: string): string => (fs.existsSync(checkpointPathFor(file)) ? header(file).name : "");

const plain = (state: ProjectionState): unknown => JSON.parse(JSON.stringify(plainState(state)));

async function runAndKill(file: string, block: number, stop: Stop, delayMs: number): Promise<void> {
  const child = Bun.spawn([process.execPath, "-e", CHILD, file, String(block), stop], { stdout: "pipe", stderr: "inherit", cwd: ROOT });
  if (stop === "timing") {
    const reader = child.stdout.getReader();
    for (let seen = 0; seen < 2; ) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the writer exited before it was killed");
      seen += new TextDecoder().decode(value).split("\n").length - 1;
    }
    await Bun.sleep(delayMs);
  } else {
    const until = Date.now() + 30_000;
    while (!stopped(child.pid)) {
      if (child.exitCode !== null || Date.now() > until) throw new Error(`the writer never stopped in a ${stop} write`);
      await Bun.sleep(5);
    }
  }
  child.kill("SIGKILL");
  await child.exited;
}

describe("kill -9 during incremental checkpoint writes", () => {
  test("every kill leaves a session whose open equals a full reduce; stale temps are swept; a torn node-file tail is cut before the next append", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-ckpt-kill-"));
    dirs.push(dir);
    const file = path.join(dir, "session.jsonl");
    let fromCheckpoint = 0;
    let compactions = 0;
    const interrupted = { append: 0, generation: 0, head: 0 };
    let lastName = "";
    // Kill moments spread over a turn's fold, its node append and its head replace.
    const rounds: [Stop, number][] = (["append", "generation", "head", "timing"] as const).flatMap((stop, i) => [
      [stop, i * 7],
      [stop, 20 + i * 9],
    ]);
    for (const [round, [stop, delay]] of rounds.entries()) {
      const block = (round + 1) * 1_000_000;
      await runAndKill(file, block, stop, delay);
      const killedAt = headerName(file);
      if (killedAt !== lastName && lastName !== "") compactions++;
      // What the kill interrupted: a node append (bytes past the head's length), a new generation no head names, a head temp.
      const named = killedAt === "" ? undefined : header(file);
      const left = fs.readdirSync(dir);
      if (named !== undefined && fs.statSync(path.join(dir, named.name)).size > named.length) interrupted.append++;
      if (left.some((name) => NODES_PATTERN.test(name) && name !== named?.name)) interrupted.generation++;
      if (left.some((name) => name.startsWith("checkpoint.jsonl.tmp-"))) interrupted.head++;
      removeStaleTemps(dir);
      expect(fs.readdirSync(dir).filter((name) => name.includes(".tmp-"))).toEqual([]);
      const ledger = open(file, block + 500_000);
      const full = plain(loadState(ledger, FOLD, { useCheckpoint: false }).state);
      const loaded = loadState(ledger, FOLD, { verify: "sync" });
      if (loaded.fromCheckpoint) fromCheckpoint++;
      expect(plain(loaded.state)).toEqual(full);
      // The next checkpoint (this process as the new writer) cuts whatever a killed append left past the head.
      expect(await writeCheckpoint(ledger, FOLD, loaded.state, ledger.position)).toBe(true);
      const nodes = header(file);
      lastName = nodes.name;
      expect(fs.readdirSync(dir).filter((name) => NODES_PATTERN.test(name))).toEqual([nodes.name]);
      expect(fs.statSync(path.join(dir, nodes.name)).size).toBe(nodes.length);
      await ledger.close();
      const again = open(file, block + 700_000);
      expect(plain(loadState(again, FOLD, { verify: "sync" }).state)).toEqual(full);
      await again.close();
    }
    expect(fromCheckpoint).toBeGreaterThan(rounds.length / 2);
    expect(compactions).toBeGreaterThan(0);
    // Each kind of write was interrupted for real (the stopped writer's leftovers were seen, then dealt with).
    expect(interrupted.append).toBeGreaterThanOrEqual(2);
    expect(interrupted.generation).toBeGreaterThanOrEqual(2);
    expect(interrupted.head).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
