/**
 * Run a child to completion (e.g. `npm pack`): always with a timeout and an output cap, in its own process
 * group so the timeout kills whatever it started, and never rejecting — the result says how it ended.
 */
import { describeExit, spawnProcess, type ExitInfo } from "./process-handle.ts";

export interface RunSpec {
  readonly label: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Bytes kept of stdout and of stderr each (the rest is counted, not kept). */
  readonly maxOutputBytes?: number;
  readonly signal?: AbortSignal;
}

export interface RunResult {
  readonly exit: ExitInfo;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  /** True when it exited with code 0 in time. */
  readonly ok: boolean;
  /** "exit code 1", "timed out after 60000 ms", "failed to start: spawn npm ENOENT". */
  readonly summary: string;
}

const DEFAULT_MAX_OUTPUT = 1024 * 1024;

export async function runChild(spec: RunSpec): Promise<RunResult> {
  const max = spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const out = { stdout: "", stderr: "" };
  let truncated = false;
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort();
  spec.signal?.addEventListener("abort", onOuterAbort, { once: true });
  if (spec.signal?.aborted === true) controller.abort();
  let timedOut = false;
  const handle = spawnProcess({
    label: spec.label,
    file: spec.file,
    args: spec.args,
    cwd: spec.cwd,
    env: spec.env,
    signal: controller.signal,
    lineCapBytes: max,
    onLine: (stream, line) => {
      if (out[stream].length + line.length + 1 > max) {
        truncated = true;
        return;
      }
      out[stream] += `${line}\n`;
    },
  });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, spec.timeoutMs);
  try {
    const exit = await handle.exited;
    handle.reapGroup();
    const ok = !timedOut && exit.code === 0;
    const summary = timedOut ? `timed out after ${spec.timeoutMs} ms` : describeExit(exit);
    return { exit, stdout: out.stdout, stderr: out.stderr, timedOut, truncated, ok, summary };
  } finally {
    clearTimeout(timer);
    spec.signal?.removeEventListener("abort", onOuterAbort);
  }
}
