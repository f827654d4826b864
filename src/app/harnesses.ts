/** The composition root's choice of harnesses: the only place that names concrete adapters. */
import { acpDefinition } from "../harness/acp/definition.ts";
import { claudeDefinition } from "../harness/claude/definition.ts";
import { codexDefinition, createCodexDefinition } from "../harness/codex/definition.ts";
import { resolveCodexCommand } from "../harness/codex/executable.ts";
import type { CodexPrelaunch } from "../harness/codex/prelaunch.ts";
import type { HarnessDefinition, HarnessTarget } from "../harness/definition.ts";
import type { HarnessSessionInspector } from "../harness/inspector.ts";
import type { Clock } from "../shared/clock.ts";

/** Codex's native-session reader, loaded on first use (its module is not needed for the first frame). */
const codexInspector: HarnessSessionInspector = {
  probe: async (id, context) => (await import("../harness/codex/inspector.ts")).codexInspector.probe(id, context),
  read: async (id, context) => (await import("../harness/codex/inspector.ts")).codexInspector.read(id, context),
};

export function builtinDefinitions(): HarnessDefinition[] {
  // The Codex inspector is attached here until codex/definition.ts declares it itself (as claude's does).
  return [{ ...codexDefinition, inspector: codexDefinition.inspector ?? codexInspector }, claudeDefinition, acpDefinition];
}

/**
 * A one-turn run's harness prelaunch (`baton exec`): the target's process is started as soon as the target is
 * known, beside the session open, and the adapter adopts it when it is exactly the process it would start.
 * Only Codex's adapter adopts one today; for other targets `start` does nothing.
 */
export interface HarnessPrelaunch {
  /** The definitions to build the run's registry from (the built-in Codex one looks in this prelaunch first). */
  readonly definitions: readonly HarnessDefinition[];
  /** Start `target`'s process for a session in `cwd` with the run's environment (the target's overrides are applied here, as a binding does). */
  start(target: HarnessTarget, launch: { readonly env: Readonly<Record<string, string>>; readonly cwd: string; readonly clock: Clock }): Promise<void>;
  /** Stop and reap whatever was prelaunched and not adopted. Call it once the run is done, on every path. */
  release(): Promise<void>;
}

export function harnessPrelaunch(definitions: readonly HarnessDefinition[]): HarnessPrelaunch {
  let codex: CodexPrelaunch | undefined;
  let released = false;
  const codexWithPrelaunch = createCodexDefinition(() => codex);
  // Only the built-in definition is swapped (tests' fakes and other harnesses stay as they are).
  const swapped = definitions.map((definition) => (definition.create === codexDefinition.create ? { ...definition, create: codexWithPrelaunch.create } : definition));
  return {
    definitions: swapped,
    async start(target, launch) {
      if (released || !swapped.some((definition) => definition.id === target.harness && definition.create === codexWithPrelaunch.create)) return;
      const env = { ...launch.env, ...target.env };
      const report = resolveCodexCommand(target.settings, env);
      // Not found: the open reports it as it always does.
      if (!report.ok) return;
      const [{ CodexPrelaunch }, { CLIENT_VERSION }] = await Promise.all([import("../harness/codex/prelaunch.ts"), import("../harness/codex/app-server.ts")]);
      if (released) return;
      codex ??= new CodexPrelaunch();
      codex.start({ argv: report.argv, cwd: launch.cwd, env, clientVersion: CLIENT_VERSION }, launch.clock);
    },
    async release() {
      released = true;
      await codex?.release();
    },
  };
}
