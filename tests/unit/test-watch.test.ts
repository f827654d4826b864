/**
 * baton/test-watch's pure parts (bundled-plugins/test-watch/src): reading a runner's output (counts,
 * failure lines, a signature that ignores durations), settings with one-line problems, which turns trigger
 * a run, the Board line and the proposal text.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { analyseOutput, normalizeLine } from "../../bundled-plugins/test-watch/src/report.ts";
import { readSettings } from "../../bundled-plugins/test-watch/src/settings.ts";
import { packageJsonCommand, resolveCommand, suggestions } from "../../bundled-plugins/test-watch/src/test-command.ts";
import { newTrigger, presentWatch, proposalText, runPatch, type RunStatus } from "../../bundled-plugins/test-watch/src/watch-state.ts";
import type { TurnSummary } from "../../bundled-plugins/test-watch/src/loop-api.ts";

describe("test-watch: reading test output", () => {
  const cases: [string, string, number | undefined, number | undefined][] = [
    ["bun", "(fail) math > adds [0.12ms]\n\n 12 pass\n 3 fail\n 40 expect() calls\nRan 15 tests across 2 files. [21.00ms]", 3, 12],
    ["jest", "FAIL src/a.test.js\n  ● adds\n\nTests:       3 failed, 12 passed, 15 total", 3, 12],
    ["vitest", " ❯ src/a.test.ts (2 tests | 1 failed)\n Test Files  1 failed (1)\n      Tests  1 failed | 1 passed (2)", 1, 1],
    ["mocha", "  12 passing (20ms)\n  3 failing\n\n  1) adds:\n     AssertionError: expected 1 to equal 2", 3, 12],
    ["node --test", "not ok 1 - adds\n# tests 4\n# pass 3\n# fail 1", 1, 3],
    ["pytest", "FAILED test_a.py::test_add - assert 1 == 2\n========= 1 failed, 4 passed in 0.12s =========", 1, 4],
    ["cargo", "test tests::adds ... FAILED\ntest result: FAILED. 4 passed; 2 failed; 0 ignored", 2, 4],
    ["unknown", "something went wrong\nexit", undefined, undefined],
  ];
  test.each(cases)("%s: counts", (_name, output, failing, passed) => {
    const report = analyseOutput(output);
    expect(report.failing).toBe(failing);
    expect(report.passed).toBe(passed);
  });

  test("failure lines name the failures; an unknown runner falls back to the last lines", () => {
    expect(analyseOutput("ok 1\nnot ok 2 - parses\nok 3").failureLines).toEqual(["not ok 2 - parses"]);
    expect(analyseOutput("line one\nline two\n\n").failureLines).toEqual(["line one", "line two"]);
  });

  test("the signature ignores durations, colours, addresses and temp dirs, and differs for another failure", () => {
    const a = analyseOutput("\u001b[31m(fail) adds [1.20ms]\u001b[0m\nerror: expected 1 at 0x7ff3 in /tmp/abc123/x.ts\n 1 fail");
    const b = analyseOutput("(fail) adds [3.90ms]\nerror: expected 1 at 0x1234 in /tmp/zzz999/x.ts\n 1 fail");
    const c = analyseOutput("(fail) subtracts [1.20ms]\n 1 fail");
    expect(a.signature).toBe(b.signature);
    expect(a.signature).not.toBe(c.signature);
    expect(a.signature).toMatch(/^[0-9a-f]{16}$/);
    expect(normalizeLine("  done in 12.5 s  ")).toBe("done in");
  });
});

describe("test-watch: settings", () => {
  test("defaults, valid values, and one line per bad value (the default is used)", () => {
    expect(readSettings(undefined)).toEqual({ settings: { command: undefined, runOn: "edits", timeoutMs: 300_000, maxOutputBytes: 1_048_576 }, problems: [] });
    expect(readSettings({ command: " make test ", runOn: "every-turn", timeoutMs: 5000 }).settings).toEqual({ command: "make test", runOn: "every-turn", timeoutMs: 5000, maxOutputBytes: 1_048_576 });
    const bad = readSettings({ command: "", runOn: "always", timeoutMs: 10, colour: true });
    expect(bad.settings).toEqual({ command: undefined, runOn: "edits", timeoutMs: 300_000, maxOutputBytes: 1_048_576 });
    expect(bad.problems).toEqual([
      "config.colour: unknown setting (known: command, runOn, timeoutMs, maxOutputBytes); ignored",
      'config.command: must be a non-empty shell command, e.g. "npm test"; ignored',
      'config.runOn: must be "edits" or "every-turn"; using "edits"',
      "config.timeoutMs: must be a whole number of milliseconds from 1000 to 600000; using 300000",
    ]);
  });
});

describe("test-watch: which command", () => {
  test("settings, else package.json test (npm's placeholder is none), else the answer", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "tw-cmd-"));
    try {
      expect(await resolveCommand(dir, undefined, undefined)).toBeUndefined();
      expect(await resolveCommand(dir, undefined, "make check")).toEqual({ command: "make check", source: "answer" });
      writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }));
      expect(await packageJsonCommand(dir)).toBeUndefined();
      writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { test: "vitest run" } }));
      expect(await resolveCommand(dir, undefined, "make check")).toEqual({ command: "npm test", source: "package.json" });
      writeFileSync(path.join(dir, "pnpm-lock.yaml"), "");
      expect(await packageJsonCommand(dir)).toBe("pnpm test");
      expect(await resolveCommand(dir, "bun test", undefined)).toEqual({ command: "bun test", source: "settings" });
      writeFileSync(path.join(dir, "Makefile"), "test:\n");
      // Asked only without a usable `test` script, so that script is never offered; `test:*` scripts are.
      writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { "test:unit": "vitest run", lint: "eslint ." } }));
      expect(await suggestions(dir)).toEqual(["pnpm run test:unit", "make test"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const turn = (revision: number, kinds: [string, string][], target = "codex"): TurnSummary => ({
  turnId: `t_${revision}`,
  harnessTargetId: target,
  toolCalls: kinds.map(([kind, status], i) => ({ toolCallId: `c${i}`, title: kind, kind, status })),
  revision,
});

describe("test-watch: which turns trigger a run", () => {
  const turns = [turn(3, [["read", "completed"]]), turn(7, [["edit", "completed"]], "claude"), turn(9, [["edit", "failed"], ["execute", "completed"]])];
  test.each([
    ["first look: history never triggers", undefined, "edits", undefined, 9],
    ["an edit after what was seen", 3, "edits", { reason: "edit", turnId: "t_7", targetId: "claude" }, 9],
    ["a failed edit is no edit", 7, "edits", undefined, 9],
    ["every turn", 7, "every-turn", { reason: "turn", turnId: "t_9", targetId: "codex" }, 9],
  ] as const)("%s", (_name, seen, runOn, trigger, latest) => {
    expect(newTrigger(turns, seen, runOn)).toEqual({ trigger, latest });
  });
});

describe("test-watch: Board and proposal", () => {
  const run = (over: Partial<RunStatus>): RunStatus => ({ id: "r1", state: "passed", command: "npm test", startedAt: "2026-01-01T00:00:00Z", trigger: { reason: "edit", turnId: "t1", targetId: "codex" }, ...over });
  test.each([
    ["passing", run({ durationMs: 12_345 }), { title: "Tests", status: "passing ✓ 12.3 s", tone: "success" }],
    ["failing with a count", run({ state: "failed", failing: 3, exitCode: 1, firstFailure: "(fail) adds" }), { title: "Tests", status: "3 failing", tone: "error", priority: 10, detail: "(fail) adds" }],
    ["failing without a count", run({ state: "failed", exitCode: 2 }), { title: "Tests", status: "failing (exit 2)", tone: "error", priority: 10 }],
    ["running", run({ state: "running" }), { title: "Tests", status: "running…", tone: "muted", detail: "`npm test`" }],
    ["hung", run({ state: "error", error: "`npm test` ran longer than 5 s and was stopped with everything it started" }), { title: "Tests", status: "error", tone: "error", priority: 10, detail: "`npm test` ran longer than 5 s and was stopped with everything it started" }],
  ] as const)("%s", (_name, status, expected) => {
    expect(presentWatch({ run: status }, "npm test", [])).toEqual(expected);
  });

  test("before any run: waiting, or no command", () => {
    expect(presentWatch({}, "npm test", []).status).toBe("waiting for an edit");
    expect(presentWatch({}, undefined, [])).toMatchObject({ status: "no test command", tone: "warning" });
  });

  test("a run patch names every key (null removes what an older run left)", () => {
    expect(runPatch(run({}))).toMatchObject({ error: null, failing: null, signature: null, settled: null });
  });

  test("the proposal names the command, the exit and the failing lines", () => {
    const spec = { signature: "s", command: "npm test", exitCode: 1, failing: 1, turnId: "t1", targetId: "codex", failureLines: ["FAIL a.txt: expected ok, got broken"], output: "", truncated: false };
    expect(proposalText(spec)).toBe("The tests fail (1 failing) after your last change (`npm test`, exit 1):\n\n    FAIL a.txt: expected ok, got broken\n\nFix the failing tests, then run `npm test` to check.");
    // The end of the output comes along (at most 60 lines), fenced so that it cannot close the block early.
    const output = `${Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n")}\n\`\`\``;
    const text = proposalText({ ...spec, output });
    expect(text).toContain("The end of the output:\n```\nline 41\n");
    expect(text).not.toContain("line 40\n");
    expect(text).toContain("line 99\nˋˋˋ\n```\n");
  });
});
