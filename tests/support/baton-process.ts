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
  signal(name: NodeJS.Signals): void;
}

export function spawnBaton(args: readonly string[], options: { env: Record<string, string>; cwd: string; stdin?: string }): BatonChild {
  const child = Bun.spawn([process.execPath, BATON_ENTRY, ...args], {
    cwd: options.cwd,
    env: options.env,
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
    signal: (name) => child.kill(name),
  };
}

export function runBaton(args: readonly string[], options: { env: Record<string, string>; cwd: string; stdin?: string }): Promise<BatonRun> {
  return spawnBaton(args, { ...options, stdin: options.stdin ?? "" }).done;
}

export async function waitUntil(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
