/**
 * Loaded checkpoint nodes are evicted (#18): a state opened from an incremental checkpoint reads old records
 * on demand, and the process keeps at most `NODE_CACHE.maxBytes` of them in memory; an evicted stub reads its
 * record again when next used. Proofs: reading far more than the limit keeps the cache at the limit and the
 * heap flat while every read (first and reread) equals a full reduce; an object still held by a reader is the
 * same object after an eviction (identity is the projection's change signal); items changed in the live state
 * after the open survive any amount of eviction, a checkpoint written from that state (appended, and as a
 * compaction into a new node file) reopens equal to a full reduce, and the old state's stubs moved by the
 * compaction still read what they stood for.
 */
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { plainState, tableGet, type ProjectionState } from "../../src/projection/index.ts";
import type { TurnId } from "../../src/shared/ids.ts";
import { loadState, writeCheckpoint } from "../../src/store/checkpoint.ts";
import { COMPACTION, loadedNodeStats, NODE_CACHE, trimLoadedNodes } from "../../src/store/checkpoint-nodes.ts";
import { append, checkpointedSession, FOLD, fullReduce, ledgerAt, turnOf } from "../support/checkpointed-session.ts";

const cache = { ...NODE_CACHE };
const policy = { ...COMPACTION };
const dirs: string[] = [];

