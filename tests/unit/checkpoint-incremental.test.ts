/** Incremental checkpoints (#18): a head plus a node file extended per turn end; open ≡ full replay. */
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { initialState, plainState, storedProjectionFold, type ProjectionState } from "../../src/projection/index.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type BatonSessionId } from "../../src/shared/ids.ts";
import { checkpointPathFor, loadState, writeCheckpoint, type StateFold } from "../../src/store/checkpoint.ts";
import { NODES_PATTERN } from "../../src/store/checkpoint-nodes.ts";
import { openLedger, type Ledger } from "../../src/store/ledger.ts";
import { turnDrafts } from "../../bench/_fixture.ts";

const SESSION = "bs_00000000000000000000000001" as BatonSessionId;
const FOLD: StateFold<ProjectionState> = { ...storedProjectionFold, initial: () => initialState(SESSION) };
const dirs: string[] = [];
let idBlock = 0;

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function newDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-ckpt-inc-"));
  dirs.push(dir);
  return dir;
}

function open(file: string): Ledger {
  idBlock += 1_000_000;
  return openLedger({ path: file, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(idBlock) });
}

function appendTurns(ledger: Ledger, state: ProjectionState, from: number, count: number): ProjectionState {
  let next = state;
  for (let turn = from; turn < from + count; turn++) for (const draft of turnDrafts(turn)) next = FOLD.fold(next, ledger.append(draft));
  return next;
}

function replayed(ledger: Ledger): unknown {
  return JSON.parse(JSON.stringify(plainState(loadState(ledger, FOLD, { useCheckpoint: false }).state)));
}

function nodeFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((name) => NODES_PATTERN.test(name));
}

