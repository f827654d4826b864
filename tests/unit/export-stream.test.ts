/**
 * `baton export` streams (#18): the JSON and Markdown it writes a piece at a time are, byte for byte, what the
 * whole-projection export wrote (`terminalJson({meta, projection: plainState(state)})`, `transcriptMarkdown`), on
 * generated sessions holding every event kind of the registry (`tests/support/event-payloads.ts`) plus large,
 * control-laden and numeric-id items — opened from a checkpoint and its tail with the node cache far below the
 * session (so the export reads and evicts records as it goes) and without one. `--output` writes a temp and
 * renames it; on a full disk (a real tmpfs), a corrupt ledger line or Ctrl+C it fails in one line and leaves
 * the target as it was, with no temp.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fc from "fast-check";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EventDraft } from "../../src/event/envelope.ts";
import type { EventKind } from "../../src/event/kinds.ts";
import { initialState, plainState, plainStateJson, type ProjectionState } from "../../src/projection/index.ts";
import { transcriptMarkdown } from "../../src/app/transcript-markdown.ts";
import { projectionFold } from "../../src/app/open-session.ts";
import { displayTitle } from "../../src/store/display.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type TurnId } from "../../src/shared/ids.ts";
import { terminalJson, terminalSafe } from "../../src/shared/terminal-text.ts";
import { createSessionStore, loadState, writeCheckpoint, type SessionRef } from "../../src/store/index.ts";
import { loadedNodeStats, NODE_CACHE, trimLoadedNodes } from "../../src/store/checkpoint-nodes.ts";
import { PAYLOADS } from "../support/event-payloads.ts";
import { runCliOnce, startCli } from "../support/cli-runner.ts";
import { canMount, mountTmpfs, unmount } from "../support/tmpfs.ts";

const cache = { ...NODE_CACHE };
const dirs: string[] = [];
let mounted: string | undefined;

afterEach(() => {
  Object.assign(NODE_CACHE, cache);
  trimLoadedNodes(0);
  if (mounted !== undefined) unmount(mounted);
  mounted = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

const CONTROLS = "plain \u001b[31mred\u001b[0m \u001b]0;title\u0007 cr\r\nlf \u009b2J del\u007f c1\u0085 tab\t";
const text = (chars: number, salt: string): string => `${salt} `.repeat(Math.ceil(chars / (salt.length + 1))).slice(0, chars);
const harness = (target: string) => ({ source: { type: "harness", harnessTargetId: target }, harness: target.split("-")[0] ?? target, harnessTargetId: target }) as const;

/** A real turn: a prompt, streamed and complete answers (large, with terminal controls), tool calls with numeric ids, a summary. */
function* turnOf(turn: number): Generator<EventDraft> {
  const turnId = `t_${String(turn).padStart(5, "0")}` as TurnId;
  const h = { ...harness(turn % 3 === 0 ? "claude" : "codex"), turnId };
  yield { kind: "user_message", source: { type: "user" }, turnId, payload: { messageId: `m_u_${turn}`, content: [{ type: "text", text: `ask ${turn} ${CONTROLS}` }], delivery: "prompt" } };
  yield { kind: "state_update", ...h, payload: { state: "running" } };
  for (let c = 0; c < 4; c++) yield { kind: "agent_message_chunk", ...h, payload: { messageId: `m_s_${turn}`, content: { type: "text", text: text(300, `chunk${turn}.${c}`) } } };
  yield { kind: "agent_thought", ...h, payload: { messageId: `rs_${turn}`, content: [{ type: "text", text: text(400, `think${turn}`) }] } };
  yield { kind: "agent_message", ...h, payload: { messageId: `m_a_${turn}`, content: [{ type: "text", text: `${text(3000, `answer${turn}`)} ${CONTROLS}` }] } };
  yield { kind: "tool_call_update", ...h, payload: { toolCallId: String(turn * 7), title: `run ${turn}`, kind: "execute", status: "completed", rawInput: { $: [0, 1, 2], cmd: "ls" }, content: [{ type: "text", text: `${text(2000, `out${turn}`)}\n${CONTROLS}` }] } };
  yield { kind: "state_update", ...h, payload: { state: "idle", stopReason: "end_turn" } };
  yield { kind: "_baton_turn_summary", source: { type: "baton" }, turnId, payload: { turnId, role: "driven", stopReason: "end_turn", toolCalls: [] } } as EventDraft;
}

