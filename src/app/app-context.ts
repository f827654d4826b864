/** Everything a command needs: BATON_HOME, the effective config, the store, the harness registry. */
import path from "node:path";
import { batonHome, resolvedHomeEnv } from "./entry-env.ts";
import { formatProblem, loadConfig, type LoadedConfig } from "../config/load.ts";
import { createPreferences, type Preferences } from "../config/preferences.ts";
import { DEFAULT_CONTROLLER_SETTINGS, type ControllerSettings } from "../controller/ports.ts";
import { HarnessRegistry } from "../harness/registry.ts";
import { createSessionStore, type SessionStore } from "../store/index.ts";
import { systemClock, type Clock } from "../shared/clock.ts";
import { createUlidSource, type IdSource } from "../shared/ids.ts";
import { withIo, type CliIo } from "./io.ts";
import type { OpenedSession, SessionChoice } from "./open-session.ts";
import type { LogLevel } from "../shared/log.ts";

export interface AppContext {
  readonly home: string;
  readonly cwd: string;
  readonly loaded: LoadedConfig;
  readonly store: SessionStore;
  readonly registry: HarnessRegistry;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly settings: ControllerSettings;
  readonly preferences: Preferences;
  /** The environment handed to harness processes: the user's, unchanged. */
  readonly childEnv: Readonly<Record<string, string>>;
}

export { batonHome };

/**
 * A relative BATON_HOME is resolved against the current directory once, at entry: every command, and every
 * process Baton starts, then sees the same absolute home whatever directory it works in (`--cwd`, a session's
 * own directory). `relativeHome` keeps what was given, for `doctor`.
 */
export function withResolvedHome(io: CliIo): CliIo {
  const given = io.env["BATON_HOME"];
  if (given === undefined || given === "" || path.isAbsolute(given)) return io;
  return withIo(io, { env: resolvedHomeEnv(io.env, io.cwd), relativeHome: given });
}

/** Loads config (unknown keys are reported on stderr, once) and builds the store and registry. */
export function createAppContext(io: CliIo, options: { cwd?: string; home?: string } = {}): AppContext {
  const home = batonHome(io.env, options.home, io.cwd);
  const cwd = path.resolve(io.cwd, options.cwd ?? ".");
  const loaded = loadConfig(home, io.env, io.definitions);
  for (const warning of loaded.warnings) io.stderr.write(`baton: ${formatProblem(warning)}\n`);
  const config = loaded.config;
  const registry = new HarnessRegistry(io.definitions, {
    harnesses: config.harnesses as Record<string, Record<string, unknown>>,
    targets: config.targets as Record<string, Record<string, unknown> & { harness: string }>,
  });
  const clock = systemClock;
  const ids = createUlidSource(() => clock.now());
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(io.env)) if (value !== undefined) childEnv[key] = value;
  return {
    home,
    cwd,
    loaded,
    store: createSessionStore({ home, clock, ids }),
    registry,
    clock,
    ids,
    settings: {
      ...DEFAULT_CONTROLLER_SETTINGS,
      mentionBudgetChars: config.mentionBudgetChars,
      cancelGraceMs: config.cancelGraceSeconds * 1000,
      stallNoticeMs: config.stallNoticeSeconds * 1000,
      ...(config.textgenPrefer ? { textgenPrefer: config.textgenPrefer } : {}),
      ...(config.textgenModels ? { textgenModels: config.textgenModels } : {}),
      failover: config.failover,
    },
    childEnv,
    preferences: loadedPreferences(home, io),
  };
}

/** Read once here, at startup; changes are written behind (no key press waits for the disk). */
function loadedPreferences(home: string, io: CliIo): Preferences {
  const preferences = createPreferences(home, (error) => io.stderr.write(`baton: could not save a preference: ${error instanceof Error ? error.message : String(error)}\n`));
  preferences.load();
  return preferences;
}

/**
 * Open a session with everything the context knows (config, registry, preferences). The session's code (controller,
 * projection, store recovery: ≈ 100 modules) loads here, not with every command: `baton exec` starts its harness
 * before it (src/app/harnesses.ts), and `--version` or `sessions` never need it.
 */
export async function openSessionIn(
  ctx: AppContext,
  choice: SessionChoice,
  settings: Partial<ControllerSettings> = {},
  verifyCheckpoint: "sync" | "deferred" = "sync",
): Promise<OpenedSession> {
  const { openSession } = await import("./open-session.ts");
  return openSession({
    store: ctx.store,
    registry: ctx.registry,
    cwd: ctx.cwd,
    choice,
    clock: ctx.clock,
    ids: ctx.ids,
    env: ctx.childEnv,
    settings: { ...ctx.settings, ...settings },
    logLevel: ctx.loaded.config.logLevel as LogLevel,
    preferences: ctx.preferences,
    verifyCheckpoint,
  });
}
