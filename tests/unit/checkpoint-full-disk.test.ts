/**
 * Incremental checkpoints on a real full disk (#18; a small tmpfs, root only, as CI runs): the first write
 * (a new node file), an append to an existing node file, and a compaction (a new generation) each fail with
 * ENOSPC part-way and leave what was on disk before — no temp, no node file no head names, the existing node
 * file cut back to the bytes its head names, the head untouched — so the open still equals a full reduce.
 * With space again the next checkpoint succeeds.
 */
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EventDraft } from "../../src/event/envelope.ts";
import { initialState, plainState, storedProjectionFold, type ProjectionState } from "../../src/projection/index.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type BatonSessionId, type TurnId } from "../../src/shared/ids.ts";
import { CHECKPOINT_FILE, loadState, writeCheckpoint, type StateFold } from "../../src/store/checkpoint.ts";
import { COMPACTION, NODES_PATTERN } from "../../src/store/checkpoint-nodes.ts";
import { openLedger, type Ledger } from "../../src/store/ledger.ts";
import { canMount, fillDisk, mountTmpfs, unmount } from "../support/tmpfs.ts";

const SESSION = "bs_0000000000000000000000000D" as BatonSessionId;
const FOLD: StateFold<ProjectionState> = { ...storedProjectionFold, initial: () => initialState(SESSION) };
const policy = { ...COMPACTION };
let mounted: string | undefined;
let idBlock = 0;

afterEach(() => {
  Object.assign(COMPACTION, policy);
  if (mounted !== undefined) {
    unmount(mounted);
    fs.rmSync(mounted, { recursive: true, force: true });
  }
  mounted = undefined;
});

function open(file: string): Ledger {
  idBlock += 1_000_000;
  return openLedger({ path: file, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(idBlock) });
}

/** A turn with ~6 KB of new nodes (a message, a tool call's output) and one replaced 3 KB tool call. */
function* turnOf(turn: number): Generator<EventDraft> {
  const turnId = `t_${String(turn).padStart(5, "0")}` as TurnId;
  const h = { source: { type: "harness", harnessTargetId: "codex" }, harness: "codex", harnessTargetId: "codex", turnId } as const;
  yield { kind: "user_message", source: { type: "user" }, turnId, payload: { messageId: `m_u_${turn}`, content: [{ type: "text", text: `please ${turn} ` }], delivery: "prompt" } };
  yield { kind: "state_update", ...h, payload: { state: "running" } };
  yield { kind: "agent_message", ...h, payload: { messageId: `m_a_${turn}`, content: [{ type: "text", text: `reply ${turn} `.repeat(300) }] } };
  yield { kind: "tool_call_update", ...h, payload: { toolCallId: `call_${turn}`, title: "run", status: "completed", content: [{ type: "text", text: `out ${turn} `.repeat(300) }] } };
  yield { kind: "tool_call_update", ...h, payload: { toolCallId: "call_watch", title: "watch", status: "in_progress", content: [{ type: "text", text: `tick ${turn} `.repeat(400) }] } };
  yield { kind: "state_update", ...h, payload: { state: "idle", stopReason: "end_turn" } };
  yield { kind: "_baton_turn_summary", source: { type: "baton" }, turnId, payload: { turnId, role: "driven", stopReason: "end_turn", toolCalls: [] } } as EventDraft;
}

function appendTurns(ledger: Ledger, state: ProjectionState, from: number, count: number): ProjectionState {
  let next = state;
  for (let turn = from; turn < from + count; turn++) for (const draft of turnOf(turn)) next = FOLD.fold(next, ledger.append(draft));
  return next;
}

const plain = (state: ProjectionState): unknown => JSON.parse(JSON.stringify(plainState(state)));

interface Disk {
  readonly root: string;
  readonly file: string;
  snapshot(): Record<string, Buffer>;
  header(): { name: string; length: number; live: number } | undefined;
}

function disk(): Disk {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "baton-ckpt-disk-"));
  mountTmpfs(root, "8m");
  mounted = root;
  const file = path.join(root, "session.jsonl");
  const files = () => fs.readdirSync(root).filter((name) => name !== "filler" && name !== path.basename(file));
  return {
    root,
    file,
    snapshot: () => Object.fromEntries(files().map((name) => [name, fs.readFileSync(path.join(root, name))])),
    header: () => {
      const at = path.join(root, CHECKPOINT_FILE);
      if (!fs.existsSync(at)) return undefined;
      const text = fs.readFileSync(at, "utf8");
      return (JSON.parse(text.slice(0, text.indexOf("\n"))) as { nodes: { name: string; length: number; live: number } }).nodes;
    },
  };
}

