/**
 * The supervisor of one runner process (plugins.md §2, RUN-05): spawn in its own process group, the
 * JSON-RPC channel on fd 3/4, per-call deadlines with `$/cancelRequest` (the runner lives on), a heartbeat
 * ping every 5 s, hung (two pings unanswered, or a call unanswered 10 s after its cancel) → SIGKILL of the
 * group, a memory cap, output captured line by line with caps. Every failure is reported once with a code;
 * every pending call is rejected; no timer or promise outlives it. It knows nothing about plugins.
 */
import { describeExit, spawnProcess, type ChildStream, type ExitInfo, type ProcessHandle } from "../rpc/process-handle.ts";
import { JsonRpcError, JsonRpcPeer } from "../rpc/jsonrpc.ts";
import { systemClock, type Clock, type TimerHandle } from "../shared/clock.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import {
  CANCEL_METHOD,
  describeIssue,
  HOST_REQUESTS,
  isRunnerMethod,
  isRunnerNotification,
  MAX_MESSAGE_BYTES,
  RUNNER_NOTIFICATIONS,
  RUNNER_REQUESTS,
  type HostMethod,
  type ParamsOf,
  type ResultOf,
  type RunnerMethod,
  type RunnerNotification,
} from "./protocol.ts";

export type FailureCode = "exit" | "hung" | "protocol" | "memory" | "spawn";

export interface RunnerFailure {
  readonly code: FailureCode;
  readonly detail: string;
}

export interface SupervisorTimings {
  readonly heartbeatMs: number;
  readonly pingTimeoutMs: number;
  /** Pings in a row that may go unanswered before the runner counts as hung. */
  readonly missedPings: number;
  readonly hungAfterCancelMs: number;
  readonly closeGraceMs: number;
  readonly killGraceMs: number;
  /** Per-method deadlines over the protocol table's (tests, manifest limits). */
  readonly deadlines: Partial<Readonly<Record<HostMethod, number>>>;
}

export const DEFAULT_TIMINGS: SupervisorTimings = {
  heartbeatMs: 5_000,
  pingTimeoutMs: 2_000,
  missedPings: 2,
  hungAfterCancelMs: 10_000,
  closeGraceMs: 2_000,
  killGraceMs: 1_000,
  deadlines: {},
};

/** Output lines per second a runner may log before the rest is counted and dropped. */
const LINES_PER_SECOND = 200;

export interface SupervisorOptions {
  readonly label: string;
  readonly command: { readonly file: string; readonly args: readonly string[] };
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly memoryMb: number;
  readonly log: Logger;
  readonly timings?: Partial<SupervisorTimings>;
  readonly clock?: Clock;
  /** A stdout/stderr line of the runner (already capped at 8 KiB and rate-limited). */
  readonly onOutput: (stream: ChildStream, line: string) => void;
  /** A validated notification from the runner. */
  readonly onNotification: (method: RunnerNotification, params: unknown) => void;
  /** A validated request from the runner; the answer (or throw) goes back within its deadline. */
  readonly onRequest: (method: RunnerMethod, params: unknown, signal: AbortSignal) => Promise<unknown>;
  /** Called once, when the runner failed (never for a requested close). */
  readonly onFailure: (failure: RunnerFailure) => void;
}

export class RunnerSupervisor {
  readonly child: ProcessHandle;
  private readonly peer: JsonRpcPeer;
  private readonly timings: SupervisorTimings;
  private readonly clock: Clock;
  private failure: RunnerFailure | undefined;
  private closing: Promise<void> | undefined;
  private heartbeat: TimerHandle | undefined;
  private readonly timers = new Set<TimerHandle>();
  private missed = 0;
  private lastRss = 0;
  private outputWindow = { start: 0, lines: 0, dropped: 0 };

