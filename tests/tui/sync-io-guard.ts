/**
 * PROC-01 in tests: wraps every synchronous function of `node:fs` (the default export, which is how
 * src/ imports it — the architecture test enforces that) and records the calls made while a key is
 * being handled or a frame rendered. Not a test file.
 */
import fs from "node:fs";

export interface SyncIoGuard {
  /** Run `fn` (a key press or a render) and the microtasks it starts with the guard armed. */
  during(fn: () => unknown): Promise<void>;
  /** Also run the tasks `fn` deferred with setImmediate (what a key press set off right after it) armed. */
  duringWithFollowUps(fn: () => unknown): Promise<void>;
  /** `fsFunction(firstArgument)` for every call made while armed, with where it came from. */
  readonly calls: readonly string[];
  restore(): void;
}

const MICROTASK_TURNS = 50;

export function installSyncIoGuard(): SyncIoGuard {
  const target = fs as unknown as Record<string, unknown>;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  const calls: string[] = [];
  let armed = 0;
  for (const name of Object.keys(target)) {
    const original = target[name];
    if (!name.endsWith("Sync") || typeof original !== "function") continue;
    originals.set(name, original as (...args: unknown[]) => unknown);
    target[name] = function (this: unknown, ...args: unknown[]) {
      if (armed > 0) {
        const where = (new Error().stack ?? "").split("\n").slice(2, 8).map((line) => line.trim()).join(" < ");
        calls.push(`fs.${name}(${describe(args[0], originals.get("readlinkSync"))}) at ${where}`);
      }
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  return {
    calls,
    async during(fn) {
      armed++;
      try {
        await fn();
        for (let turn = 0; turn < MICROTASK_TURNS; turn++) await Promise.resolve();
      } finally {
        armed--;
      }
    },
    async duringWithFollowUps(fn) {
      armed++;
      try {
        await fn();
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      } finally {
        armed--;
      }
    },
    restore() {
      for (const [name, original] of originals) target[name] = original;
    },
  };
}

/** A path argument shortened; a file descriptor with the file it is open on. */
function describe(value: unknown, readlink: ((...args: unknown[]) => unknown) | undefined): string {
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `…${value.slice(-80)}` : value);
  if (typeof value !== "number") return typeof value;
  try {
    return `fd ${value} ${String(readlink?.(`/proc/self/fd/${value}`))}`;
  } catch {
    return `fd ${value}`;
  }
}
