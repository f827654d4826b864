/**
 * Output to a pipe (issue 11.3), as a shell runs it: `node bin/baton.cjs … | reader` under bash, with the real
 * Codex against the mock Responses API making a session with a 1 MB answer. Everything written reaches the reader
 * before Baton exits; a reader that goes away early ends Baton quietly with 141 (128 + SIGPIPE).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { BATON_LAUNCHER, runBaton } from "../support/baton-process.ts";
import type { CodexHome } from "../support/codex-home.ts";
import { execSessionId, useCodexCliRig } from "../support/codex-cli-rig.ts";
import { ledgerOf, lockFile, newestSession } from "../support/session-files.ts";
import type { MockResponses } from "../support/mock-responses/index.ts";

const ANSWER_BYTES = 1024 * 1024;

let mock: MockResponses;
let home: CodexHome;
let env: Record<string, string>;
let sessionId: string;
/** The answer's text: 16 distinct 64 KiB blocks, so a cut anywhere shows. */
const answer = Array.from({ length: 16 }, (_, index) => `${String(index).padStart(2, "0")}`.padEnd(64 * 1024, "abcdefghijklmnopqrstuvwxyz")).join("");

const rig = useCodexCliRig();
beforeAll(async () => {
  ({ mock, home, env } = rig);
  await mock.script([{ kind: "text", text: answer, chunkSize: 64 * 1024 }]);
  const made = await runBaton(["exec", "write a lot"], { env, cwd: home.workdir });
  expect(made.code).toBe(0);
  sessionId = execSessionId(made.stderr);
  expect(sessionId).not.toBe("");
}, 60_000);

/** `bash -c '<baton …> | <reader>'`: the reader's output, Baton's stderr and Baton's own exit status. */
function pipeline(batonArgs: readonly string[], reader: string): { out: string; err: string; status: number } {
  const quoted = batonArgs.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(" ");
  const script = `node '${BATON_LAUNCHER}' ${quoted} 2>"$ERR" | ${reader}; echo "status=\${PIPESTATUS[0]}" >&2`;
  const errFile = path.join(home.root, `stderr-${Date.now()}.txt`);
  const result = spawnSync("bash", ["-c", script], { cwd: home.workdir, env: { ...env, ERR: errFile }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const status = Number(/status=(\d+)/.exec(result.stderr)?.[1] ?? NaN);
  const err = spawnSync("cat", [errFile], { encoding: "utf8" }).stdout;
  return { out: result.stdout, err, status };
}

describe("output to a pipe", () => {
  test("`baton export <id> | wc -c` counts the whole transcript", () => {
    const direct = pipeline(["export", sessionId], "cat");
    expect(direct.status).toBe(0);
    // (a boolean, so a failure does not print a megabyte)
    expect({ bytes: Buffer.byteLength(direct.out), hasWholeAnswer: direct.out.includes(answer) }).toMatchObject({ hasWholeAnswer: true });
    const counted = pipeline(["export", sessionId], "wc -c");
    expect(Number(counted.out.trim())).toBe(Buffer.byteLength(direct.out));
    expect(Number(counted.out.trim())).toBeGreaterThan(ANSWER_BYTES);
  }, 60_000);

  test("`baton exec --json` to a pipe: every envelope arrives, the last one is the turn summary", async () => {
    await mock.reset();
    await mock.script([{ kind: "text", text: answer, chunkSize: 64 * 1024 }]);
    const run = pipeline(["exec", "--json", "--session", sessionId, "once more"], "cat");
    expect(run.status).toBe(0);
    const lines = run.out.trimEnd().split("\n").map((line) => JSON.parse(line) as { kind: string; payload: { content?: { text?: string } } });
    const streamed = lines.filter((e) => e.kind === "agent_message_chunk").map((e) => e.payload.content?.text ?? "").join("");
    expect({ streamed: streamed.length, whole: streamed === answer }).toEqual({ streamed: answer.length, whole: true });
    expect(lines.at(-1)?.kind).toBe("_baton_turn_summary");
  }, 60_000);

  test("a reader that stops early (`| head -c 100`) ends Baton quietly with 141", () => {
    const run = pipeline(["export", sessionId], "head -c 100");
    expect(Buffer.byteLength(run.out)).toBe(100);
    expect(run.err).toBe("");
    expect(run.status).toBe(141);
  }, 60_000);

  test("`baton doctor` into a reader that is already gone prints no stack trace", () => {
    const run = pipeline(["doctor"], "true");
    expect(run.err).not.toContain("EPIPE");
    expect(run.err).not.toMatch(/^\s+at /m);
    expect(run.status).toBe(141);
  }, 60_000);

  test("a reader that goes away mid-turn (`exec … | head -c 10`) cancels the turn: 141, turn closed, lock released", async () => {
    await mock.reset();
    await mock.script([{ kind: "text", text: "slow ".repeat(200), chunkSize: 5, delayMs: 100 }]);
    const run = pipeline(["exec", "stream into a short reader"], "head -c 10");
    expect(run.status).toBe(141);
    expect(run.err).not.toMatch(/EPIPE|^\s+at /m);
    const id = newestSession(env["BATON_HOME"]!);
    const ledger = ledgerOf(env["BATON_HOME"]!, id);
    const summaries = ledger.filter((e) => e.kind === "_baton_turn_summary");
    expect(summaries.map((e) => e.payload["stopReason"])).toEqual(["cancelled"]);
    expect(existsSync(lockFile(env["BATON_HOME"]!, id))).toBe(false);
  }, 60_000);
});
