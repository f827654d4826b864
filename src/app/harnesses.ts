/** The composition root's choice of harnesses: the only place that names concrete adapters. */
import { acpDefinition } from "../harness/acp/definition.ts";
import { claudeDefinition } from "../harness/claude/definition.ts";
import { codexDefinition, createCodexDefinition } from "../harness/codex/definition.ts";
import { resolveCodexCommand } from "../harness/codex/executable.ts";
import type { CodexPrelaunch } from "../harness/codex/prelaunch.ts";
import type { CodexPrestart } from "./codex-prestart.ts";
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
  /**
   * Stop and reap whatever was prelaunched and not adopted, and leave the next run's prestart the launch this run's
   * session used. Call it once the run is done, on every path.
   */
  release(): Promise<void>;
}

/** `prestart`: the app-server the entry started (src/app/codex-prestart.ts): taken when it is exactly the launch, else stopped. */
export function harnessPrelaunch(definitions: readonly HarnessDefinition[], prestart?: CodexPrestart): HarnessPrelaunch {
  let codex: CodexPrelaunch | undefined;
  let released = false;
  /** The launch the next run's prestart should start (argv undefined: none), written when this run ends. */
  let next: { readonly argv: readonly string[] | undefined } | undefined;
  const codexWithPrelaunch = createCodexDefinition(() => codex);
  // Only the built-in definition is swapped (tests' fakes and other harnesses stay as they are).
  const swapped = definitions.map((definition) => (definition.create === codexDefinition.create ? { ...definition, create: codexWithPrelaunch.create } : definition));
  return {
    definitions: swapped,
    async start(target, launch) {
      const codexTarget = swapped.some((definition) => definition.id === target.harness && definition.create === codexWithPrelaunch.create);
      const env = { ...launch.env, ...target.env };
      const report = codexTarget ? resolveCodexCommand(target.settings, env) : undefined;
      // The next run's prestart: only a launch in the user's own environment (the memo holds no environment).
      next = { argv: report?.ok === true && Object.keys(target.env).length === 0 ? report.argv : undefined };
      // Not found: the open reports it as it always does.
      if (released || report?.ok !== true) return void prestart?.discard();
      const [{ CodexPrelaunch }, { CLIENT_VERSION }] = await Promise.all([import("../harness/codex/prelaunch.ts"), import("../harness/codex/app-server.ts")]);
      // The process the entry started, when it is exactly this launch; any other is stopped (the run then reaps it).
      const started = released ? undefined : prestart?.take({ argv: report.argv, cwd: launch.cwd, env });
      if (started === undefined) void prestart?.discard();
      if (released) return;
      codex ??= new CodexPrelaunch();
      codex.start({ argv: report.argv, cwd: launch.cwd, env, clientVersion: CLIENT_VERSION }, launch.clock, started);
    },
    async release() {
      released = true;
      await Promise.all([codex?.release(), prestart?.discard()]);
      // Remembered only once a session of this run used the launch (a run that failed before it is no evidence).
      if (next !== undefined && (next.argv === undefined || codex?.adopted === true)) prestart?.remember(next.argv);
    },
  };
}
