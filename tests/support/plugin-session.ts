/**
 * A fixture plugin installed and enabled in a real session (temp BATON_HOME, real store, fake harnesses) and run in
 * a real runner on a manual clock, for the e2e tests of what plugins propose and ask. `pluginSessions()` registers
 * the test file's afterEach: the rigs close first, then the sessions, then the homes are removed.
 */
import { afterEach } from "bun:test";
import type { OpenedSession } from "../../src/app/open-session.ts";
import type { HarnessDefinition } from "../../src/harness/definition.ts";
import type { ResourceStore } from "../../src/plugin/resources/store.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createPluginRig, type PluginRig } from "./plugin-rig.ts";
import { makeTestHome, openTestSession, type TestHome } from "./session-host.ts";

export interface PluginSession {
  readonly session: OpenedSession;
  readonly rig: PluginRig;
  readonly pluginInstanceId: string;
  /** Wait until no controller has work and the ledger has caught up (a few rounds: one reconcile starts another). */
  settle(): Promise<void>;
  /** The binding's resource store. */
  store(): ResourceStore;
}

export interface PluginSessionOptions {
  /** The plugin's directory (a fixture under tests/fixtures/plugins). */
  readonly dir: string;
  readonly definitions: readonly HarnessDefinition[];
  readonly config?: unknown;
  /** Open in this home (from `home()`) instead of a fresh one; with `reopen`, that session of it. */
  readonly home?: TestHome;
  readonly reopen?: string;
}

export interface PluginSessions {
  /** A home removed after the test, to open (and reopen) sessions in. */
  home(): TestHome;
  open(options: PluginSessionOptions): Promise<PluginSession>;
}

export function pluginSessions(): PluginSessions {
  let homes: TestHome[] = [];
  let rigs: PluginRig[] = [];
  let sessions: OpenedSession[] = [];
  afterEach(async () => {
    for (const rig of rigs) await rig.close();
    for (const s of sessions) await s.close();
    for (const h of homes) h.cleanup();
    rigs = [];
    sessions = [];
    homes = [];
  });
  const home = (): TestHome => {
    const made = makeTestHome();
    homes.push(made);
    return made;
  };
  return {
    home,
    async open(options) {
      const session = await openTestSession(options.home ?? home(), {
        definitions: [...options.definitions],
        ...(options.reopen === undefined ? {} : { choice: { kind: "id", id: options.reopen } }),
      });
      sessions.push(session);
      const rig = createPluginRig({ clock: new ManualClock(Date.parse("2026-03-01T10:00:00.000Z")), session });
      rigs.push(rig);
      const key = await rig.installAndEnable(options.dir, options.config);
      const binding = () => rig.manager.binding(key);
      return {
        session,
        rig,
        pluginInstanceId: binding()?.instance.pluginInstanceId ?? "",
        settle: async () => {
          for (let i = 0; i < 3; i++) {
            await binding()?.controllerHost?.idle();
            await session.controller.pipeline.sync();
          }
        },
        store: () => {
          const store = binding()?.resources;
          if (store === undefined) throw new Error("no store");
          return store;
        },
      };
    },
  };
}
