/**
 * Open checks what it folds (#12.6, #12.10, #12.11), through the CLI in-process against the fake
 * harness: a hand-edited ledger is refused with file:line by every command that opens it (exec,
 * export) and failed by doctor on the same line; the checkpoint never hides an edit of the ledger;
 * a lost ledger is refused while meta.json says the session had history.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fakeDefinition, type FakeScript } from "../support/fake-adapter.ts";
import { runCliOnce } from "../support/cli-runner.ts";
import { CHECKPOINT_MIN_TAIL_BYTES } from "../../src/app/open-session.ts";

let base: string;
let env: Record<string, string | undefined>;
let cwd: string;

beforeEach(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "baton-open-"));
  cwd = path.join(base, "project");
  mkdirSync(cwd, { recursive: true });
  env = { HOME: base, BATON_HOME: path.join(base, "home"), PATH: process.env["PATH"], BATON_DEFAULT_AGENT: "fake" };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const TURN: FakeScript = { turns: [[{ type: "tool", id: "t1", title: "ls", output: "a" }, { type: "text", text: "Hi there." }]] };
/** A turn long enough that exec's close writes a checkpoint (CHECKPOINT_MIN_TAIL_BYTES). */
const LONG_TURN: FakeScript = { turns: [[{ type: "tool", id: "t1", title: "ls", output: "a\n".repeat(CHECKPOINT_MIN_TAIL_BYTES / 2) }, { type: "text", text: "Hi there." }]] };
const cli = (argv: string[], script: FakeScript = { turns: [[{ type: "text", text: "again" }]] }) => runCliOnce(argv, { env, cwd, definitions: [fakeDefinition(script)] });

interface Session {
  readonly id: string;
  readonly dir: string;
  readonly ledger: string;
  lines(): string[];
  /** Line `n` (1-based) parsed, changed by `edit`, written back. */
  edit(n: number, edit: (event: Record<string, any>) => void): void;
}

async function session(script: FakeScript = TURN): Promise<Session> {
  const run = await cli(["exec", "--json", "hello"], script);
  expect(run.code).toBe(0);
  const id = JSON.parse(run.stdout.split("\n")[0]!).scope.batonSessionId as string;
  const projects = path.join(env["BATON_HOME"]!, "projects");
  const dir = path.join(projects, readdirSync(projects)[0]!, "sessions", id);
  const ledger = path.join(dir, "session.jsonl");
  const lines = () => readFileSync(ledger, "utf8").split("\n").filter(Boolean);
  return {
    id,
    dir,
    ledger,
    lines,
    edit(n, edit) {
      const all = lines();
      const event = JSON.parse(all[n - 1]!) as Record<string, any>;
      edit(event);
      all[n - 1] = JSON.stringify(event);
      writeFileSync(ledger, `${all.join("\n")}\n`);
    },
  };
}

function lineOf(s: Session, predicate: (event: Record<string, any>) => boolean): number {
  const index = s.lines().findIndex((line) => predicate(JSON.parse(line)));
  if (index === -1) throw new Error("no such line");
  return index + 1;
}