/** One event of every kind of the registry, drawn from its arbitrary (delivery attempts as a valid sequence). */
function everyKind(seed: number): EventDraft[] {
  const out: EventDraft[] = [];
  for (const [i, kind] of (Object.keys(PAYLOADS) as EventKind[]).entries()) {
    if (kind === "_baton_delivery_attempt_update") {
      for (const phase of ["prepared", "dispatching", "accepted", "finalized"] as const) {
        out.push({ kind, source: { type: "baton" }, turnId: "t_1" as TurnId, payload: { attemptId: `att_${seed}`, phase, ...(phase === "finalized" ? { outcome: "completed" } : {}) } } as EventDraft);
      }
      continue;
    }
    const [payload] = fc.sample(PAYLOADS[kind] as fc.Arbitrary<unknown>, { numRuns: 1, seed: seed * 1000 + i });
    const source = kind.startsWith("_baton") ? { source: { type: "baton" } } : kind === "user_message" ? { source: { type: "user" } } : harness("codex");
    out.push({ kind, ...source, turnId: `t_${(i % 3) + 1}` as TurnId, payload } as EventDraft);
  }
  return out;
}

interface Session {
  readonly home: string;
  readonly cwd: string;
  readonly ref: SessionRef;
}

/** A store session: every kind, `turns` real turns with a checkpoint after half of them, every kind again as the tail. */
async function session(turns: number, seed: number): Promise<Session> {
  const home = tempDir("baton-export-home-");
  const cwd = tempDir("baton-export-work-");
  const store = createSessionStore({ home, clock: new ManualClock(), ids: createSequentialIdSource(seed * 1_000_000) });
  const ref = store.createSession({ cwd, preview: `export ${CONTROLS}` });
  const ledger = store.openLedger(ref);
  let state: ProjectionState = initialState(ref.batonSessionId);
  const append = (drafts: Iterable<EventDraft>): void => {
    for (const draft of drafts) state = projectionFold.fold(state, ledger.append(draft));
  };
  append(everyKind(seed));
  for (let turn = 0; turn < turns; turn++) {
    append(turnOf(turn));
    if (turn === Math.floor(turns / 2)) {
      await ledger.sync();
      expect(await writeCheckpoint(ledger, projectionFold, state, ledger.position)).toBe(true);
    }
  }
  append(everyKind(seed + 1));
  await ledger.close();
  return { home, cwd, ref: store.findSession(ref.batonSessionId) };
}

/** What the export wrote before it streamed: the whole projection, then one string. */
function wholeExports(s: Session): { json: string; md: string } {
  const store = createSessionStore({ home: s.home, clock: new ManualClock(), ids: createSequentialIdSource(1) });
  const ledger = store.openLedger(s.ref, { readOnly: true });
  const { state } = loadState(ledger, { ...projectionFold, initial: () => initialState(s.ref.batonSessionId) }, { useCheckpoint: false });
  void ledger.close();
  const header = { title: displayTitle(s.ref.meta), batonSessionId: s.ref.batonSessionId, cwd: s.ref.meta.cwd, createdAt: s.ref.meta.createdAt };
  return { json: `${terminalJson({ meta: s.ref.meta, projection: plainState(state) })}\n`, md: terminalSafe(transcriptMarkdown(state, header)) };
}

const cli = (s: Session, ...argv: string[]) => runCliOnce(["export", s.ref.batonSessionId, ...argv], { env: { BATON_HOME: s.home }, cwd: s.cwd, definitions: [] });

