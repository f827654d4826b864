/**
 * Git as an async child process (never a shell): bounded output, a timeout that kills it, an optional
 * AbortSignal. Every call runs with hooks switched off (`core.hooksPath=/dev/null`), no optional locks (so
 * read commands never refresh the user's index), no terminal prompts and no auto-gc. Index commands name
 * their own index file through `GIT_INDEX_FILE`; nothing here ever touches the user's index.
 */
import { BatonError, describeError } from "../shared/errors.ts";

export const DEFAULT_GIT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;
const STDERR_RING = 4096;

/** Flags on every call: no hooks, no auto maintenance, verbatim paths. */
const SAFE_CONFIG = ["-c", "core.hooksPath=/dev/null", "-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.quotePath=false"];

/** Who checkpoint commits are by (the user may have no identity configured; their config is not read). */
const IDENTITY = {
  GIT_AUTHOR_NAME: "Baton",
  GIT_AUTHOR_EMAIL: "baton@localhost",
  GIT_COMMITTER_NAME: "Baton",
  GIT_COMMITTER_EMAIL: "baton@localhost",
};

export interface GitOptions {
  /** The directory git runs in (the worktree's top level once known). */
  readonly cwd: string;
  /** The user's environment (git must find the same repository the agents see). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

export interface GitCall {
  readonly stdin?: string | Uint8Array;
  /** Run against this index file instead of the repository's. */
  readonly indexFile?: string;
  /** Set the checkpoint identity (commit-tree). */
  readonly identity?: boolean;
  /** Exit codes that are answers, not failures (e.g. 1 for `rev-parse --verify -q`). */
  readonly allow?: readonly number[];
  readonly maxOutputBytes?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface GitOutput {
  readonly code: number;
  readonly stdout: Uint8Array;
  readonly stderr: string;
}

export class Git {
  private readonly env: Record<string, string>;

  constructor(private readonly options: GitOptions) {
    const env: Record<string, string> = { ...options.env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" };
    delete env["GIT_INDEX_FILE"];
    this.env = env;
  }

  get cwd(): string {
    return this.options.cwd;
  }

  /** The same environment, another directory. */
  at(cwd: string): Git {
    return new Git({ ...this.options, cwd });
  }

  /** Runs `git <args>`; a non-zero exit that is not allowed throws `git_failed` with git's own message. */
  async run(args: readonly string[], call: GitCall = {}): Promise<GitOutput> {
    const env = { ...this.env, ...(call.indexFile === undefined ? {} : { GIT_INDEX_FILE: call.indexFile }), ...(call.identity ? IDENTITY : {}) };
    const argv = ["git", ...SAFE_CONFIG, ...args];
    let child: Bun.Subprocess<"pipe" | "ignore", "pipe", "pipe">;
    try {
      child = Bun.spawn(argv, { cwd: this.options.cwd, env, stdin: call.stdin === undefined ? "ignore" : "pipe", stdout: "pipe", stderr: "pipe" });
    } catch (error) {
      throw new BatonError("git_failed", `could not run git: ${describeError(error)}`, { cause: error, hint: "Install git (file checkpoints need it)" });
    }
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
    let killedBy: "timeout" | "abort" | "output" | undefined;
    const kill = (why: "timeout" | "abort" | "output"): void => {
      killedBy ??= why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => kill("timeout"), timeoutMs);
    const onAbort = (): void => kill("abort");
    call.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (call.stdin !== undefined && typeof child.stdin === "object" && child.stdin !== null) {
        const sink = child.stdin as Bun.FileSink;
        sink.write(call.stdin);
        void Promise.resolve(sink.end()).catch(() => undefined);
      }
      const [stdout, stderr, code] = await Promise.all([
        readCapped(child.stdout, call.maxOutputBytes ?? DEFAULT_MAX_OUTPUT, () => kill("output")),
        readTail(child.stderr),
        child.exited,
      ]);
      if (killedBy === "timeout") throw new BatonError("timeout", `git ${args[0] ?? ""} did not finish within ${timeoutMs} ms`);
      if (killedBy === "abort") throw new BatonError("git_failed", `git ${args[0] ?? ""} was cancelled`);
      if (killedBy === "output") throw new BatonError("git_failed", `git ${args[0] ?? ""} printed more than ${call.maxOutputBytes ?? DEFAULT_MAX_OUTPUT} bytes`);
      if (code !== 0 && !(call.allow ?? []).includes(code)) {
        const message = stderr.trim().split("\n").at(-1) ?? "";
        throw new BatonError("git_failed", `git ${args[0] ?? ""} failed (exit ${code})${message === "" ? "" : `: ${message}`}`);
      }
      return { code, stdout, stderr };
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** stdout as UTF-8 text. */
  async text(args: readonly string[], call: GitCall = {}): Promise<string> {
    return new TextDecoder().decode((await this.run(args, call)).stdout);
  }
}

async function readCapped(stream: ReadableStream<Uint8Array>, cap: number, overflow: () => void): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    if (size > cap) {
      overflow();
      break;
    }
    parts.push(chunk);
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(Math.min(size, cap));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

async function readTail(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) text = (text + decoder.decode(chunk, { stream: true })).slice(-STDERR_RING);
  return text;
}

/** Splits NUL-separated output (`-z`), dropping the empty tail. */
export function splitNul(text: string): string[] {
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}
