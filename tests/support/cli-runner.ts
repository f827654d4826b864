/** Runs the CLI in-process with fake harnesses, captured output and a temp BATON_HOME. */
import { runCli } from "../../src/app/cli.ts";
import { linesFrom, type CliIo, type LineSource, type TerminationSignal } from "../../src/app/io.ts";
import type { HarnessDefinition } from "../../src/harness/definition.ts";

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliRun {
  readonly result: Promise<CliResult>;
  /** Simulate Ctrl+C. */
  interrupt(): void;
  /** Simulate SIGTERM / SIGHUP / a broken output pipe. */
  terminate(signal: TerminationSignal): void;
  stdout(): string;
  stderr(): string;
}

export interface CliOptions {
  readonly env: Record<string, string | undefined>;
  readonly cwd: string;
  readonly definitions: readonly HarnessDefinition[];
  readonly stdin?: string | LineSource;
  readonly tty?: boolean;
}

export function startCli(argv: readonly string[], options: CliOptions): CliRun {
  let out = "";
  let err = "";
  const listeners = new Set<() => void>();
  const terminateListeners = new Set<(signal: TerminationSignal) => void>();
  const io: CliIo = {
    stdout: { write: (text) => void (out += text), isTTY: options.tty ?? false },
    stderr: { write: (text) => void (err += text), isTTY: false },
    stdin: typeof options.stdin === "object" ? options.stdin : linesFrom(options.stdin ?? ""),
    stdinIsTTY: options.tty ?? false,
    env: options.env,
    cwd: options.cwd,
    onInterrupt(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onTerminate(listener) {
      terminateListeners.add(listener);
      return () => terminateListeners.delete(listener);
    },
    definitions: options.definitions,
  };
  const result = runCli(argv, io).then((code) => ({ code, stdout: out, stderr: err }));
  return {
    result,
    interrupt: () => {
      for (const listener of [...listeners]) listener();
    },
    terminate: (signal) => {
      for (const listener of [...terminateListeners]) listener(signal);
    },
    stdout: () => out,
    stderr: () => err,
  };
}

export function runCliOnce(argv: readonly string[], options: CliOptions): Promise<CliResult> {
  return startCli(argv, options).result;
}

/** A LineSource fed by the test, one line at a time. */
export class ScriptedInput implements LineSource {
  private readonly lines: string[] = [];
  private waiter: ((line: string | undefined) => void) | undefined;
  private ended = false;

  push(line: string): void {
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter(line);
    } else this.lines.push(line);
  }

  end(): void {
    this.ended = true;
    this.waiter?.(undefined);
    this.waiter = undefined;
  }

  next(): Promise<string | undefined> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  async readAll(): Promise<string> {
    const parts: string[] = [];
    for (let line = await this.next(); line !== undefined; line = await this.next()) parts.push(line);
    return parts.join("\n");
  }
}
