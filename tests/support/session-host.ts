/** Opens real sessions (temp BATON_HOME, real store) with fake harnesses for controller tests. */
import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSession, type OpenedSession, type SessionChoice } from "../../src/app/open-session.ts";
import { DEFAULT_CONTROLLER_SETTINGS, type ControllerSettings } from "../../src/controller/ports.ts";
import type { HarnessDefinition } from "../../src/harness/definition.ts";
import { HarnessRegistry, type TargetConfigInput } from "../../src/harness/registry.ts";
import { createSessionStore, readLedgerFile, type LedgerIo, type SessionStore } from "../../src/store/index.ts";
import { systemClock, type Clock } from "../../src/shared/clock.ts";
import { createUlidSource } from "../../src/shared/ids.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";

export interface TestHome {
  readonly home: string;
  readonly cwd: string;
  readonly store: SessionStore;
  cleanup(): void;
}

export function makeTestHome(clock: Clock = systemClock): TestHome {
  const base = mkdtempSync(path.join(os.tmpdir(), "baton-test-"));
  const home = path.join(base, "baton-home");
  const cwd = path.join(base, "project");
  require("node:fs").mkdirSync(cwd, { recursive: true });
  const store = createSessionStore({ home, clock, ids: createUlidSource(() => clock.now()) });
  return { home, cwd, store, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export interface HostOptions {
  readonly definitions: readonly HarnessDefinition[];
  readonly config?: TargetConfigInput;
  readonly choice?: SessionChoice;
  readonly clock?: Clock;
  readonly settings?: Partial<ControllerSettings>;
  readonly ledgerIo?: LedgerIo;
  readonly verifyCheckpoint?: "sync" | "deferred";
  /** File checkpoints (off unless a test is about them: the temp cwd is no git worktree). */
  readonly fileCheckpoints?: boolean;
  readonly env?: Record<string, string>;
  /** Where the session opens (default: the home's project directory). */
  readonly cwd?: string;
  /** Tail that makes a turn end write a checkpoint (openSession's default unless given; 0: every turn end). */
  readonly checkpointTailBytes?: number;
  /** meta.json's updatedAt at most this often (openSession's default unless given; 0: every turn end). */
  readonly metaTouchMs?: number;
}

export async function openTestSession(home: TestHome, options: HostOptions): Promise<OpenedSession> {
  const clock = options.clock ?? systemClock;
  return openSession({
    store: home.store,
    registry: new HarnessRegistry(options.definitions, options.config),
    cwd: options.cwd ?? home.cwd,
    choice: options.choice ?? { kind: "new" },
    clock,
    ids: createUlidSource(() => clock.now()),
    env: options.env ?? { PATH: process.env["PATH"] ?? "" },
    settings: { ...DEFAULT_CONTROLLER_SETTINGS, ...options.settings },
    logLevel: "debug",
    fileCheckpoints: options.fileCheckpoints ?? false,
    ...(options.ledgerIo ? { ledgerIo: options.ledgerIo } : {}),
    ...(options.verifyCheckpoint ? { verifyCheckpoint: options.verifyCheckpoint } : {}),
    ...(options.checkpointTailBytes !== undefined ? { checkpointTailBytes: options.checkpointTailBytes } : {}),
    ...(options.metaTouchMs !== undefined ? { metaTouchMs: options.metaTouchMs } : {}),
  });
}

export interface TestSessions {
  /** Open a session in a fresh test home, or with `reuseHome` in the home of the previous open (to reopen one). */
  open(options: HostOptions, reuseHome?: boolean): Promise<OpenedSession>;
  /** The home of the latest open. */
  readonly home: TestHome;
  /** Not to be closed after the test: it "died" (its lock was dropped, nothing shut down) or is closed already. */
  forget(session: OpenedSession): void;
}

/**
 * The sessions of a test file's tests, opened with `openTestSession`: after each test every session still
 * remembered is closed and every home removed (an `afterEach` registered by this call; `beforeCleanup` runs first,
 * e.g. to give the disk its space back).
 */
export function testSessions(options: { readonly beforeCleanup?: () => void } = {}): TestSessions {
  let current: TestHome | undefined;
  const homes: TestHome[] = [];
  let sessions: OpenedSession[] = [];
  afterEach(async () => {
    options.beforeCleanup?.();
    for (const session of sessions) await session.close();
    sessions = [];
    for (const home of homes.splice(0)) home.cleanup();
    current = undefined;
  });
  return {
    async open(host, reuseHome = false) {
      if (!reuseHome || current === undefined) {
        current = makeTestHome(host.clock);
        homes.push(current);
      }
      const session = await openTestSession(current, host);
      sessions.push(session);
      return session;
    },
    get home() {
      if (current === undefined) throw new Error("no test session was opened yet");
      return current;
    },
    forget(session) {
      sessions = sessions.filter((other) => other !== session);
    },
  };
}

export function ledgerOf(session: OpenedSession): AnyEvent[] {
  return readLedgerFile(session.ref.paths.ledger);
}

/** `kind` or `kind:detail` per event, for readable sequence assertions. */
export function kindsOf(events: readonly AnyEvent[], filter?: (event: AnyEvent) => boolean): string[] {
  return events.filter(filter ?? (() => true)).map((event) => {
    const payload = event.payload as Record<string, unknown>;
    if (event.kind === "state_update") return `state:${String(payload["state"])}${payload["stopReason"] ? `(${String(payload["stopReason"])})` : ""}`;
    if (event.kind === "_baton_delivery_attempt_update") return `attempt:${String(payload["phase"])}${payload["outcome"] ? `(${String(payload["outcome"])})` : ""}`;
    if (event.kind === "interaction.resolved") {
      const resolution = payload["resolution"] as Record<string, unknown>;
      return `resolved:${String(resolution["outcome"])}${resolution["reason"] ? `/${String(resolution["reason"])}` : ""}`;
    }
    return event.kind;
  });
}

export async function waitFor(predicate: () => boolean, timeoutMs = 5000, what = "condition"): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** An in-process session over real harness definitions (real store in a temp BATON_HOME). */
export async function openRealSession(options: {
  readonly definitions: readonly HarnessDefinition[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly settings?: Partial<ControllerSettings>;
  /** Configured targets (e.g. ACP agents), as config.yaml would give them. */
  readonly config?: TargetConfigInput;
  /** Where the session's BATON_HOME is (default: a new temp dir, removed on cleanup). */
  readonly home?: string;
  readonly choice?: SessionChoice;
  readonly fileCheckpoints?: boolean;
}): Promise<{ session: OpenedSession; home: string; cleanup(): Promise<void> }> {
  const base = options.home === undefined ? mkdtempSync(path.join(os.tmpdir(), "baton-real-")) : undefined;
  const home = options.home ?? path.join(base as string, "home");
  const ids = createUlidSource();
  const session = await openSession({
    store: createSessionStore({ home, clock: systemClock, ids }),
    registry: new HarnessRegistry(options.definitions, options.config),
    cwd: options.cwd,
    choice: options.choice ?? { kind: "new" },
    clock: systemClock,
    ids,
    env: options.env,
    settings: { ...DEFAULT_CONTROLLER_SETTINGS, ...options.settings },
    logLevel: "warn",
    fileCheckpoints: options.fileCheckpoints ?? false,
  });
  return {
    session,
    home,
    async cleanup() {
      await session.close();
      if (base !== undefined) rmSync(base, { recursive: true, force: true });
    },
  };
}
