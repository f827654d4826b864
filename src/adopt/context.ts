/**
 * What adoption needs from the composition root: Baton's home (the cross-process native-session lock lives
 * there), the invoking directory, the session store, the harness registry (targets and their inspectors),
 * the clock, the id source and the environment handed to harness processes. `AppContext` is one.
 */
import type { HarnessRegistry } from "../harness/registry.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdSource } from "../shared/ids.ts";
import type { SessionStore } from "../store/index.ts";

export interface AdoptContext {
  readonly home: string;
  readonly cwd: string;
  readonly store: SessionStore;
  readonly registry: HarnessRegistry;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** The environment handed to harness processes (an inspector may run the agent's own CLI). */
  readonly childEnv: Readonly<Record<string, string>>;
}
