/**
 * Native references and adoption through the CLI, in-process, with fake harnesses whose inspectors serve
 * native histories from memory (NAT-01, NAT-06/07): resolution and ambiguity, fail-closed lookups, the turns
 * written, re-import of the tail after Baton ran turns on the native session, and refusals that write nothing.
 */
import type { StopReason } from "../../src/event/stop-reasons.ts";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { historyBoundary } from "../../src/harness/history-boundary.ts";
import type { HarnessDefinition } from "../../src/harness/definition.ts";
import type { HarnessSessionInspector, NativeTurn, ProbeResult } from "../../src/harness/inspector.ts";
import { BatonError } from "../../src/shared/errors.ts";
import { fakeDefinition, type FakeScript } from "../support/fake-adapter.ts";
import { runCliOnce } from "../support/cli-runner.ts";
import { readSummaries } from "../support/summaries.ts";

let base: string;
let cwd: string;
let env: Record<string, string | undefined>;

beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), "baton-native-"));
  cwd = path.join(base, "project");
  fs.mkdirSync(cwd, { recursive: true });
  env = { HOME: base, BATON_HOME: path.join(base, "home"), PATH: process.env["PATH"], BATON_DEFAULT_AGENT: "fake" };
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

interface Memory {
  sessions: Map<string, NativeTurn[]>;
  probe?: (id: string) => ProbeResult | undefined;
  incomplete?: boolean;
  /** Where the native sessions say they ran. */
  cwd?: string;
  reads: number;
}

function memoryInspector(name: string, memory: Memory): HarnessSessionInspector {
  return {
    async probe(id) {
      const forced = memory.probe?.(id);
      if (forced !== undefined) return forced;
      const turns = memory.sessions.get(id);
      return turns === undefined ? { kind: "not_found" } : { kind: "found", session: { id, location: `mem:${name}:${id}`, ...(turns[0] ? { preview: "first prompt" } : {}) } };
    },
    async read(id) {
      memory.reads++;
      const turns = memory.sessions.get(id);
      if (turns === undefined) throw new BatonError("session_not_found", `no ${name} session ${id}`);
      if (memory.incomplete) throw new BatonError("native_incomplete", `${name} session ${id} is not finished: its last prompt has no answer yet`, { hint: "let it finish" });
      return { session: { id, ...(memory.cwd === undefined ? {} : { cwd: memory.cwd }) }, harnessSessionId: id, resumeState: { version: 1, data: { sessionId: id } }, turns: [...turns], boundary: historyBoundary(turns) };
    },
  };
}

function harness(id: string, memory: Memory, script: FakeScript = { turns: [] }): HarnessDefinition {
  return { ...fakeDefinition(script, id), inspector: memoryInspector(id, memory) };
}

const memory = (sessions: Record<string, NativeTurn[]> = {}): Memory => ({ sessions: new Map(Object.entries(sessions)), reads: 0 });

function native(prompt: string, answer: string, stopReason: StopReason = "end_turn"): NativeTurn {
  return {
    nativeTurnId: `nt-${prompt}`,
    prompt: [{ type: "text", text: prompt }],
    events: [
      { kind: "agent_thought", payload: { messageId: `th-${prompt}`, content: [{ type: "text", text: `thinking about ${prompt}` }] } },
      { kind: "tool_call_update", payload: { toolCallId: `tool-${prompt}`, title: `run ${prompt}`, kind: "execute", status: "completed", content: [{ type: "text", text: "out" }] } },
      { kind: "plan_update", payload: { planId: `pl-${prompt}`, entries: [{ content: "step", status: "completed" }] } },
      { kind: "agent_message", payload: { messageId: `msg-${prompt}`, content: [{ type: "text", text: answer }] } },
    ],
    stopReason,
    startedAt: "2026-01-02T03:04:05.000Z",
    endedAt: "2026-01-02T03:04:09.000Z",
  };
}

const cli = (argv: string[], definitions: HarnessDefinition[]) => runCliOnce(argv, { env, cwd, definitions });
const adoptedId = (stdout: string) => /→ (bs_\w+)/.exec(stdout)?.[1] ?? "";

