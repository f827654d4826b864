/**
 * What a test run's output says, without knowing the runner: how many tests failed (the summary lines of
 * bun, jest, vitest, mocha, node --test, pytest, go, cargo and TAP), the lines that name the failures, and a
 * **signature** of the failure — the same failing tests with the same messages give the same signature on
 * every run (durations, addresses, timestamps and colours are removed first), so a failure is proposed once.
 */
import { createHash } from "node:crypto";

export interface TestReport {
  /** From a runner's summary line; undefined when no known summary was found. */
  readonly failing: number | undefined;
  readonly passed: number | undefined;
  /** The lines that name what failed (at most 40, in order). */
  readonly failureLines: readonly string[];
  /** 16 hex characters; equal for equal failures. */
  readonly signature: string;
}

const MAX_FAILURE_LINES = 40;
const MAX_LINE = 300;

// eslint-style control-character pattern for ANSI escapes (colours, cursor moves).
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** A summary line → counts, tried in order; the first runner that matches wins. */
const SUMMARIES: readonly { readonly failing: RegExp; readonly passed?: RegExp }[] = [
  // jest: "Tests:       3 failed, 12 passed, 15 total"
  { failing: /^Tests:\s+(?:.*?)(\d+) failed/m, passed: /^Tests:\s+(?:.*?)(\d+) passed/m },
  // vitest: " Tests  3 failed | 12 passed (15)"
  { failing: /^\s*Tests\s+(\d+) failed/m, passed: /^\s*Tests\s+(?:\d+ failed \|\s*)?(\d+) passed/m },
  // bun test: " 3 fail" / " 12 pass"
  { failing: /^\s*(\d+) fail\s*$/m, passed: /^\s*(\d+) pass\s*$/m },
  // node --test (TAP-ish): "# fail 3" / "# pass 12"; "ℹ fail 3" in the spec reporter
  { failing: /^(?:#|ℹ) fail (\d+)\s*$/m, passed: /^(?:#|ℹ) pass (\d+)\s*$/m },
  // mocha: "  3 failing" / "  12 passing (20ms)"
  { failing: /^\s*(\d+) failing\s*$/m, passed: /^\s*(\d+) passing\b/m },
  // cargo: "test result: FAILED. 12 passed; 3 failed;"
  { failing: /^test result: \w+\. (?:\d+) passed; (\d+) failed/m, passed: /^test result: \w+\. (\d+) passed/m },
  // pytest: "==== 3 failed, 12 passed in 0.12s ====" (also "1 failed in")
  { failing: /^=+ (?:.*?\b)?(\d+) failed\b.*=+\s*$/m, passed: /^=+ (?:.*?\b)?(\d+) passed\b.*=+\s*$/m },
];

/** Lines that name a failure in the common runners' output. */
const FAILURE_LINE = [
  /^\s*\(fail\)/, // bun
  /^\s*[✗✕×✖]\s/, // jest/vitest/mocha symbols
  /^\s*●\s/, // jest test headers
  /^\s*(?:FAIL|FAILED)\b/, // jest files, pytest short summary, generic
  /^\s*not ok\b/, // TAP, node --test
  /^--- FAIL:/, // go
  /^\s*\d+\) /, // mocha numbered failures
  /^test \S+ \.\.\. FAILED$/, // cargo
  /^\s*(?:Assertion|AssertionError|Error|TypeError|ReferenceError|expect\()/, // the first message lines
  /^\s*(?:Expected|Received|Actual)(?: value)?:/, // bun, jest and vitest expectation detail
  /^E\s{2,}/, // pytest assertion detail
  /\berror(?:\[E\d+\])?:/i, // compilers, generic "error:"
];

/** Durations, addresses, timestamps, temp paths and pids differ between equal failures; drop them. */
export function normalizeLine(line: string): string {
  return stripAnsi(line)
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?/g, "<time>")
    .replace(/\b0x[0-9a-f]+\b/gi, "<addr>")
    .replace(/[[(]?\d+(?:\.\d+)?\s?(?:ms|s|µs|ns|sec|seconds)\b[)\]]?/g, "")
    .replace(/\/tmp\/[^\s/:]+/g, "/tmp/<dir>")
    .replace(/\bpid \d+\b/g, "pid <n>")
    .replace(/\s+/g, " ")
    .trim();
}

function count(output: string, pattern: RegExp | undefined): number | undefined {
  if (pattern === undefined) return undefined;
  const match = pattern.exec(output);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function failureLines(lines: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of lines) {
    const line = stripAnsi(raw).trimEnd();
    if (!FAILURE_LINE.some((p) => p.test(line))) continue;
    const key = normalizeLine(line);
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    out.push(line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line);
    if (out.length >= MAX_FAILURE_LINES) break;
  }
  return out;
}

/** The last non-empty lines, when nothing looks like a failure line (an unknown runner). */
function tail(lines: readonly string[], n: number): string[] {
  return lines
    .map((l) => stripAnsi(l).trimEnd())
    .filter((l) => l.trim() !== "")
    .slice(-n)
    .map((l) => (l.length > MAX_LINE ? `${l.slice(0, MAX_LINE)}…` : l));
}

export function analyseOutput(output: string): TestReport {
  const clean = stripAnsi(output);
  const lines = clean.split(/\r?\n/);
  let failing: number | undefined;
  let passed: number | undefined;
  for (const summary of SUMMARIES) {
    failing = count(clean, summary.failing);
    if (failing !== undefined) {
      passed = count(clean, summary.passed);
      break;
    }
  }
  const named = failureLines(lines);
  const shown = named.length > 0 ? named : tail(lines, 12);
  const signature = createHash("sha256")
    .update(shown.map(normalizeLine).sort().join("\n"))
    .digest("hex")
    .slice(0, 16);
  return { failing, passed, failureLines: shown, signature };
}
