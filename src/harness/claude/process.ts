/**
 * The Claude Code processes the Agent SDK starts for one owner (a session, a probe, a text generation), through the
 * SDK's `spawnClaudeCodeProcess` hook so they are Baton's children like Codex's: their own process group and a
 * watchdog (rpc/child-process), signals to the whole group, stderr to the owner's log with a bounded tail.
 *
 * Why a stop of our own: the SDK's `close()` only ends stdin and arms *unref'd* TERM/KILL timers, and Claude Code
 * reads stdin EOF only once its current turn is over, so a Baton that exits right after `close()` left Claude Code
 * working for the rest of the turn. `stop()` ends it and resolves once every process is reaped (a session closing
 * mid-turn stops the group at once; an idle one gives Claude Code a moment to exit on stdin EOF).
 */
import type { ChildProcess } from "node:child_process";
import type { SpawnedProcess, SpawnOptions } from "@anthropic-ai/claude-agent-sdk";
import { terminalSafe } from "../../shared/terminal-text.ts";
import { spawnChild, type ChildHandle, type StopOptions } from "../../rpc/child-process.ts";
import { invalidUtf8Guard } from "../../rpc/utf8-guard.ts";

const STDERR_TAIL_CHARS = 4 * 1024;
/** After the SDK's own graceful window has passed (its forwarded abort), how long TERM gets before KILL. */
const ABORT_TERM_GRACE_MS = 2_000;

type ExitListener = (code: number | null, signal: NodeJS.Signals | null) => void;
type ErrorListener = (error: Error) => void;

export class ClaudeProcesses {
  private readonly live = new Set<ChildHandle>();
  private tail = "";

  /** `onStderr` gets each chunk without colours, at most 2,000 characters of it. */
  constructor(private readonly onStderr?: (text: string) => void) {}

  /** The SDK's `spawnClaudeCodeProcess`. */
  readonly spawn = (options: SpawnOptions): SpawnedProcess => {
    const handle = spawnChild(options.command, options.args, { ...(options.cwd === undefined ? {} : { cwd: options.cwd }), env: options.env });
    this.live.add(handle);
    void handle.exited.then(() => this.live.delete(handle));
    const child = handle.child;
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (data: string) => {
      const plain = terminalSafe(data);
      this.tail = (this.tail + plain).slice(-STDERR_TAIL_CHARS);
      this.onStderr?.(plain.slice(0, 2_000));
    });
    const onAbort = (): void => void handle.stop({ termGraceMs: ABORT_TERM_GRACE_MS });
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });
    return spawnedProcess(handle, child);
  };

  /** The SDK words an exit with the stderr it saw; when Baton spawns, Baton has the stderr: add its tail. */
  withStderr(reason: string): string {
    const tail = this.tail.trim().slice(-1_000);
    if (tail === "" || reason.includes("stderr:") || !/Claude Code process (exited|terminated)/.test(reason)) return reason;
    return `${reason}. stderr: ${tail}`;
  }

  /** Stop every process still running (stdin EOF first, then the group is signalled); resolves once all are reaped. */
  async stop(options: StopOptions = {}): Promise<void> {
    await Promise.all([...this.live].map((handle) => handle.stop(options)));
  }
}

/** A ChildProcess seen through the SDK's SpawnedProcess, with kill() going to the whole group. */
function spawnedProcess(handle: ChildHandle, child: ChildProcess): SpawnedProcess {
  let signalled = false;
  if (child.stdin === null || child.stdout === null) throw new Error("Claude Code was spawned without stdio pipes");
  const stdin = child.stdin;
  // The SDK decodes Claude Code's stdout itself: a line that is not UTF-8 reaches it marked with its bytes.
  const stdout = child.stdout.pipe(invalidUtf8Guard());
  child.stdout.once("error", (error) => stdout.destroy(error));
  return {
    stdin,
    stdout,
    get killed() {
      return signalled || child.killed;
    },
    get exitCode() {
      return child.exitCode;
    },
    get signalCode() {
      return child.signalCode;
    },
    kill(signal) {
      const sent = handle.signal(signal);
      signalled ||= sent;
      return sent;
    },
    on(event: "exit" | "error", listener: ExitListener | ErrorListener) {
      child.on(event, listener);
    },
    once(event: "exit" | "error", listener: ExitListener | ErrorListener) {
      child.once(event, listener);
    },
    off(event: "exit" | "error", listener: ExitListener | ErrorListener) {
      child.off(event, listener);
    },
  } as SpawnedProcess;
}
