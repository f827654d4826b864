/**
 * Node-file compaction (#18): a node replaced by a newer one stays in the append-only node file as garbage;
 * when the bytes the head references fall under half of the file, the next checkpoint writes a new generation
 * with the live records only — copying records the open state never read without loading them — and removes
 * the old file once a head names the new one. A failure on the way (a full disk) leaves the old head and
 * file as they were.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EventDraft } from "../../src/event/envelope.ts";
import { initialState, plainState, storedProjectionFold, type ProjectionState } from "../../src/projection/index.ts";
import { Stub } from "../../src/projection/lazy.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type BatonSessionId, type TurnId } from "../../src/shared/ids.ts";
import { checkpointPathFor, loadState, writeCheckpoint, type LoadedState, type StateFold } from "../../src/store/checkpoint.ts";
import { COMPACTION, NODES_PATTERN } from "../../src/store/checkpoint-nodes.ts";
import { setDiskFaults } from "../../src/store/disk-faults.ts";
import { openLedger, type Ledger } from "../../src/store/ledger.ts";

const SESSION = "bs_00000000000000000000000009" as BatonSessionId;
const FOLD: StateFold<ProjectionState> = { ...storedProjectionFold, initial: () => initialState(SESSION) };
const dirs: string[] = [];
const policy = { ...COMPACTION };
let idBlock = 0;

beforeEach(() => {
  COMPACTION.minBytes = 64 * 1024;
});

afterEach(() => {
  Object.assign(COMPACTION, policy);
  setDiskFaults(undefined);
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function open(file: string): Ledger {
  idBlock += 1_000_000;
  return openLedger({ path: file, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(idBlock) });
}

/** A turn that adds a little (its messages) and replaces a lot (one shared tool call's 4 KB output, one big plan). */
function* churn(turn: number): Generator<EventDraft> {
  const turnId = `t_${String(turn).padStart(5, "0")}` as TurnId;
  const h = { source: { type: "harness", harnessTargetId: "codex" }, harness: "codex", harnessTargetId: "codex", turnId } as const;
  yield { kind: "user_message", source: { type: "user" }, turnId, payload: { messageId: `m_u_${turn}`, content: [{ type: "text", text: `question ${turn} `.repeat(30) }], delivery: "prompt" } };
  yield { kind: "state_update", ...h, payload: { state: "running" } };
  yield { kind: "agent_message", ...h, payload: { messageId: `m_a_${turn}`, content: [{ type: "text", text: `answer ${turn} `.repeat(40) }] } };
  yield { kind: "tool_call_update", ...h, payload: { toolCallId: "call_shared", title: "watch", status: "in_progress", content: [{ type: "text", text: `output ${turn} `.repeat(400) }] } };
  yield { kind: "plan_update", ...h, payload: { planId: "pl_shared", entries: Array.from({ length: 30 }, (_, i) => ({ content: `step ${i} of turn ${turn}`, priority: "high", status: "pending" })) } };
  yield { kind: "state_update", ...h, payload: { state: "idle", stopReason: "end_turn" } };
  yield { kind: "_baton_turn_summary", source: { type: "baton" }, turnId, payload: { turnId, role: "driven", stopReason: "end_turn", userMessageId: `m_u_${turn}`, toolCalls: [] } } as EventDraft;
}

function appendTurns(ledger: Ledger, state: ProjectionState, from: number, count: number): ProjectionState {
  let next = state;
  for (let turn = from; turn < from + count; turn++) for (const draft of churn(turn)) next = FOLD.fold(next, ledger.append(draft));
  return next;
}

const plain = (state: ProjectionState): unknown => JSON.parse(JSON.stringify(plainState(state)));
const replayed = (ledger: Ledger): unknown => plain(loadState(ledger, FOLD, { useCheckpoint: false }).state);
const nodeFiles = (dir: string): string[] => fs.readdirSync(dir).filter((name) => NODES_PATTERN.test(name));

function header(file: string): { nodes: { name: string; length: number; live: number } } {
  const text = fs.readFileSync(checkpointPathFor(file), "utf8");
  return JSON.parse(text.slice(0, text.indexOf("\n"))) as { nodes: { name: string; length: number; live: number } };
}

/** A session file in a fresh temp dir with `turns` turns of churn appended and checkpointed once. */
async function checkpointedSession(turns: number): Promise<{ dir: string; file: string; ledger: Ledger; state: ProjectionState }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-ckpt-compact-"));
  dirs.push(dir);
  const file = path.join(dir, "session.jsonl");
  const ledger = open(file);
  const state = appendTurns(ledger, FOLD.initial(), 0, turns);
  await writeCheckpoint(ledger, FOLD, state, ledger.position);
  return { dir, file, ledger, state };
}

