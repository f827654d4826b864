/**
 * Reading a checkpoint's indexes ahead (#18): a state opened from an incremental checkpoint keeps its tables'
 * inner nodes and leaves on disk, so the first write of a new id — a new message, tool call or turn — read records
 * mid-stream. `readIndexes` reads exactly those (never a value), and an opened session runs it in the background
 * (`src/app/read-ahead.ts`). Proofs: after it, a whole new turn folds without reading a record (without it, the same
 * turn reads some), an old value is still read only when used, the state equals a full reduce; an opened session
 * reads them ahead on its own and logs what it read; the read-ahead stops at half the loaded-node cache.
 */
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { plainState, readIndexes, tableGet, tableHas, type ProjectionState } from "../../src/projection/index.ts";
import { loadState } from "../../src/store/checkpoint.ts";
import { loadedNodeStats, NODE_CACHE, trimLoadedNodes } from "../../src/store/checkpoint-nodes.ts";
import { READ_AHEAD, readAhead } from "../../src/app/read-ahead.ts";
import type { SessionLog } from "../../src/store/index.ts";
import { append, checkpointedSession, FOLD, fullReduce, ledgerAt, turnOf } from "../support/checkpointed-session.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { testSessions, waitFor } from "../support/session-host.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const TURNS = 300;
const cache = { ...NODE_CACHE };
const readAheadSettings = { ...READ_AHEAD };
const tempDir = tempDirs("baton-read-ahead-");
const sessions = testSessions();

afterEach(() => {
  Object.assign(NODE_CACHE, cache);
  Object.assign(READ_AHEAD, readAheadSettings);
  trimLoadedNodes(0);
});

/** Records read (stubs loaded) so far, in this process. */
const reads = (): number => loadedNodeStats().count + loadedNodeStats().evictions;
const json = (value: unknown): string => JSON.stringify(plainState(value as ProjectionState));

function readAll(state: ProjectionState): number {
  let steps = 0;
  for (const _ of readIndexes(state)) steps++;
  return steps;
}

describe("reading a checkpoint's indexes ahead", () => {
  test("without it, a new turn reads records as it folds", async () => {
    const ledger = ledgerAt(await checkpointedSession(tempDir(), TURNS));
    const loaded = loadState(ledger, FOLD, { verify: "sync" });
    expect(loaded.fromCheckpoint).toBe(true);
    const before = reads();
    append(ledger, loaded.state, turnOf(TURNS));
    expect(reads()).toBeGreaterThan(before);
    await ledger.close();
  });

  test("after it, a new turn folds without reading a record; values are still read only when used; the state is a full reduce's", async () => {
    const file = await checkpointedSession(tempDir(), TURNS);
    const ledger = ledgerAt(file);
    const loaded = loadState(ledger, FOLD, { verify: "sync" });
    expect(loaded.fromCheckpoint).toBe(true);
    const before = reads();
    const steps = readAll(loaded.state);
    expect(steps).toBeGreaterThan(16); // every table's outer nodes at least
    expect(reads() - before).toBe(steps); // one record per step
    expect(readAll(loaded.state)).toBe(0); // all of it is in memory now

    const afterIndexes = reads();
    const state = append(ledger, loaded.state, turnOf(TURNS));
    expect(tableHas(state.messages, `m_a_${TURNS}`)).toBe(true);
    expect(reads()).toBe(afterIndexes);

    expect(tableGet(state.messages, "m_a_17")?.content).toHaveLength(1); // an old answer: its record is read now
    expect(reads()).toBe(afterIndexes + 1);
    await ledger.sync();
    expect(json(state)).toBe(json(fullReduce(file)));
    await ledger.close();
  });

  test("an opened session reads them ahead on its own and logs it", async () => {
    const first = await sessions.open({ definitions: [fakeDefinition({ turns: [] })] });
    const { ledger: file, dir } = first.ref.paths;
    await first.close();
    sessions.forget(first);
    // The session's ledger replaced by one with history and a checkpoint (the same session id, as its meta says).
    for (const name of fs.readdirSync(dir)) if (name.startsWith("session.jsonl") || name.startsWith("checkpoint")) fs.rmSync(path.join(dir, name));
    const scratch = tempDir();
    await checkpointedSession(scratch, TURNS, first.ref.batonSessionId);
    for (const name of fs.readdirSync(scratch)) fs.copyFileSync(path.join(scratch, name), path.join(dir, name === "session.jsonl" ? path.basename(file) : name));
    READ_AHEAD.delayMs = 0;
    const session = await sessions.open({ definitions: [fakeDefinition({ turns: [] })], choice: { kind: "id", id: first.ref.batonSessionId } }, true);
    expect(session.loaded.fromCheckpoint).toBe(true);
    const logged = (): string => fs.readFileSync(session.log.path, "utf8");
    await waitFor(() => logged().includes("read the checkpoint's indexes ahead"), 5000, "the read-ahead's log line");
    expect(logged()).toContain('"outcome":"done"');
    expect(readAll(session.controller.state)).toBe(0);
  });

  test("a node file that cannot be read stops it with a warning, and the reader that needs the record meets the error", async () => {
    const file = await checkpointedSession(tempDir(), TURNS);
    const ledger = ledgerAt(file);
    const { state } = loadState(ledger, FOLD, { verify: "sync" });
    const [nodes] = fs.readdirSync(path.dirname(file)).filter((name) => name.endsWith(".nodes"));
    fs.truncateSync(path.join(path.dirname(file), nodes as string), 64); // the records the index needs are gone
    const logged: { level: string; message: string }[] = [];
    const log = { log: (level: string, message: string) => void logged.push({ level, message }) } as unknown as SessionLog;
    await readAhead(() => state, () => false, log, 0);
    expect(logged).toEqual([
      { level: "warn", message: "could not read the checkpoint's indexes ahead; they are read when used" },
      { level: "debug", message: "read the checkpoint's indexes ahead" },
    ]);
    expect(() => json(state)).toThrow(/cut short|outside/); // a reader meets the same problem, where it is reported
    await ledger.close();
  });

  test("it stops once the loaded-node cache is half full", async () => {
    const ledger = ledgerAt(await checkpointedSession(tempDir(), TURNS), true);
    const { state } = loadState(ledger, FOLD, { verify: "sync" });
    trimLoadedNodes(0);
    NODE_CACHE.maxBytes = 8 * 1024;
    await readAhead(() => state, () => false, undefined, 0);
    expect(loadedNodeStats().bytes).toBeGreaterThanOrEqual(4 * 1024);
    NODE_CACHE.maxBytes = cache.maxBytes;
    expect(readAll(state)).toBeGreaterThan(0); // it left the rest on disk
    await ledger.close();
  });
});