describe("baton export streams", () => {
  test("streamed JSON and Markdown equal the whole-projection export byte for byte (every event kind; from a checkpoint with eviction, and without)", async () => {
    for (const seed of [1, 2, 3]) {
      const s = await session(60 + seed * 20, seed);
      const whole = wholeExports(s);
      JSON.parse(whole.json);
      expect(whole.json).toContain('"7":'); // numeric ids: a record lists them first
      NODE_CACHE.maxBytes = 16 * 1024;
      trimLoadedNodes(0);
      const evictions = loadedNodeStats().evictions;
      const json = await cli(s, "--format", "json");
      expect(json.stderr).toBe("");
      expect(json.code).toBe(0);
      expect(json.stdout).toBe(whole.json);
      expect(loadedNodeStats().evictions).toBeGreaterThan(evictions); // the open used the checkpoint and evicted as it wrote
      const md = await cli(s);
      expect(md.code).toBe(0);
      expect(md.stdout).toBe(whole.md);
      // Without a checkpoint (a full replay) the same bytes.
      fs.rmSync(path.join(s.ref.paths.dir, "checkpoint.jsonl"));
      expect((await cli(s, "--format", "json")).stdout).toBe(whole.json);
      expect((await cli(s)).stdout).toBe(whole.md);
    }
  });

  test("plainStateJson is JSON.stringify(plainState) for the states a random fold reaches", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (seed) => {
        let state = initialState("bs_00000000000000000000000009");
        let seq = 0;
        for (const draft of everyKind(seed)) {
          const event = { ...draft, v: 3, eventId: `ev_${seq}`, seq: ++seq, ts: "2026-01-01T00:00:00.000Z", scope: { type: "session", batonSessionId: "bs_00000000000000000000000009" } };
          state = projectionFold.fold(state, event as never);
        }
        expect([...plainStateJson(state)].join("")).toBe(JSON.stringify(plainState(state)));
      }),
      { numRuns: 25 },
    );
  });

  test("--output writes the file whole (temp + rename); a corrupt ledger line fails before anything is written", async () => {
    const s = await session(20, 4);
    const whole = wholeExports(s);
    const out = path.join(s.cwd, "out", "export.json");
    fs.mkdirSync(path.dirname(out));
    const done = await cli(s, "--format", "json", "--output", "out/export.json");
    expect(done.code).toBe(0);
    expect(done.stdout).toBe("");
    expect(fs.readFileSync(out, "utf8")).toBe(whole.json);
    expect(fs.readdirSync(path.dirname(out))).toEqual(["export.json"]);

    // A corrupt complete line in the ledger's tail (after the checkpoint): one line naming the file and line.
    const ledgerFile = s.ref.paths.ledger;
    const lines = fs.readFileSync(ledgerFile, "utf8").split("\n");
    const at = lines.length - 3;
    lines[at] = `${lines[at]!.slice(0, 20)}#corrupt`;
    fs.writeFileSync(ledgerFile, lines.join("\n"));
    const previous = fs.readFileSync(out);
    const failed = await cli(s, "--format", "json", "--output", out);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`${ledgerFile}:${at + 1}`);
    expect(failed.stderr.trim().split("\n")[0]).toMatch(/^baton: /);
    expect(fs.readFileSync(out)).toEqual(previous);
    expect(fs.readdirSync(path.dirname(out))).toEqual(["export.json"]);
    const toStdout = await cli(s);
    expect(toStdout.code).toBe(1);
    expect(toStdout.stdout).toBe("");
  });

  test("Ctrl+C part-way through --output: exit 130, no file, no temp", async () => {
    const s = await session(400, 5);
    const out = path.join(s.cwd, "export.md");
    const run = startCli(["export", s.ref.batonSessionId, "--output", out], { env: { BATON_HOME: s.home }, cwd: s.cwd, definitions: [] });
    // Interrupt once the temp exists (the first batch is being written).
    for (let i = 0; i < 2000 && !fs.readdirSync(s.cwd).some((name) => name.includes(".tmp-")); i++) await Bun.sleep(1);
    run.interrupt();
    const result = await run.result;
    if (result.code === 0) {
      // The export finished before the interrupt arrived: then it is whole.
      expect(fs.readFileSync(out, "utf8")).toBe(wholeExports(s).md);
      return;
    }
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`export interrupted: ${out} was not written`);
    expect(fs.readdirSync(s.cwd)).toEqual([]);
  });

  test.if(canMount)("--output on a full disk (a real tmpfs): one line saying so, the previous file intact, no temp", async () => {
    const s = await session(300, 6);
    const disk = tempDir("baton-export-disk-");
    mountTmpfs(disk, "1m");
    mounted = disk;
    const out = path.join(disk, "export.json");
    fs.writeFileSync(out, "the previous export\n");
    const result = await cli(s, "--format", "json", "--output", out);
    expect(result.code).toBe(1);
    const [first, hint] = result.stderr.trim().split("\n");
    expect(first).toMatch(new RegExp(`^baton: the disk is full: could not write ${out.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\([0-9.]+ [KM]?B written, [0-9.]+ [KM]?B free there\\); it was not written$`));
    expect(hint).toContain("free some disk space");
    expect(fs.readFileSync(out, "utf8")).toBe("the previous export\n");
    expect(fs.readdirSync(disk)).toEqual(["export.json"]);
  });
});