/** Open `file` anew with its ledger checked: the state comes from the checkpoint and equals a full replay. */
async function expectReopenFromCheckpoint(file: string): Promise<LoadedState<ProjectionState>> {
  const reader = open(file);
  const loaded = loadState(reader, FOLD, { verify: "sync" });
  expect(loaded.fromCheckpoint).toBe(true);
  expect(plain(loaded.state)).toEqual(replayed(reader));
  await reader.close();
  return loaded;
}

/** Unread stubs left in the state's message table (what an open has not looked at). */
function unreadStubs(state: ProjectionState): number {
  let count = 0;
  const visit = (node: unknown): void => {
    if (node instanceof Stub) {
      if (!node.loaded) count++;
      else visit(node.peek());
    } else if (Array.isArray(node)) for (const child of node) visit(child);
  };
  for (const bucket of state.messages.buckets) visit(bucket);
  return count;
}

describe("node file compaction", () => {
  test("garbage over half of the file: the next checkpoint writes the live records to a new file; unread stubs stay unread and move to it", async () => {
    const { dir, file, ledger: writer } = await checkpointedSession(40);
    await writer.close();
    // Reopen lazily: most of the state stays on disk as stubs.
    const ledger = open(file);
    let state = loadState(ledger, FOLD).state;
    const firstName = header(file).nodes.name;
    const unreadAtOpen = unreadStubs(state);
    expect(unreadAtOpen).toBeGreaterThan(10);
    let compactedAt = -1;
    let before = { length: 0, live: 0 };
    for (let turn = 40; turn < 200 && compactedAt === -1; turn++) {
      state = appendTurns(ledger, state, turn, 1);
      const last = header(file).nodes;
      expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
      const now = header(file).nodes;
      expect(now.live).toBeLessThanOrEqual(now.length);
      if (now.name !== last.name) {
        compactedAt = turn;
        before = last;
      }
    }
    expect(compactedAt).toBeGreaterThan(40);
    // It compacted when the live bytes fell under half, into a file about the size of the live bytes.
    expect(before.live).toBeLessThan(before.length * 0.5);
    const after = header(file).nodes;
    expect(after.name).not.toBe(firstName);
    expect(nodeFiles(dir)).toEqual([after.name]);
    expect(after.length).toBeLessThan(before.length * 0.6);
    expect(after.live).toBeGreaterThan(after.length * 0.9);
    // What the open never read was copied, not loaded: the live state keeps its unread stubs, now in the new file.
    expect(unreadStubs(state)).toBeGreaterThan(unreadAtOpen / 2);
    // The old file is gone; the moved stubs read from the new one, and equal a full replay.
    expect(plain(state)).toEqual(replayed(ledger));
    // The next checkpoint is incremental again (written as references, not copied once more).
    state = appendTurns(ledger, state, compactedAt + 1, 1);
    await writeCheckpoint(ledger, FOLD, state, ledger.position);
    const next = header(file).nodes;
    expect(next.name).toBe(after.name);
    expect(next.length - after.length).toBeLessThan(after.length / 4);
    await ledger.close();
    await expectReopenFromCheckpoint(file);
  });

  test("a compaction that fails (the disk is full) leaves the old head and node file; the next one succeeds", async () => {
    const session = await checkpointedSession(20);
    const { dir, file, ledger } = session;
    let { state } = session;
    // Churn until the live bytes are under half of a file past the minimum: the next write compacts.
    for (let turn = 20; turn < 300; turn++) {
      state = appendTurns(ledger, state, turn, 1);
      await writeCheckpoint(ledger, FOLD, state, ledger.position);
      const { length, live } = header(file).nodes;
      if (length >= COMPACTION.minBytes && live < length * COMPACTION.liveRatio) break;
    }
    const old = header(file).nodes;
    expect(old.live).toBeLessThan(old.length * COMPACTION.liveRatio);
    const headBytes = fs.readFileSync(checkpointPathFor(file));
    state = appendTurns(ledger, state, 300, 1);
    setDiskFaults({ site: "checkpoint" });
    const failed = await writeCheckpoint(ledger, FOLD, state, ledger.position).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(failed).toBe("ENOSPC");
    expect(fs.readFileSync(checkpointPathFor(file))).toEqual(headBytes);
    expect(nodeFiles(dir)).toEqual([old.name]);
    expect(fs.statSync(path.join(dir, old.name)).size).toBe(old.length);
    expect(fs.readdirSync(dir).filter((name) => name.includes(".tmp-"))).toEqual([]);
    await expectReopenFromCheckpoint(file);
    setDiskFaults(undefined);
    state = appendTurns(ledger, state, 301, 1);
    expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
    expect(header(file).nodes.name).not.toBe(old.name);
    expect(nodeFiles(dir)).toEqual([header(file).nodes.name]);
    await ledger.close();
    expect((await expectReopenFromCheckpoint(file)).replayed).toBe(0);
  });
});