afterEach(() => {
  Object.assign(NODE_CACHE, cache);
  Object.assign(COMPACTION, policy);
  trimLoadedNodes(0);
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A session of `turns` turns with a checkpoint at its end (≈ 9 KB of records per turn). */
async function session(turns: number): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-evict-"));
  dirs.push(dir);
  return checkpointedSession(dir, turns);
}

const json = (value: unknown): string => JSON.stringify(value);
const idsOf = (turns: number): { messages: string[]; tools: string[] } => ({
  messages: Array.from({ length: turns }, (_, t) => [`m_u_${t}`, `m_a_${t}`]).flat(),
  tools: Array.from({ length: turns }, (_, t) => `call_${t}`),
});

/** Reads every message and tool call of `state`, checking each against `expected`; returns how many records the cache held at most. */
function readAll(state: ProjectionState, expected: ProjectionState, turns: number): number {
  let most = 0;
  const { messages, tools } = idsOf(turns);
  for (const id of messages) {
    expect(json(tableGet(state.messages, id))).toBe(json(tableGet(expected.messages, id)));
    most = Math.max(most, loadedNodeStats().bytes);
  }
  for (const id of tools) {
    expect(json(tableGet(state.toolCalls, id))).toBe(json(tableGet(expected.toolCalls, id)));
    most = Math.max(most, loadedNodeStats().bytes);
  }
  return most;
}

async function heapAfterGc(): Promise<number> {
  // A WeakRef's target stays alive until the job that made or read it ends: let it end first.
  await Bun.sleep(0);
  Bun.gc(true);
  await Bun.sleep(0);
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
}

describe("evicting loaded checkpoint nodes", () => {
  test("reading ~10x the limit keeps the cache at the limit and the heap flat; every read and reread equals a full reduce", async () => {
    const turns = 1200; // ≈ 11 MB of records
    const file = await session(turns);
    const expected = fullReduce(file);
    NODE_CACHE.maxBytes = 1024 * 1024;
    trimLoadedNodes(0);
    const reader = ledgerAt(file, true);
    const loaded = loadState(reader, FOLD, { verify: "sync" });
    expect(loaded.fromCheckpoint).toBe(true);
    const evictedBefore = loadedNodeStats().evictions;
    const heapBefore = await heapAfterGc();
    expect(readAll(loaded.state, expected, turns)).toBeLessThanOrEqual(NODE_CACHE.maxBytes);
    const heapAfterOne = await heapAfterGc();
    expect(readAll(loaded.state, expected, turns)).toBeLessThanOrEqual(NODE_CACHE.maxBytes); // rereads of evicted records
    const heapAfterTwo = await heapAfterGc();
    expect(loadedNodeStats().evictions - evictedBefore).toBeGreaterThan(2 * turns);
    // Without eviction the first pass alone keeps > 20 MB of decoded records (the limit is 1 MB of record bytes).
    expect(heapAfterOne - heapBefore).toBeLessThan(8 * 1024 * 1024);
    expect(heapAfterTwo - heapBefore).toBeLessThan(8 * 1024 * 1024);
    // The whole state still equals a full reduce.
    expect(json(plainState(loaded.state))).toBe(json(plainState(expected)));
    await reader.close();
  });

  test("an object a reader still holds is the one returned after its stub was evicted", async () => {
    const file = await session(40);
    const reader = ledgerAt(file, true);
    const { state } = loadState(reader, FOLD, { verify: "sync" });
    const held = tableGet(state.messages, "m_a_3");
    expect(held).toBeDefined();
    const before = loadedNodeStats().evictions;
    trimLoadedNodes(0);
    expect(loadedNodeStats().evictions).toBeGreaterThan(before);
    expect(loadedNodeStats().bytes).toBe(0);
    await heapAfterGc();
    expect(tableGet(state.messages, "m_a_3")).toBe(held as NonNullable<typeof held>);
    await reader.close();
  });

  test("items changed after the open survive eviction; checkpoints from that state (appended, then compacted) reopen equal to a full reduce", async () => {
    const turns = 300;
    const file = await session(turns);
    NODE_CACHE.maxBytes = 64 * 1024;
    const ledger = ledgerAt(file);
    const loaded = loadState(ledger, FOLD, { verify: "sync" });
    expect(loaded.fromCheckpoint).toBe(true);
    // Change old items that are stubs in the opened state: a tool call's status and output, an answer's text.
    const h = { source: { type: "harness", harnessTargetId: "codex" }, harness: "codex", harnessTargetId: "codex" } as const;
    let state = append(ledger, loaded.state, [
      { kind: "tool_call_update", ...h, turnId: "t_00007" as TurnId, payload: { toolCallId: "call_7", status: "failed", content: [{ type: "text", text: "changed after the open" }] } },
      { kind: "agent_message", ...h, turnId: "t_00011" as TurnId, payload: { messageId: "m_a_11", content: [{ type: "text", text: "rewritten answer" }] } },
    ]);
    state = append(ledger, state, turnOf(turns));
    await ledger.sync();
    const expected = fullReduce(file);
    expect(tableGet(expected.toolCalls, "call_7")?.status).toBe("failed");
    // Evict everything, read everything (more evictions), twice.
    trimLoadedNodes(0);
    readAll(state, expected, turns + 1);
    readAll(state, expected, turns + 1);
    expect(json(plainState(state))).toBe(json(plainState(expected)));

    // An appended checkpoint from the evicted state, reopened.
    expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
    const again = ledgerAt(file, true);
    const reopened = loadState(again, FOLD, { verify: "sync" });
    expect(reopened.fromCheckpoint).toBe(true);
    expect(json(plainState(reopened.state))).toBe(json(plainState(expected)));
    await again.close();

    // A compaction (a new node file) from the same state after more evictions: evicted stubs are copied from disk
    // and moved to the new file; the old state still reads what each stub stood for.
    trimLoadedNodes(0);
    COMPACTION.minBytes = 0;
    COMPACTION.liveRatio = 2;
    state = append(ledger, state, turnOf(turns + 1));
    await ledger.sync();
    const nodeFiles = (): string[] => fs.readdirSync(path.dirname(file)).filter((name) => name.endsWith(".nodes"));
    const [before] = nodeFiles();
    expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
    expect(nodeFiles()).toHaveLength(1);
    expect(nodeFiles()[0]).not.toBe(before);
    const compactedExpected = fullReduce(file);
    trimLoadedNodes(0);
    readAll(state, compactedExpected, turns + 2);
    expect(json(plainState(state))).toBe(json(plainState(compactedExpected)));
    const third = ledgerAt(file, true);
    const fromCompacted = loadState(third, FOLD, { verify: "sync" });
    expect(fromCompacted.fromCheckpoint).toBe(true);
    expect(json(plainState(fromCompacted.state))).toBe(json(plainState(compactedExpected)));
    await third.close();
    await ledger.close();
  });
});
