/**
 * #11.18 through the real `baton` and the real Claude Code against the mock Anthropic API: API errors a retry
 * cannot fix fail at once, retries are bounded by harnesses.claude.maxRetries, `exec --timeout` cancels a turn
 * that runs too long (exit 124), out-of-range durations and a YAML bomb are config errors naming the file, and
 * a relative BATON_HOME is resolved once.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { reply } from "../support/mock-anthropic/script.ts";
import { useClaudeEnvEach, useMockAnthropic } from "../support/claude-rig.ts";
import { runBaton } from "../support/baton-process.ts";

const mock = useMockAnthropic();
const env = useClaudeEnvEach(mock);

const config = (text: string) => writeFileSync(path.join(env.batonHome, "config.yaml"), text);
const exec = (args: string[], extra: Record<string, string> = {}) => runBaton(["exec", ...args], { env: { ...env.env, ...extra }, cwd: env.cwd, stdin: "" });
const errors = (status: number, type: string, n: number) => Array.from({ length: n }, () => reply.error(status, `boom ${status}`, type));

describe("Claude API errors and retries", () => {
  test("a 401 fails the turn at once with what to do: one request, no retry notices (Claude Code would retry it)", async () => {
    await mock.script(...errors(401, "authentication_error", 5));
    const result = await exec(["hello?"], { CLAUDE_CODE_MAX_RETRIES: "3" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Claude API error 401 (authentication_failed), not retried: the API key or login was rejected");
    expect(result.stderr).not.toContain("retrying");
    expect(result.stderr).toMatch(/ failed$/m);
    expect(await mock.modelRequests()).toHaveLength(1);
  }, 60_000);

  test("a 403 fails at once with the API's message", async () => {
    await mock.script(...errors(403, "permission_error", 5));
    const result = await exec(["hello?"], { CLAUDE_CODE_MAX_RETRIES: "3" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("boom 403");
    expect(result.stderr).not.toContain("retrying");
    expect(await mock.modelRequests()).toHaveLength(1);
  }, 60_000);

  test("429s are retried with 'retrying (n/N)', bounded by harnesses.claude.maxRetries (over the user's CLAUDE_CODE_MAX_RETRIES)", async () => {
    config("harnesses:\n  claude:\n    maxRetries: 2\n");
    await mock.script(...errors(429, "rate_limit_error", 6));
    const result = await exec(["hello?"], { CLAUDE_CODE_MAX_RETRIES: "9" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Claude API error 429, retrying (1/2)");
    expect(result.stderr).toContain("Claude API error 429, retrying (2/2)");
    expect(result.stderr).not.toContain("(3/");
    expect(result.stderr).toContain("boom 429");
    expect(await mock.modelRequests()).toHaveLength(3);
  }, 60_000);

  test("maxRetries out of range is a config error with file, line and key", async () => {
    config("harnesses:\n  claude:\n    maxRetries: 500\n");
    const result = await exec(["hello?"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path.join(env.batonHome, "config.yaml")}:3: harnesses.claude.maxRetries: at most 20`);
  }, 30_000);
});

describe("exec --timeout", () => {
  test("a turn running longer is cancelled: exit 124, the turn ends cancelled, the session goes on", async () => {
    await mock.script(reply.text("slow ".repeat(200), { chunkSize: 5, chunkDelayMs: 100 }), reply.text("quick"));
    const result = await exec(["--timeout", "3", "tell me a long story"]);
    expect(result.code).toBe(124);
    expect(result.stderr).toContain("baton: the turn ran longer than --timeout (3 s); cancelling it…");
    expect(result.stderr).toMatch(/ cancelled$/m);
    const id = /baton: session (bs_\w+) turn/.exec(result.stderr)?.[1] ?? "";
    const next = await exec(["--session", id, "--timeout", "60", "and now?"]);
    expect(next.code).toBe(0);
    expect(next.stdout).toBe("quick\n");
  }, 60_000);

  test("a bad --timeout is a usage error (exit 2) before anything starts", async () => {
    for (const value of ["0", "-1", "soon", "99999999999"]) {
      const result = await exec([`--timeout=${value}`, "hi"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--timeout takes a number of seconds above 0 and at most 2147483, not '${value}'`);
    }
    expect(await mock.modelRequests()).toHaveLength(0);
  }, 30_000);
});

describe("config values are bounded", () => {
  test("stallNoticeSeconds / cancelGraceSeconds above their maximum (file or environment) are config errors", async () => {
    config("stallNoticeSeconds: 3000000\ncancelGraceSeconds: 1000000000\n");
    const file = await exec(["hi"]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain(`${path.join(env.batonHome, "config.yaml")}:1: stallNoticeSeconds: at most 86400 seconds (one day)`);
    expect(file.stderr).toContain(`${path.join(env.batonHome, "config.yaml")}:2: cancelGraceSeconds: at most 600 seconds (ten minutes)`);
    config("");
    const fromEnv = await exec(["hi"], { BATON_STALL_NOTICE_SECONDS: "2200000" });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain("environment BATON_STALL_NOTICE_SECONDS: stallNoticeSeconds: at most 86400 seconds");
    expect(await mock.modelRequests()).toHaveLength(0);
  }, 30_000);

  test("a YAML alias bomb is reported with the file (exit 2), quickly and without a stack trace", async () => {
    const rows = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [name, previous] of [["b", "a"], ["c", "b"], ["d", "c"], ["e", "d"], ["f", "e"], ["g", "f"], ["h", "g"], ["i", "h"]] as const) {
      rows.push(`${name}: &${name} [${Array.from({ length: 9 }, () => `*${previous}`).join(",")}]`);
    }
    config(`${rows.join("\n")}\n`);
    for (const args of [["exec", "hi"], ["doctor"]]) {
      const result = await runBaton(args, { env: env.env, cwd: env.cwd, stdin: "" });
      const out = result.stdout + result.stderr;
      expect(out).toContain(`${path.join(env.batonHome, "config.yaml")}: cannot be loaded: Excessive alias count`);
      expect(out).not.toContain("unexpected error");
      expect(result.code).toBe(args[0] === "exec" ? 2 : 1);
    }
  }, 30_000);
});

describe("a relative BATON_HOME", () => {
  test("is resolved against the current directory once: the agent sees the absolute home; doctor says so", async () => {
    const project = path.join(env.root, "project");
    mkdirSync(project);
    await mock.script(reply.tool("Bash", { command: 'printf "%s" "$BATON_HOME" > seen-home.txt', description: "write the home" }), reply.text("done"));
    const result = await runBaton(["exec", "--cwd", project, "--approve", "allow", "write the home"], { env: { ...env.env, BATON_HOME: "rel-home" }, cwd: env.root, stdin: "" });
    expect(result.code).toBe(0);
    const absolute = path.join(env.root, "rel-home");
    expect(readFileSync(path.join(project, "seen-home.txt"), "utf8")).toBe(absolute);
    expect(existsSync(path.join(absolute, "projects"))).toBe(true);
    expect(readdirSync(project)).not.toContain("rel-home");
    const doctor = await runBaton(["doctor"], { env: { ...env.env, BATON_HOME: "rel-home" }, cwd: env.root, stdin: "" });
    expect(doctor.stdout).toContain(`Baton home: ${absolute} (from BATON_HOME=rel-home, a relative path: resolved against ${env.root})`);
    expect(doctor.stdout).toContain("BATON_HOME=rel-home is relative");
  }, 60_000);
});