  constructor(private readonly options: SupervisorOptions) {
    this.timings = { ...DEFAULT_TIMINGS, ...options.timings };
    this.clock = options.clock ?? systemClock;
    this.child = spawnProcess({
      label: options.label,
      file: options.command.file,
      args: options.command.args,
      cwd: options.cwd,
      env: options.env,
      channel: "fd34",
      onLine: (stream, line) => this.output(stream, line),
    });
    const transport = this.child.transport ?? { input: (async function* () {})(), write: () => undefined, end: () => undefined };
    this.peer = new JsonRpcPeer({
      transport,
      name: options.label,
      cancelMethod: CANCEL_METHOD,
      maxLineBytes: MAX_MESSAGE_BYTES,
      stampVersion: true,
      closedCode: "plugin_failed",
      log: options.log,
      clock: this.clock,
      onMalformed: (problem) => this.fail("protocol", `the runner wrote something that is not a JSON-RPC message on fd 3: ${problem}`),
      onNotification: (method, params) => this.notification(method, params),
      onRequest: (method, params, _id, signal) => this.request(method, params, signal),
      onClose: () => void this.channelGone(),
    });
    void this.peer.start();
    void this.child.exited.then((exit) => this.exited(exit));
    this.heartbeat = this.clock.setTimeout(() => this.beat(), this.timings.heartbeatMs);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get failed(): RunnerFailure | undefined {
    return this.failure;
  }

  get rssBytes(): number {
    return this.lastRss;
  }

  /** Call the runner; past the deadline the call is cancelled and rejected (`timeout`), the runner lives on. */
  async call<M extends HostMethod>(method: M, params: ParamsOf<M>, options: { readonly deadlineMs?: number; readonly signal?: AbortSignal } = {}): Promise<ResultOf<M>> {
    if (this.failure !== undefined) throw new BatonError("plugin_failed", `${this.options.label} has stopped (${this.failure.detail})`);
    if (this.closing !== undefined && method !== "runner/shutdown") throw new BatonError("plugin_failed", `${this.options.label} is closing`);
    const deadlineMs = options.deadlineMs ?? this.timings.deadlines[method] ?? HOST_REQUESTS[method].deadlineMs;
    let raw: unknown;
    try {
      raw = await this.peer.request(method, params, { timeoutMs: deadlineMs, ...(options.signal === undefined ? {} : { signal: options.signal }) });
    } catch (error) {
      if (error instanceof BatonError && (error.code === "timeout" || error.code === "cancelled")) this.watchCancelled();
      // The channel ended under us: the exit that follows says why (the EOF usually arrives first).
      if (this.peer.closed && this.failure === undefined && this.closing === undefined) await this.channelGone();
      const failure = this.failed;
      if (failure !== undefined) throw new BatonError("plugin_failed", `${this.options.label} stopped: ${failure.detail}`, { cause: error });
      throw error;
    }
    const parsed = HOST_REQUESTS[method].result.safeParse(raw);
    if (!parsed.success) {
      this.fail("protocol", `invalid result for ${method}: ${describeIssue(parsed.error)}`);
      throw new BatonError("plugin_failed", `${this.options.label} answered ${method} with an invalid result`);
    }
    return parsed.data as ResultOf<M>;
  }

  /** Close (idempotent): `runner/shutdown`, grace, SIGTERM to the group, SIGKILL, reap. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Fail now with `code` (protocol violations, activation problems found by the caller). */
  fail(code: FailureCode, detail: string): void {
    if (this.failure !== undefined || this.closing !== undefined) return;
    this.failure = { code, detail };
    this.stopTimers();
    this.child.kill("SIGKILL");
    this.peer.close(`${code}: ${detail}`);
    void this.child.exited.then(() => this.child.reapGroup());
    try {
      this.options.onFailure(this.failure);
    } catch (error) {
      this.options.log.log("error", "runner failure handler threw", { error });
    }
  }

  private async shutdown(): Promise<void> {
    this.stopTimers();
    if (this.failure === undefined && this.child.exitInfo() === undefined) {
      // One grace period for both: the runner answers shutdown and exits, or it is signalled.
      const deadline = this.clock.now() + this.timings.closeGraceMs;
      await this.call("runner/shutdown", {}, { deadlineMs: this.timings.closeGraceMs }).catch(() => undefined);
      this.peer.close("closed by Baton");
      const left = deadline - this.clock.now();
      if (left > 0) await this.waitExit(left);
    }
    this.peer.close("closed by Baton");
    if (this.child.exitInfo() === undefined) await this.child.terminate(this.timings.killGraceMs);
    await this.child.exited;
    this.child.reapGroup();
  }

  /** fd 3 ended: wait (bounded) for the exit to be seen; a runner that lives on without its channel is broken. */
  private async channelGone(): Promise<void> {
    if (this.failure !== undefined || this.closing !== undefined) return;
    await this.waitExit(this.timings.killGraceMs);
    await Promise.resolve();
    if (this.failure === undefined && this.closing === undefined && this.child.exitInfo() === undefined) {
      this.fail("protocol", "the runner closed its protocol channel (fd 3) and kept running");
    }
  }

  private async waitExit(ms: number): Promise<void> {
    let timer: TimerHandle | undefined;
    await Promise.race([this.child.exited, new Promise<void>((resolve) => (timer = this.clock.setTimeout(resolve, ms)))]);
    if (timer !== undefined) this.clock.clearTimeout(timer);
  }

  private exited(exit: ExitInfo): void {
    if (this.closing !== undefined || this.failure !== undefined) return;
    if (exit.error !== undefined) {
      this.fail("spawn", `could not start the runner: ${exit.error}`);
      return;
    }
    const tail = this.child.stderrTail().trim().split("\n").slice(-3).join(" | ");
    this.fail("exit", `the runner exited (${describeExit(exit)})${tail === "" ? "" : `: ${tail.slice(0, 400)}`}`);
  }

  private beat(): void {
    this.heartbeat = undefined;
    if (this.failure !== undefined || this.closing !== undefined) return;
    this.heartbeat = this.clock.setTimeout(() => this.beat(), this.timings.heartbeatMs);
    this.checkCancelled();
    this.call("runner/ping", {}, { deadlineMs: this.timings.pingTimeoutMs }).then(
      (pong) => {
        this.missed = 0;
        this.lastRss = pong.rssBytes;
        const cap = this.options.memoryMb * 1024 * 1024;
        if (pong.rssBytes > cap) this.fail("memory", `the runner uses ${Math.round(pong.rssBytes / 1048576)} MB, over its ${this.options.memoryMb} MB limit`);
      },
      () => {
        if (this.failure !== undefined || this.closing !== undefined) return;
        this.missed++;
        if (this.missed >= this.timings.missedPings) this.fail("hung", `the runner did not answer ${this.missed} pings in a row (busy loop or blocked event loop); killed`);
      },
    );
  }

  private watchCancelled(): void {
    const timer = this.clock.setTimeout(() => {
      this.timers.delete(timer);
      this.checkCancelled();
    }, this.timings.hungAfterCancelMs);
    this.timers.add(timer);
  }

  private checkCancelled(): void {
    const oldest = this.peer.oldestAbandoned();
    if (oldest === undefined || oldest.method === "runner/ping") return;
    const age = this.clock.now() - oldest.since;
    if (age >= this.timings.hungAfterCancelMs) this.fail("hung", `${oldest.method} was still unanswered ${Math.round(age / 1000)} s after it was cancelled; killed`);
  }

  private notification(method: string, params: unknown): void {
    if (!isRunnerNotification(method)) {
      this.fail("protocol", `the runner sent an unknown notification '${method}'`);
      return;
    }
    const parsed = RUNNER_NOTIFICATIONS[method].safeParse(params);
    if (!parsed.success) {
      this.fail("protocol", `invalid ${method} from the runner: ${describeIssue(parsed.error)}`);
      return;
    }
    this.options.onNotification(method, parsed.data);
  }

  private async request(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    if (!isRunnerMethod(method)) {
      this.fail("protocol", `the runner called an unknown method '${method}'`);
      throw new JsonRpcError(method, -32601, `unknown method ${method}`);
    }
    const parsed = RUNNER_REQUESTS[method].params.safeParse(params);
    if (!parsed.success) {
      this.fail("protocol", `invalid params for ${method} from the runner: ${describeIssue(parsed.error)}`);
      throw new JsonRpcError(method, -32602, describeIssue(parsed.error));
    }
    return this.options.onRequest(method, parsed.data, signal);
  }

  private output(stream: ChildStream, line: string): void {
    const now = this.clock.now();
    const window = this.outputWindow;
    if (now - window.start >= 1000) {
      if (window.dropped > 0) this.options.onOutput("stderr", `[baton: ${window.dropped} lines of runner output dropped (over ${LINES_PER_SECOND}/s)]`);
      this.outputWindow = { start: now, lines: 0, dropped: 0 };
    }
    if (this.outputWindow.lines >= LINES_PER_SECOND) {
      this.outputWindow.dropped++;
      return;
    }
    this.outputWindow.lines++;
    try {
      this.options.onOutput(stream, line);
    } catch (error) {
      this.options.log.log("debug", "runner output handler threw", { error: describeError(error) });
    }
  }

  private stopTimers(): void {
    if (this.heartbeat !== undefined) this.clock.clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    for (const timer of this.timers) this.clock.clearTimeout(timer);
    this.timers.clear();
  }
}