async function failsFull(ledger: Ledger, state: ProjectionState): Promise<string | undefined> {
  return writeCheckpoint(ledger, FOLD, state, ledger.position).then(
    () => undefined,
    (error: NodeJS.ErrnoException) => error.code,
  );
}

function expectOpenEqualsReplay(file: string, fromCheckpoint: boolean): void {
  const reader = openLedger({ path: file, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(1), readOnly: true });
  const loaded = loadState(reader, FOLD, { verify: "sync" });
  expect(loaded.fromCheckpoint).toBe(fromCheckpoint);
  expect(plain(loaded.state)).toEqual(plain(loadState(reader, FOLD, { useCheckpoint: false }).state));
  void reader.close();
}

describe("incremental checkpoint on a full disk", () => {
  test.if(canMount)("the first checkpoint (a new node file): ENOSPC, nothing left behind; with space, the next one is written", async () => {
    const d = disk();
    const ledger = open(d.file);
    let state = appendTurns(ledger, FOLD.initial(), 0, 12);
    const filler = fillDisk(d.root, 8 * 1024);
    expect(await failsFull(ledger, state)).toBe("ENOSPC");
    expect(d.snapshot()).toEqual({});
    expectOpenEqualsReplay(d.file, false);
    fs.rmSync(filler);
    state = appendTurns(ledger, state, 12, 1);
    expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
    expectOpenEqualsReplay(d.file, true);
    await ledger.close();
  });

  test.if(canMount)("an append to the node file: ENOSPC part-way, the file cut back to what its head names, the head untouched", async () => {
    const d = disk();
    const ledger = open(d.file);
    let state = appendTurns(ledger, FOLD.initial(), 0, 6);
    expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
    const before = d.snapshot();
    const named = d.header()!;
    state = appendTurns(ledger, state, 6, 12);
    const filler = fillDisk(d.root, 16 * 1024);
    expect(await failsFull(ledger, state)).toBe("ENOSPC");
    expect(d.snapshot()).toEqual(before);
    expect(fs.statSync(path.join(d.root, named.name)).size).toBe(named.length);
    expectOpenEqualsReplay(d.file, true);
    fs.rmSync(filler);
    state = appendTurns(ledger, state, 18, 1);
    expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
    expect(d.header()!.name).toBe(named.name);
    expectOpenEqualsReplay(d.file, true);
    await ledger.close();
  });

  test.if(canMount)("a compaction (a new generation): ENOSPC, the old head and node file stay; with space, it compacts", async () => {
    COMPACTION.minBytes = 64 * 1024;
    const d = disk();
    const ledger = open(d.file);
    let state = appendTurns(ledger, FOLD.initial(), 0, 4);
    await writeCheckpoint(ledger, FOLD, state, ledger.position);
    let turn = 4;
    for (; turn < 200; turn++) {
      state = appendTurns(ledger, state, turn, 1);
      await writeCheckpoint(ledger, FOLD, state, ledger.position);
      const { length, live } = d.header()!;
      if (length >= COMPACTION.minBytes && live < length * COMPACTION.liveRatio) break;
    }
    const old = d.header()!;
    expect(old.live).toBeLessThan(old.length * COMPACTION.liveRatio);
    const before = d.snapshot();
    state = appendTurns(ledger, state, ++turn, 1);
    const filler = fillDisk(d.root, 16 * 1024);
    expect(await failsFull(ledger, state)).toBe("ENOSPC");
    expect(d.snapshot()).toEqual(before);
    expectOpenEqualsReplay(d.file, true);
    fs.rmSync(filler);
    state = appendTurns(ledger, state, ++turn, 1);
    expect(await writeCheckpoint(ledger, FOLD, state, ledger.position)).toBe(true);
    const compacted = d.header()!;
    expect(compacted.name).not.toBe(old.name);
    expect(compacted.length).toBeLessThan(old.length);
    expect(fs.readdirSync(d.root).filter((name) => NODES_PATTERN.test(name))).toEqual([compacted.name]);
    expectOpenEqualsReplay(d.file, true);
    await ledger.close();
  });
});
