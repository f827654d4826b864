/**
 * A `codex app-server` started before the adapter asks for one, so that its spawn and handshake (initialize →
 * initialized, ≈ 60–90 ms) run beside the rest of Baton's start (imports, config, the session open) instead of
 * after it. `baton exec` starts one as soon as it knows the turn goes to Codex.
 *
 * - **Adopted only when it is exactly the process `open()` would start**: the same argv (binary and arguments), cwd,
 *   complete environment (CODEX_HOME included) and client version (`sameLaunch`). Anything else starts its own
 *   process, and the prelaunched one is stopped at once.
 * - **Nothing is lost before adoption**: what the process says until a session adopts it (notifications, server
 *   requests, the end of its output, wire-trace messages, stderr and peer log lines) is held and handed, in order,
 *   to the session that adopts it — the session sees what it would have seen had it spawned the process itself.
 *   The handshake's own failure (a missing binary, a death or a hang during initialize) is the adopting
 *   session's `initialize()` failure, so open reports it exactly as it reports its own.
 * - **Never an orphan**: whoever prelaunched calls `release()` when done; a process nobody adopted is stopped and
 *   reaped then (stdin EOF, then TERM/KILL to its group). A Baton that dies (kill -9) leaves it to the child's
 *   watchdog, like every child (rpc/child-process.ts).
 * - **A run's app-server exits beside the session's close**: the run's sessions close their app-server (its last
 *   turn ended, stdin EOF, nothing more is read from it) and hand its exit here (`awaitExit`) instead of waiting for
 *   it, so Baton's own close (meta.json, the ledger's sync, the checkpoint) runs while Codex shuts down (≈ 20–30 ms
 *   after EOF); `release()` waits for those exits too, so the run still ends only once they are reaped.
 */