describe("incremental checkpoint", () => {
  test("a turn end appends what the turn changed; open from it equals a full replay, reading old turns only when used", async () => {
    const dir = newDir();
    const file = path.join(dir, "session.jsonl");
    const ledger = open(file);
    let state = appendTurns(ledger, FOLD.initial(), 0, 20);
    expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
    const [name] = nodeFiles(dir);
    expect(name).toBeDefined();
    const first = fs.statSync(path.join(dir, name!)).size;
    state = appendTurns(ledger, state, 20, 1);
    expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
    const second = fs.statSync(path.join(dir, name!)).size;
    // One more turn of twenty adds about a twentieth, not a whole copy.
    expect(second - first).toBeLessThan(first / 5);
    expect(second - first).toBeGreaterThan(0);
    expect(fs.statSync(checkpointPathFor(file)).size).toBeLessThan(first / 5);
    state = appendTurns(ledger, state, 21, 1); // a tail after the checkpoint
    await ledger.close();

    const reopened = open(file);
    const loaded = loadState(reopened, FOLD, { verify: "sync" });
    expect(loaded.fromCheckpoint).toBe(true);
    expect(loaded.replayed).toBe(500);
    expect(JSON.parse(JSON.stringify(plainState(loaded.state)))).toEqual(replayed(reopened));
    expect(JSON.parse(JSON.stringify(plainState(loaded.state)))).toEqual(JSON.parse(JSON.stringify(plainState(state))));
    await reopened.close();
    expect(fs.readdirSync(dir).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });

  test("a later checkpoint after reopening writes unread old nodes back as references", async () => {
    const dir = newDir();
    const file = path.join(dir, "session.jsonl");
    const ledger = open(file);
    const state = appendTurns(ledger, FOLD.initial(), 0, 10);
    await writeCheckpoint(ledger, FOLD, state, ledger.position);
    await ledger.close();
    const [name] = nodeFiles(dir);
    const before = fs.statSync(path.join(dir, name!)).size;
    const reopened = open(file);
    let loaded = loadState(reopened, FOLD).state;
    loaded = appendTurns(reopened, loaded, 10, 1);
    await writeCheckpoint(reopened, FOLD, loaded, reopened.position);
    expect(nodeFiles(dir)).toEqual([name!]);
    const after = fs.statSync(path.join(dir, name!)).size;
    expect(after - before).toBeLessThan(before / 4);
    const again = open(file);
    expect(JSON.parse(JSON.stringify(plainState(loadState(again, FOLD).state)))).toEqual(replayed(again));
    await reopened.close();
    await again.close();
  });

  test("a crash mid-write (node bytes past the head, or a node file cut short) never yields a wrong state", async () => {
    const dir = newDir();
    const file = path.join(dir, "session.jsonl");
    const ledger = open(file);
    const state = appendTurns(ledger, FOLD.initial(), 0, 6);
    await writeCheckpoint(ledger, FOLD, state, ledger.position);
    await ledger.close();
    const nodes = path.join(dir, nodeFiles(dir)[0]!);
    // Bytes a crashed later write appended but no head names: ignored.
    fs.appendFileSync(nodes, '{"half a node');
    let reopened = open(file);
    let loaded = loadState(reopened, FOLD);
    expect(loaded.fromCheckpoint).toBe(true);
    expect(JSON.parse(JSON.stringify(plainState(loaded.state)))).toEqual(replayed(reopened));
    await reopened.close();
    // The node file lost bytes the head names: the checkpoint is not used, the ledger is replayed.
    fs.truncateSync(nodes, Math.floor(fs.statSync(nodes).size / 2));
    reopened = open(file);
    loaded = loadState(reopened, FOLD);
    expect(loaded.fromCheckpoint).toBe(false);
    expect(loaded.checkpointProblem).toContain("bytes");
    expect(JSON.parse(JSON.stringify(plainState(loaded.state)))).toEqual(replayed(reopened));
    await reopened.close();
  });

  test("an edited node (same length) is caught by the node file's digest", async () => {
    const dir = newDir();
    const file = path.join(dir, "session.jsonl");
    const ledger = open(file);
    const state = appendTurns(ledger, FOLD.initial(), 0, 4);
    await writeCheckpoint(ledger, FOLD, state, ledger.position);
    await ledger.close();
    const nodes = path.join(dir, nodeFiles(dir)[0]!);
    const bytes = fs.readFileSync(nodes);
    const at = bytes.indexOf("the ");
    bytes.write("THE ", at);
    fs.writeFileSync(nodes, bytes);
    const reopened = open(file);
    const loaded = loadState(reopened, FOLD, { verify: "sync" });
    expect(loaded.fromCheckpoint).toBe(false);
    expect(JSON.parse(JSON.stringify(plainState(loaded.state)))).toEqual(replayed(reopened));
    const deferred = loadState(reopened, FOLD, { verify: "deferred" });
    expect(deferred.fromCheckpoint).toBe(true);
    expect(await deferred.verifyCheckpoint?.()).toContain("stale");
    await reopened.close();
  });

  test("a checkpoint of the older whole-state format opens; one of main's fold version is ignored; either way the next one is incremental", async () => {
    const dir = newDir();
    const file = path.join(dir, "session.jsonl");
    const ledger = open(file);
    let state = appendTurns(ledger, FOLD.initial(), 0, 5);
    // Format 2 (the whole state on one line), as main wrote it before #18, of this fold version.
    const { encodeNodes: _encode, decodeNodes: _decode, ...whole } = FOLD;
    expect(await writeCheckpoint(ledger, whole, state, ledger.position)).toBe(true);
    expect(fs.readFileSync(checkpointPathFor(file), "utf8")).toContain('"format":"baton-checkpoint/2"');
    expect(nodeFiles(dir)).toEqual([]);
    state = appendTurns(ledger, state, 5, 1);
    await ledger.close();
    let reopened = open(file);
    let loaded = loadState(reopened, FOLD);
    expect(loaded.fromCheckpoint).toBe(true);
    expect(loaded.replayed).toBe(500);
    expect(JSON.parse(JSON.stringify(plainState(loaded.state)))).toEqual(replayed(reopened));
    // The next checkpoint from that state is format 3 and opens as one.
    expect(await writeCheckpoint(reopened, FOLD, loaded.state, reopened.position)).toBe(true);
    expect(fs.readFileSync(checkpointPathFor(file), "utf8")).toContain('"format":"baton-checkpoint/3"');
    expect(nodeFiles(dir).length).toBe(1);
    await reopened.close();
    reopened = open(file);
    loaded = loadState(reopened, FOLD);
    expect(loaded.fromCheckpoint).toBe(true);
    expect(loaded.replayed).toBe(0);
    expect(JSON.parse(JSON.stringify(plainState(loaded.state)))).toEqual(replayed(reopened));
    await reopened.close();

    // Main's checkpoint (format 2, fold version projection-7: turnSummaries an array) is ignored and rebuilt.
    fs.rmSync(path.join(dir, nodeFiles(dir)[0]!));
    const older = open(file);
    const olderState = loadState(older, FOLD, { useCheckpoint: false }).state;
    expect(await writeCheckpoint(older, { ...whole, version: "projection-7", encode: (s) => plainState(s) }, olderState, older.position)).toBe(true);
    await older.close();
    reopened = open(file);
    loaded = loadState(reopened, FOLD);
    expect(loaded.fromCheckpoint).toBe(false);
    expect(loaded.checkpointProblem).toContain("fold version projection-7");
    expect(JSON.parse(JSON.stringify(plainState(loaded.state)))).toEqual(replayed(reopened));
    expect(await writeCheckpoint(reopened, FOLD, loaded.state, reopened.position)).toBe(true);
    await reopened.close();
    reopened = open(file);
    expect(loadState(reopened, FOLD).fromCheckpoint).toBe(true);
    await reopened.close();
  });
});

describe("checkpoint encoding gives the event loop back", () => {
  /** A store that takes every record (offsets only): what the encoder does between its yields is all that is counted. */
  function countingStore() {
    let offset = 0;
    return {
      puts: 0,
      tokenOf: () => undefined,
      put(_node: object | null, json: string, below: number): string {
        this.puts++;
        const token = `{"$":[${offset},${json.length + 1},${json.length + 1 + below}]}`;
        offset += json.length + 1;
        return token;
      },
      adopt: () => undefined,
      tokenText: (token: unknown) => JSON.stringify(token),
      liveOf: () => 0,
      read: () => undefined,
      remember: () => undefined,
    };
  }

  test("a slice ends after a few milliseconds, not only after 256 KiB of new JSON (a slow stringify is a UI stall)", () => {
    const ledger = open(path.join(newDir(), "session.jsonl"));
    const state = appendTurns(ledger, FOLD.initial(), 0, 3);
    const slices = (): { yields: number; puts: number } => {
      const store = countingStore();
      const run = FOLD.encodeNodes!(state, store as never);
      let yields = 0;
      while (run.next().done !== true) yields++;
      return { yields, puts: store.puts };
    };
    let now = 0;
    let step = 0;
    const clock = spyOn(performance, "now").mockImplementation(() => (now += step));
    try {
      // Far less than 256 KiB of JSON: while no time passes, one slice holds it all.
      expect(slices().yields).toBeLessThanOrEqual(1);
      // Every record "takes" 3 ms: the encoder yields after each one (its slice is ≥ 2 ms old).
      step = 3;
      const slow = slices();
      expect(slow.puts).toBeGreaterThan(20);
      expect(slow.yields).toBeGreaterThanOrEqual(slow.puts - 1);
    } finally {
      clock.mockRestore();
    }
  });
});
