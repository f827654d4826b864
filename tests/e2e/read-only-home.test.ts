/**
 * A read-only BATON_HOME (issue 11.17), for real: the real `baton` runs in a private mount namespace where its home
 * is bind-mounted read-only (`unshare -m`, root, as in CI). Writing commands say which path cannot be written and
 * what to do, with no stack trace; reading commands keep working. The session is made beforehand with the real
 * Codex against the mock Responses API.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { BATON_ENTRY, runBaton } from "../support/baton-process.ts";
import type { CodexHome } from "../support/codex-home.ts";
import { execSessionId, useCodexCliRig } from "../support/codex-cli-rig.ts";
import type { MockResponses } from "../support/mock-responses/index.ts";

let mock: MockResponses;
let home: CodexHome;
let env: Record<string, string>;
let batonHome: string;
let sessionId: string;

const rig = useCodexCliRig();
beforeAll(async () => {
  ({ mock, home, env, batonHome } = rig);
  await mock.script([{ kind: "text", text: "written while the home was writable" }]);
  const made = await runBaton(["exec", "remember this"], { env, cwd: home.workdir });
  expect(made.code).toBe(0);
  sessionId = execSessionId(made.stderr);
  expect(sessionId).not.toBe("");
}, 60_000);

/** `baton <args>` with BATON_HOME bind-mounted read-only in a mount namespace of its own (nothing leaks out). */
function readOnly(args: readonly string[], stdin = ""): { code: number | null; stdout: string; stderr: string } {
  const script = 'h="$1"; shift; mount --bind "$h" "$h" && mount -o remount,bind,ro "$h" && exec "$@"';
  const result = spawnSync("unshare", ["-m", "sh", "-c", script, "sh", batonHome, process.execPath, BATON_ENTRY, ...args], {
    env,
    cwd: home.workdir,
    encoding: "utf8",
    input: stdin,
    timeout: 60_000,
  });
  if (result.status !== 0 && /unshare|mount:/.test(result.stderr)) throw new Error(`cannot make a read-only home here (needs root): ${result.stderr}`);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("a read-only BATON_HOME", () => {
  test("writing commands say which path cannot be written and what to do: exit 1, no stack trace", () => {
    for (const args of [["exec", "a new session"], ["exec", "--session", sessionId, "continue it"], ["fork", sessionId], ["repl"]]) {
      const result = readOnly(args, "/exit\n");
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^baton: cannot write ${batonHome.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/\\S+: the file system is read-only$`, "m"));
      expect(result.stderr).toContain("set BATON_HOME to a writable directory");
      expect(result.stderr).not.toContain("unexpected error");
      expect(result.stderr).not.toMatch(/^\s+at /m);
    }
  }, 60_000);

  test("reading commands keep working: sessions, export, logs", () => {
    const sessions = readOnly(["sessions"]);
    expect(sessions.code).toBe(0);
    expect(sessions.stdout).toContain(sessionId);
    const exported = readOnly(["export", sessionId]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain("written while the home was writable");
    const logs = readOnly(["logs", sessionId]);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain("Session created");
  }, 60_000);

  test("doctor calls it a read-only file system, not a permission problem", () => {
    const doctor = readOnly(["doctor"]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`${batonHome} is on a read-only file system`);
    expect(doctor.stdout).not.toContain("chmod 700");
  }, 60_000);
});
