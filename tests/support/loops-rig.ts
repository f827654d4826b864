/**
 * The loops fixture (tests/fixtures/plugins/loops) installed and enabled in a real runner, with the Manager on a
 * manual clock (requeue, backoff and cron timers move only when the test says so; the runner and its supervisor
 * run in real time), for the e2e tests of controllers and Sources. Its Task controller writes one line per
 * reconcile to reconciles.log in the instance's data dir: "<name> gen=<g>[ terminating] mode=<m>".
 * `loopsRigs()` registers the test file's afterEach (the rigs close).
 */
import { afterEach } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ResourceStore } from "../../src/plugin/resources/store.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { createPluginRig, LOOPS_DIR, type PluginRig } from "./plugin-rig.ts";

export interface LoopsRig {
  readonly rig: PluginRig;
  readonly clock: ManualClock;
  readonly key: string;
  readonly pluginInstanceId: string;
  /** The binding's resource store (throws while there is no binding). */
  readonly store: ResourceStore;
  /** Reconcile lines so far, of the Task `name` only when given. */
  runs(name?: string): string[];
  /** Wait until every controller queue is idle (a few rounds: one reconcile starts another). */
  settle(): Promise<void>;
}

export interface LoopsRigOptions {
  /** The fixture's plugin config (its Task controller's Sources, the Turn controller's mode). */
  readonly config?: unknown;
  /** Where the manual clock starts (ISO). */
  readonly start?: string;
}

export interface LoopsRigs {
  /** A rig with the loops fixture installed and enabled. */
  open(options?: LoopsRigOptions): Promise<LoopsRig>;
  /** A rig with nothing installed yet (closed after the test too), e.g. for an activation that must fail. */
  bare(): PluginRig;
}

export function loopsRigs(): LoopsRigs {
  let rigs: PluginRig[] = [];
  afterEach(async () => {
    for (const rig of rigs) await rig.close();
    rigs = [];
  });
  const bare = (options: { readonly clock?: ManualClock } = {}): PluginRig => {
    const rig = createPluginRig(options);
    rigs.push(rig);
    return rig;
  };
  const open = async (options: LoopsRigOptions = {}): Promise<LoopsRig> => {
    const clock = new ManualClock(Date.parse(options.start ?? "2026-03-01T10:00:00.000Z"));
    const rig = bare({ clock });
    const key = await rig.installAndEnable(LOOPS_DIR, options.config);
    const binding = () => rig.manager.binding(key);
    const pluginInstanceId = binding()?.instance.pluginInstanceId ?? "";
    const log = path.join(rig.root, "session", "plugins", "baton-test%2Floops", pluginInstanceId, "reconciles.log");
    return {
      rig,
      clock,
      key,
      pluginInstanceId,
      get store() {
        const store = binding()?.resources;
        if (store === undefined) throw new Error("no store");
        return store;
      },
      runs: (name) => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []).filter((line) => name === undefined || line.startsWith(`${name} `)),
      settle: async () => {
        for (let i = 0; i < 3; i++) await binding()?.controllerHost?.idle();
      },
    };
  };
  return { open, bare: () => bare() };
}