/** export and exec both refuse with the message; doctor fails the session on the same line. */
async function expectRefused(s: Session, where: string, message: RegExp): Promise<void> {
  const exported = await cli(["export", s.id]);
  expect(exported.code).not.toBe(0);
  expect(exported.stdout).toBe("");
  expect(exported.stderr).toContain(where);
  expect(exported.stderr).toMatch(message);
  expect(exported.stderr).not.toMatch(/TypeError|is not iterable|at .*\.ts:\d+/);
  const before = s.lines().length;
  const exec = await cli(["exec", "--session", s.id, "more"]);
  expect(exec.code).not.toBe(0);
  expect(exec.stderr).toContain(where);
  expect(s.lines().length).toBe(before); // nothing was appended to a ledger that does not open
  const doctor = await cli(["doctor"]);
  expect(doctor.code).toBe(1);
  expect(doctor.stdout).toMatch(new RegExp(`FAIL  ${escape(where)}`));
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("every event's payload is checked against its kind on open (#12.10)", () => {
  test("a user_message whose content is a number is refused with file:line, not a crash in export", async () => {
    const s = await session();
    s.edit(1, (event) => (event["payload"]["content"] = 5));
    await expectRefused(s, `${s.ledger}:1:`, /invalid user_message payload at payload\.content/);
  });

  test("a bad turn summary is refused with file and line", async () => {
    const s = await session();
    const n = lineOf(s, (event) => event["kind"] === "_baton_turn_summary");
    s.edit(n, (event) => (event["payload"]["toolCalls"] = 7));
    await expectRefused(s, `${s.ledger}:${n}:`, /invalid _baton_turn_summary payload at payload\.toolCalls/);
  });

  test("a line whose seq does not increase is refused, not dropped, and doctor agrees", async () => {
    const s = await session();
    s.edit(4, (event) => (event["seq"] = 2));
    await expectRefused(s, `${s.ledger}:4:`, /seq 2 after 3/);
  });

  test("an event of another session is refused", async () => {
    const s = await session();
    s.edit(3, (event) => (event["scope"]["batonSessionId"] = "bs_someoneelse"));
    await expectRefused(s, `${s.ledger}:3:`, /scope bs_someoneelse is not this session/);
  });

  test("a duplicate eventId is a warning in doctor, and the session opens", async () => {
    const s = await session();
    const first = JSON.parse(s.lines()[0]!).eventId as string;
    s.edit(2, (event) => (event["eventId"] = first));
    expect((await cli(["export", s.id])).code).toBe(0);
    const doctor = await cli(["doctor"]);
    expect(doctor.stdout).toContain(`warn  ${s.ledger}:2: duplicate eventId ${first}`);
    expect(doctor.stdout).not.toContain("FAIL");
  });
});

describe("an open does not parse `raw` (#18)", () => {
  /** Line `n` rewritten with `raw` (the wire message, written last) replaced by `text`, which need not be JSON. */
  function breakRaw(s: Session, n: number, text: string): void {
    const all = s.lines();
    const { raw: _raw, ...event } = JSON.parse(all[n - 1]!) as Record<string, unknown>;
    all[n - 1] = `${JSON.stringify(event).slice(0, -1)},"raw":${text}}`;
    writeFileSync(s.ledger, `${all.join("\n")}\n`);
  }

  test("a line broken only in its raw opens, takes a turn and exports; doctor warns, naming the line", async () => {
    const s = await session();
    const n = lineOf(s, (event) => event["kind"] === "agent_message_chunk" || event["kind"] === "agent_message");
    breakRaw(s, n, '{"method":"item/agentMessage/delta","params":{"delta":"Hi",}');
    const exec = await cli(["exec", "--session", s.id, "more"]);
    expect(exec.code).toBe(0);
    expect(exec.stderr).toContain("end_turn");
    expect(exec.stdout).toContain("again");
    rmSync(path.join(s.dir, "checkpoint.jsonl"), { force: true }); // export replays the whole ledger
    const exported = await cli(["export", s.id]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain("Hi there.");
    const doctor = await cli(["doctor"]);
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toContain(`warn  ${s.ledger}:${n}: invalid JSON`);
    expect(doctor.stdout).toContain("only its raw");
    expect(doctor.stdout).not.toContain("FAIL");
  });

  test("a line whose raw holds the next event (its newline lost), or a zeroed block, is refused as before", async () => {
    for (const broken of ['{"delta":"Hi', `{"delta":"${"\u0000".repeat(16)}"}`]) {
      const s = await session();
      const n = lineOf(s, (event) => event["kind"] === "agent_message_chunk" || event["kind"] === "agent_message");
      if (broken.includes("\u0000")) breakRaw(s, n, broken);
      else {
        // The line's raw ends mid-string and the next line follows on the same line.
        const all = s.lines();
        const { raw: _raw, ...event } = JSON.parse(all[n - 1]!) as Record<string, unknown>;
        all.splice(n - 1, 2, `${JSON.stringify(event).slice(0, -1)},"raw":${broken}${all[n]!}`);
        writeFileSync(s.ledger, `${all.join("\n")}\n`);
      }
      await expectRefused(s, `${s.ledger}:${n}:`, /invalid JSON/);
      rmSync(env["BATON_HOME"]!, { recursive: true, force: true });
    }
  });
});

describe("envelope version and attempt phases (#12.6)", () => {
  test("an older or newer envelope version is refused, saying which versions this Baton reads", async () => {
    const s = await session();
    s.edit(2, (event) => (event["v"] = 2));
    await expectRefused(s, `${s.ledger}:2:`, /envelope version 2 was written by an older Baton; this Baton reads envelope version 3 only/);
    s.edit(2, (event) => (event["v"] = 4));
    const exported = await cli(["export", s.id]);
    expect(exported.stderr).toMatch(/:2: envelope version 4 was written by a newer Baton; this Baton reads envelope version 3 only \(upgrade Baton/);
  });

  test("an attempt `accepted` before `prepared` fails the load with file:line (ATT-05)", async () => {
    const s = await session();
    const n = lineOf(s, (event) => event["payload"]?.["phase"] === "prepared");
    s.edit(n, (event) => (event["payload"]["phase"] = "accepted"));
    await expectRefused(s, `${s.ledger}:${n}:`, /delivery attempt att_\w+: attempt phase 'accepted' before 'prepared'/);
  });

  test("an attempt that goes back from finalized is refused", async () => {
    const s = await session();
    const n = lineOf(s, (event) => event["payload"]?.["phase"] === "finalized");
    const all = s.lines();
    const copy = JSON.parse(all[n - 1]!);
    // Append a line after the end: same attempt, `accepted` again, a fresh seq and id.
    const last = JSON.parse(all.at(-1)!);
    writeFileSync(s.ledger, `${all.join("\n")}\n${JSON.stringify({ ...copy, seq: last.seq + 1, eventId: "ev_01ZZZZZZZZZZZZZZZZZZZZZZZZ", payload: { attemptId: copy.payload.attemptId, phase: "accepted" } })}\n`);
    await expectRefused(s, `${s.ledger}:${all.length + 1}:`, /attempt transition 'finalized' → 'accepted' is not allowed/);
  });
});

describe("the checkpoint never outranks the ledger (#12.11)", () => {
  test("a same-length edit before the checkpoint's offset is seen by export; doctor names the stale checkpoint", async () => {
    const s = await session(LONG_TURN);
    expect(existsSync(path.join(s.dir, "checkpoint.jsonl"))).toBe(true);
    expect((await cli(["export", s.id])).stdout).toContain("Hi there.");
    const n = lineOf(s, (event) => event["kind"] === "agent_message");
    s.edit(n, (event) => (event["payload"]["content"][0]["text"] = "Yo there."));
    const doctor = await cli(["doctor"]);
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toMatch(/warn  .*checkpoint\.jsonl: .*is stale: the ledger's bytes 0–\d+ changed since the checkpoint was written/);
    const exported = await cli(["export", s.id]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain("Yo there.");
    expect(exported.stdout).not.toContain("Hi there.");
  });

  test("an emptied ledger is refused while meta.json names native sessions; doctor names it", async () => {
    const s = await session();
    writeFileSync(s.ledger, "");
    const exported = await cli(["export", s.id]);
    expect(exported.code).not.toBe(0);
    expect(exported.stderr).toMatch(new RegExp(`${escape(s.ledger)} holds no events, but meta.json names native sessions \\(fake: fake-session-\\d+\\)`));
    const exec = await cli(["exec", "--session", s.id, "more"]);
    expect(exec.code).not.toBe(0);
    expect(exec.stderr).toContain("the session's history is lost");
    expect(readFileSync(s.ledger, "utf8")).toBe("");
    const doctor = await cli(["doctor"]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`FAIL  ${s.ledger}: ${s.ledger} holds no events`);
  });

  test("a deleted ledger is refused and not recreated", async () => {
    const s = await session();
    unlinkSync(s.ledger);
    const exec = await cli(["exec", "--session", s.id, "more"]);
    expect(exec.code).not.toBe(0);
    expect(exec.stderr).toContain(`${s.ledger} is missing, but meta.json names native sessions`);
    expect(existsSync(s.ledger)).toBe(false);
    const doctor = await cli(["doctor"]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`${s.ledger} is missing`);
  });
});
