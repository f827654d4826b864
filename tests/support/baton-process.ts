/** Runs the real `baton` entry (Bun on src/app/main.ts) as a child process, for end-to-end tests. */
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "../..");
export const BATON_ENTRY = path.join(ROOT, "src", "app", "main.ts");
export const BATON_LAUNCHER = path.join(ROOT, "bin", "baton.cjs");

export interface BatonRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface BatonChild {
  readonly pid: number;
  readonly done: Promise<BatonRun>;
  exited(): boolean;
  stdout(): string;
  stderr(): string;
  write(text: string): void;
  /** Close Baton's standard input (EOF). */
  endInput(): void;
  signal(name: NodeJS.Signals): void;
  /**
   * Signal Baton's whole process group, as a terminal does for Ctrl+C (SIGINT) or a hangup (SIGHUP) to its
   * foreground job. Only with `group: true`.
   */
  signalGroup(name: NodeJS.Signals): void;
}

export interface SpawnBatonOptions {
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly stdin?: string;
  /** Run `node bin/baton.cjs` (what a user runs) instead of Bun on the entry directly. */
  readonly launcher?: boolean;
  /** Start Baton as the leader of its own session and process group, like a shell's foreground job. */
  readonly group?: boolean;
}

export function spawnBaton(args: readonly string[], options: SpawnBatonOptions): BatonChild {
  const argv = options.launcher ? ["node", BATON_LAUNCHER, ...args] : [process.execPath, BATON_ENTRY, ...args];
  const child = Bun.spawn(argv, {
    cwd: options.cwd,
    env: options.env,
    detached: options.group === true,
    stdin: options.stdin === undefined ? "pipe" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  let err = "";
  const pump = async (stream: ReadableStream<Uint8Array>, add: (text: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }));
  };
  const pumps = Promise.all([pump(child.stdout, (t) => (out += t)), pump(child.stderr, (t) => (err += t))]);
  let finished = false;
  const done = (async () => {
    const code = await child.exited;
    finished = true;
    await pumps;
    return { code, stdout: out, stderr: err };
  })();
  return {
    pid: child.pid,
    done,
    exited: () => finished,
    stdout: () => out,
    stderr: () => err,
    write(text) {
      const sink = child.stdin;
      if (sink && typeof sink !== "number") {
        sink.write(text);
        sink.flush();
      }
    },
    endInput() {
      const sink = child.stdin;
      if (sink && typeof sink !== "number") void sink.end();
    },
    signal: (name) => child.kill(name),
    signalGroup(name) {
      if (options.group !== true) throw new Error("signalGroup needs spawnBaton(…, { group: true })");
      process.kill(-child.pid, name);
    },
  };
}

export function runBaton(args: readonly string[], options: SpawnBatonOptions): Promise<BatonRun> {
  return spawnBaton(args, { ...options, stdin: options.stdin ?? "" }).done;
}

/** Poll `predicate` (sync or async) every 20 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
