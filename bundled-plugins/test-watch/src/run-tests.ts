/**
 * One run of the test command: `sh -c` in the session's directory, stdout and stderr merged in order, in a
 * process group of its own with a timeout and an output cap (the SDK's `exec`). A hung command is stopped
 * with everything it started and reported as an error, not as failing tests; so is a command the shell
 * cannot find or run (exit 126/127).
 */
import type { ExecFn } from "baton-plugin";
import { analyseOutput, stripAnsi, type TestReport } from "./report.ts";

export type RunOutcome =
  | { readonly state: "passed"; readonly report: TestReport }
  | { readonly state: "failed"; readonly report: TestReport; readonly exitCode: number | null; readonly signal: string | null }
  | { readonly state: "error"; readonly error: string }
  | { readonly state: "cancelled" };

export interface RunResult {
  readonly outcome: RunOutcome;
  readonly durationMs: number;
  /** stdout and stderr in order, capped. */
  readonly output: string;
  readonly truncated: boolean;
}

export interface RunOptions {
  readonly command: string;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal;
  readonly now?: () => number;
}

function lastLine(text: string): string {
  return (
    stripAnsi(text)
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== "")
      .at(-1) ?? ""
  );
}

export async function runTests(exec: ExecFn, options: RunOptions): Promise<RunResult> {
  const now = options.now ?? Date.now;
  const started = now();
  let result;
  try {
    // `exec 2>&1` first: one stream, so the output reads as it would in a terminal.
    result = await exec("sh", ["-c", `exec 2>&1\n${options.command}`], {
      cwd: options.cwd,
      timeoutMs: options.timeoutMs,
      maxOutputBytes: options.maxOutputBytes,
      signal: options.signal,
      processGroup: true,
      env: { CI: "1", FORCE_COLOR: "0", NO_COLOR: "1" },
    });
  } catch (error) {
    return { outcome: { state: "error", error: error instanceof Error ? error.message : String(error) }, durationMs: now() - started, output: "", truncated: false };
  }
  const durationMs = now() - started;
  const output = result.stdout + result.stderr;
  const base = { durationMs, output, truncated: result.truncated };
  if (options.signal.aborted) return { ...base, outcome: { state: "cancelled" } };
  if (result.timedOut) {
    const seconds = Math.round(options.timeoutMs / 1000);
    return { ...base, outcome: { state: "error", error: `\`${options.command}\` ran longer than ${seconds} s and was stopped with everything it started` } };
  }
  if (result.code === 0) return { ...base, outcome: { state: "passed", report: analyseOutput(output) } };
  if (result.code === 126 || result.code === 127) {
    return { ...base, outcome: { state: "error", error: `\`${options.command}\` could not run (exit ${result.code}): ${lastLine(output) || "no output"}` } };
  }
  if (result.code === null) {
    return { ...base, outcome: { state: "error", error: `\`${options.command}\` was killed by ${result.signal ?? "a signal"}` } };
  }
  return { ...base, outcome: { state: "failed", report: analyseOutput(output), exitCode: result.code, signal: result.signal } };
}