import type { Clock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/log.ts";
import type { RpcId, WireTrace } from "../../rpc/jsonrpc.ts";
import type { StartedProcess } from "../../rpc/child-process.ts";
import type { RpcChild, SpawnPort } from "../../rpc/rpc-child.ts";
import { APP_SERVER_STOP, initialize, SESSION_TITLE, startAppServer } from "./app-server.ts";

/** What identifies an app-server launch: two equal launches start indistinguishable processes. */
export interface AppServerLaunchKey {
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The child's complete environment. */
  readonly env: Readonly<Record<string, string>>;
  /** `clientInfo.version` of the handshake. */
  readonly clientVersion: string;
}

/** Where a session receives what its app-server says (the same handlers it gives a process it spawns itself). */
export interface SessionTaps {
  readonly onNotification: (method: string, params: unknown) => void;
  readonly onRequest: (method: string, params: unknown, id: RpcId) => unknown;
  readonly onClose: (reason: string) => void;
  readonly trace?: WireTrace | undefined;
  readonly log: Logger;
}

/** Why `a` and `b` would not start the same process; undefined when they would. */
export function launchDifference(a: AppServerLaunchKey, b: AppServerLaunchKey): string | undefined {
  if (a.argv.length !== b.argv.length || a.argv.some((arg, i) => arg !== b.argv[i])) return "the command differs";
  if (a.cwd !== b.cwd) return "the working directory differs";
  if (a.clientVersion !== b.clientVersion) return "the client version differs";
  const keys = Object.keys(a.env);
  if (keys.length !== Object.keys(b.env).length || keys.some((key) => !Object.hasOwn(b.env, key) || a.env[key] !== b.env[key])) return "the environment differs";
  return undefined;
}

export class PrelaunchedAppServer {
  readonly child: RpcChild;
  /** The handshake, started with the process; rejects as the session's own `initialize()` would. */
  readonly initialized: Promise<void>;
  private taps: SessionTaps | undefined;
  private readonly held: ((taps: SessionTaps) => void)[] = [];
  private stopping: Promise<void> | undefined;
  /** Spawned by the entry before Baton loaded (src/app/codex-prestart.ts), not by this prelaunch. */
  readonly prestarted: boolean;

  constructor(
    readonly key: AppServerLaunchKey,
    clock: Clock,
    spawn?: SpawnPort,
    started?: StartedProcess,
  ) {
    this.prestarted = started !== undefined;
    const log: Logger = {
      log: (level, message, fields) => this.relay((taps) => taps.log.log(level, message, fields)),
      child: () => log,
    };
    this.child = startAppServer(
      { argv: key.argv, cwd: key.cwd, env: key.env, log, spawn, started },
      {
        name: "codex app-server",
        clock,
        trace: (direction, message) => this.relay((taps) => taps.trace?.(direction, message)),
        onNotification: (method, params) => this.relay((taps) => taps.onNotification(method, params)),
        onRequest: (method, params, id) =>
          new Promise((resolve, reject) =>
            this.relay((taps) => {
              try {
                resolve(taps.onRequest(method, params, id));
              } catch (error) {
                reject(error);
              }
            }),
          ),
        onClose: (reason) => this.relay((taps) => taps.onClose(reason)),
      },
    );
    this.initialized = initialize(this.child.peer, SESSION_TITLE, key.clientVersion);
    // Whoever adopts the process awaits the handshake; until then its failure is held, not unhandled.
    this.initialized.catch(() => undefined);
  }

  get adopted(): boolean {
    return this.taps !== undefined;
  }

  /** Hand the process to a session: what it said so far is delivered now, in order, then live. */
  attach(taps: SessionTaps): void {
    if (this.taps !== undefined) throw new Error("a prelaunched codex app-server is adopted once");
    this.taps = taps;
    for (const deliver of this.held.splice(0)) deliver(taps);
  }

  /** Stop and reap the process unless a session adopted it (then the session owns it). */
  release(): Promise<void> {
    if (this.taps !== undefined) return Promise.resolve();
    this.stopping ??= this.child.close("not used by Baton", APP_SERVER_STOP).then(() => undefined);
    return this.stopping;
  }

  private relay(deliver: (taps: SessionTaps) => void): void {
    if (this.taps !== undefined) deliver(this.taps);
    else this.held.push(deliver);
  }
}

/**
 * The prelaunch slot of one run: at most one prelaunched app-server, taken by the first launch that matches it
 * exactly. The adapter asks it at every launch; the run releases it when it ends.
 */
export class CodexPrelaunch {
  private server: PrelaunchedAppServer | undefined;
  private readonly stopped: Promise<unknown>[] = [];
  /** Whether a session took a prelaunched process (its launch was exactly the one started). */
  adopted = false;

  /** The process port it starts through (undefined: the real spawn); only an adapter on the same port adopts. */
  constructor(readonly spawn?: SpawnPort) {}

  /** Start the app-server for `key` (a second start replaces and stops the first). */
  start(key: AppServerLaunchKey, clock: Clock, started?: StartedProcess): PrelaunchedAppServer {
    this.drop();
    this.server = new PrelaunchedAppServer(key, clock, this.spawn, started);
    return this.server;
  }

  /**
   * The prelaunched process when it is exactly the launch `key` describes; else undefined, and a prelaunched
   * process that does not match is stopped (nothing else in this run would use it). `log` says which.
   */
  take(key: AppServerLaunchKey, log: Logger): PrelaunchedAppServer | undefined {
    const server = this.server;
    if (server === undefined) return undefined;
    this.server = undefined;
    const difference = launchDifference(server.key, key);
    if (difference === undefined) {
      this.adopted = true;
      log.log("debug", `adopting the prelaunched codex app-server (pid ${String(server.child.process.pid)}${server.prestarted ? ", started at entry" : ""})`);
      return server;
    }
    log.log("info", `the prelaunched codex app-server is not used (${difference}); starting another`);
    this.stopped.push(server.release());
    return undefined;
  }

  /** A session of this run closed its app-server: `release()` waits for `exited` (it never rejects) too. */
  awaitExit(exited: Promise<unknown>): void {
    this.stopped.push(exited.catch(() => undefined));
  }

  /** Stop and reap every prelaunched process no session adopted, and wait for the exits handed over (`awaitExit`). */
  async release(): Promise<void> {
    this.drop();
    await Promise.all(this.stopped);
  }

  private drop(): void {
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) this.stopped.push(server.release());
  }
}