function sessionDirs(): string[] {
  const projects = path.join(env["BATON_HOME"] as string, "projects");
  if (!fs.existsSync(projects)) return [];
  return fs.readdirSync(projects).flatMap((project) => {
    const dir = path.join(projects, project, "sessions");
    return fs.existsSync(dir) ? fs.readdirSync(dir).map((id) => path.join(dir, id)) : [];
  });
}
const dirOf = (id: string) => sessionDirs().find((dir) => path.basename(dir) === id) as string;
const ledgerOf = (id: string) => fs.readFileSync(path.join(dirOf(id), "session.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
const metaOf = (id: string) => JSON.parse(fs.readFileSync(path.join(dirOf(id), "meta.json"), "utf8"));
const hashOf = (id: string) => ["session.jsonl", "meta.json"].map((f) => createHash("sha256").update(fs.readFileSync(path.join(dirOf(id), f))).digest("hex")).join();
const userTexts = (id: string) => readSummaries(ledgerOf(id)).map((summary) => summary.userText);

describe("native references", () => {
  test("a bare id found by one harness is used; the output names it pinned", async () => {
    const result = await cli(["resume", "abc-1"], [harness("fake", memory({ "abc-1": [native("hello", "hi")] })), harness("other", memory())]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^adopted fx:abc-1 → bs_\w+ \(1 turn imported\)\nopen it with: baton -s bs_\w+/);
  });

  test("an id both harnesses know is ambiguous without a prefix (exit 2, nothing written); the prefix picks one", async () => {
    const definitions = [harness("fake", memory({ same: [native("a", "b")] })), harness("other", memory({ same: [native("c", "d")] }))];
    const ambiguous = await cli(["resume", "same"], definitions);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("same is a session of more than one harness: fx:same (Fake fake: first prompt), ox:same (Fake other: first prompt)");
    expect(sessionDirs()).toEqual([]);
    const pinned = await cli(["resume", "ox:same"], definitions);
    expect(pinned.code).toBe(0);
    expect(userTexts(adoptedId(pinned.stdout))).toEqual(["c"]);
    const byTargetPrefix = await cli(["resume", "oth:same"], definitions);
    expect(byTargetPrefix.stdout).toContain("(already up to date)");
  });

  test("a failing lookup fails closed even when another harness found the id (exit 1)", async () => {
    const broken = memory();
    broken.probe = () => ({ kind: "error", message: "database is locked" });
    const result = await cli(["resume", "abc"], [harness("fake", memory({ abc: [native("a", "b")] })), harness("other", broken)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("could not look up abc (other: database is locked)");
    expect(result.stderr.trim().split("\n")).toHaveLength(2);
    expect(sessionDirs()).toEqual([]);
  });

  test("unknown ids are usage errors that say where Baton looked, including harnesses it could not ask", async () => {
    const missing = memory();
    missing.probe = () => ({ kind: "unavailable", reason: "not installed" });
    const result = await cli(["resume", "nope"], [harness("fake", memory()), harness("other", missing)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no Baton session or native session matches nope (looked in fake, other; could not look in other (not installed))");
    const fork = await cli(["fork", "nope"], [harness("fake", memory())]);
    expect(fork.code).toBe(2);
    expect(sessionDirs()).toEqual([]);
  });

  test("an unfinished native session is refused (exit 1) and leaves no session behind", async () => {
    const mem = memory({ busy: [native("a", "b")] });
    mem.incomplete = true;
    const result = await cli(["resume", "busy"], [harness("fake", mem)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is not finished");
    expect(result.stderr).toContain("let it finish");
    expect(sessionDirs()).toEqual([]);
  });
});

describe("adoption", () => {
  test("native turns become Baton turns: user message, running, the harness's events, its idle, a summary", async () => {
    const result = await cli(["resume", "s1"], [harness("fake", memory({ s1: [native("first", "one"), native("second", "two", "cancelled")] }))]);
    const id = adoptedId(result.stdout);
    const ledger = ledgerOf(id);
    const firstTurn = ledger.filter((e) => e.turnId === ledger[0].turnId).map((e) => `${e.kind}/${e.source.type}`);
    expect(firstTurn).toEqual([
      "user_message/user",
      "state_update/baton",
      "agent_thought/harness",
      "tool_call_update/harness",
      "plan_update/harness",
      "agent_message/harness",
      "state_update/harness",
      "_baton_turn_summary/baton",
    ]);
    expect(ledger.every((e) => e.harnessTargetId === "fake" && e.harnessSessionId === "s1" && /^t_/.test(e.turnId))).toBe(true);
    expect(ledger.filter((e) => e.source.type === "harness").every((e) => e.harness === "fake-wire")).toBe(true);
    const summaries = readSummaries(ledger);
    expect(summaries[0]).toMatchObject({ role: "driven", stopReason: "end_turn", userText: "first", agentText: "one", startedAt: "2026-01-02T03:04:05.000Z", endedAt: "2026-01-02T03:04:09.000Z" });
    expect(summaries[0]?.toolCalls).toEqual([{ toolCallId: "tool-first", title: "run first", kind: "execute", status: "completed" }]);
    expect(summaries[1]).toMatchObject({ stopReason: "cancelled", userText: "second" });
    const meta = metaOf(id);
    expect(meta).toMatchObject({ preview: "first", description: "import: Fake fake first prompt", cwd: fs.realpathSync(cwd) });
    expect(meta.adoptedFrom).toEqual({
      session: { harnessTargetId: "fake", harness: "fake", identity: { id: "s1" } },
      importedThrough: { ...historyBoundary([native("first", "one"), native("second", "two", "cancelled")]), batonThroughSeq: ledger.length },
    });
    expect(meta.harnessSessions.fake).toMatchObject({ harnessSessionId: "s1", resumeState: { version: 1, data: { sessionId: "s1" } }, syncedSeq: ledger.length });
    expect(meta.harnessSessions.fake.contextEpochId).toMatch(/^ctxe_/);
    expect(fs.existsSync(path.join(env["BATON_HOME"] as string, "native-session.lock"))).toBe(false);
  });

  test("after Baton ran a turn on the native session, a re-import appends only turns Baton does not have", async () => {
    const mem = memory({ s1: [native("first", "one")] });
    const definitions = [harness("fake", mem, { turns: [[{ type: "text", text: "from baton" }]] })];
    const id = adoptedId((await cli(["resume", "s1"], definitions)).stdout);
    const exec = await cli(["exec", "--session", id, "--agent", "fake", "baton prompt"], definitions);
    expect(exec.code).toBe(0);
    // The native harness recorded Baton's turn too; then the user went on natively.
    mem.sessions.set("s1", [native("first", "one"), native("baton prompt", "from baton"), native("native again", "three")]);
    const again = await cli(["resume", "s1"], definitions);
    expect(again.stdout).toContain(`→ ${id} (1 turn new)`);
    expect(userTexts(id)).toEqual(["first", "baton prompt", "native again"]);
    expect(metaOf(id).adoptedFrom.importedThrough).toMatchObject({ turnCount: 3 });
    const before = hashOf(id);
    expect((await cli(["resume", "s1"], definitions)).stdout).toContain("(already up to date)");
    expect(hashOf(id)).toBe(before);
  });

  test("Baton turns the native session does not have, or a rewritten history, are refused without writing", async () => {
    const mem = memory({ s1: [native("first", "one")] });
    const definitions = [harness("fake", mem, { turns: [[{ type: "text", text: "from baton" }]] })];
    const id = adoptedId((await cli(["resume", "s1"], definitions)).stdout);
    await cli(["exec", "--session", id, "--agent", "fake", "only in baton"], definitions);
    const before = hashOf(id);
    const ahead = await cli(["resume", "s1"], definitions);
    expect(ahead.code).toBe(1);
    expect(ahead.stderr).toContain(`cannot update ${id} from Fake fake session s1: Baton has a turn ("only in baton") that the native session does not have`);
    mem.sessions.set("s1", [native("first", "rewritten"), native("only in baton", "x")]);
    const diverged = await cli(["fork", "s1"], definitions);
    expect(diverged.code).toBe(1);
    expect(diverged.stderr).toContain("no longer what Baton imported");
    expect(hashOf(id)).toBe(before);
    expect(sessionDirs()).toHaveLength(1);
  });

  test("a session Baton itself bound to the native session is its owner (legacy): new native turns are appended there", async () => {
    const mem = memory();
    const definitions = [harness("fake", mem, { turns: [[{ type: "text", text: "answer" }]] })];
    const exec = await cli(["exec", "--agent", "fake", "made in baton"], definitions);
    const id = /session (bs_\w+)/.exec(exec.stderr)?.[1] as string;
    const nativeId = metaOf(id).harnessSessions.fake.harnessSessionId as string;
    mem.sessions.set(nativeId, [native("made in baton", "answer")]);
    const unchanged = await cli(["resume", nativeId], definitions);
    expect(unchanged.stdout).toContain(`→ ${id} (already up to date)`);
    expect(metaOf(id).adoptedFrom).toBeUndefined();
    mem.sessions.set(nativeId, [native("made in baton", "answer"), native("continued natively", "more")]);
    const updated = await cli(["resume", `fx:${nativeId}`], definitions);
    expect(updated.stdout).toContain(`→ ${id} (1 turn new)`);
    expect(userTexts(id)).toEqual(["made in baton", "continued natively"]);
    expect(metaOf(id).adoptedFrom.session.identity.id).toBe(nativeId);
  });

  test("fork <native id> adopts once and forks the owner; the child has no native binding", async () => {
    const definitions = [harness("fake", memory({ s1: [native("first", "one")] }))];
    const result = await cli(["fork", "s1"], definitions);
    expect(result.code).toBe(0);
    const owner = adoptedId(result.stdout);
    const child = /forked (bs_\w+) → (bs_\w+)/.exec(result.stdout);
    expect(child?.[1]).toBe(owner);
    // NAT-09: the target's entry survives with its config only (no binding, snapshot, epoch or sync point).
    expect(metaOf(child?.[2] as string).harnessSessions).toEqual({ fake: { harnessTargetId: "fake", harness: "fake" } });
    expect(userTexts(child?.[2] as string)).toEqual(["first"]);
    const second = await cli(["fork", "s1"], definitions);
    expect(second.stdout).toContain(`adopted fx:s1 → ${owner} (already up to date)`);
    expect(sessionDirs()).toHaveLength(3);
  });
});

describe("adoption lands where the native session ran (NAT-06)", () => {
  test("the adopted session lives in the native session's directory, not the invoking one; resume and exec find it there", async () => {
    const nativeDir = path.join(base, "where-it-ran");
    fs.mkdirSync(nativeDir);
    const definitions = [harness("fake", { ...memory({ n1: [native("over there", "yes")] }), cwd: nativeDir }, { turns: [[{ type: "text", text: "continued" }]] })];
    const result = await cli(["resume", "n1"], definitions);
    expect(result.code).toBe(0);
    const id = adoptedId(result.stdout);
    const real = fs.realpathSync(nativeDir);
    expect(metaOf(id).cwd).toBe(real);
    expect(path.basename(path.dirname(path.dirname(dirOf(id))))).toMatch(/^where-it-ran-/);
    expect(result.stdout).toContain(`open it with: baton --cwd ${real} -s ${id}`);
    const next = await runCliOnce(["exec", "--cwd", real, "--session", id, "more"], { env, cwd, definitions });
    expect(next.code).toBe(0);
    expect(userTexts(id)).toEqual(["over there", "more"]);
    // A fork of it still follows the requested (here: invoking) directory.
    const fork = await cli(["fork", id], definitions);
    const child = /forked bs_\w+ → (bs_\w+)/.exec(fork.stdout)?.[1] as string;
    expect(metaOf(child).cwd).toBe(fs.realpathSync(cwd));
  });

  test("a native directory that is gone (or not given) falls back to the invoking one", async () => {
    const gone = await cli(["resume", "n2"], [harness("fake", { ...memory({ n2: [native("a", "b")] }), cwd: path.join(base, "deleted-since") })]);
    expect(metaOf(adoptedId(gone.stdout)).cwd).toBe(fs.realpathSync(cwd));
    expect(gone.stdout).toContain(`open it with: baton -s ${adoptedId(gone.stdout)}`);
  });
});
