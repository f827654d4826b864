/** HAR-02/03: what a harness type is, and the concrete targets built from configuration. */
import type { Capabilities } from "./capabilities.ts";
import type { HarnessAdapter } from "./contract.ts";
import type { HarnessSessionInspector } from "./inspector.ts";
import type { TargetId } from "../shared/ids.ts";
import type { Logger } from "../shared/log.ts";
import type { HarnessSettingsSchema } from "./settings.ts";

/** A configured concrete target (`codex`, `claude`, `codex-work`, …) of one harness type. */
export interface HarnessTarget {
  /** Its name in config, branded here at the door (the registry builds every target). */
  readonly id: TargetId;
  readonly harness: string;
  /** Environment overrides for this target (e.g. CODEX_HOME), applied over the inherited environment. */
  readonly env: Readonly<Record<string, string>>;
  /** The harness's config section merged with the target's own keys; the adapter interprets it. */
  readonly settings: Readonly<Record<string, unknown>>;
}

export interface HarnessCreateContext {
  readonly target: HarnessTarget;
  readonly log: Logger;
  /** Raw wire trace (LOG-03), when the host keeps one: every message in and out, verbatim. */
  readonly trace?: (direction: "in" | "out", message: unknown) => void;
  /** Baton's state directory (`$BATON_HOME/state`) for harness state such as saved hook trust, when the host has one. */
  readonly stateDir?: string;
}

/** How the harness binary would be started, for errors and `baton doctor`. */
export type ExecutableReport =
  | {
      readonly ok: true;
      readonly argv: readonly string[];
      readonly source: string;
      readonly version?: string;
      /** More facts for `baton doctor`, one line each (e.g. what the agent said it can do). */
      readonly details?: readonly string[];
    }
  | { readonly ok: false; readonly searched: readonly string[]; readonly hint: string };

export interface HarnessDefinition {
  /** Canonical id, also the bundled default target id. */
  readonly id: string;
  readonly aliases: readonly string[];
  readonly label: string;
  /** Frozen wire key stamped as `envelope.harness` (e.g. "codex", "claude-code"). */
  readonly sessionKey: string;
  /** Author name and colour key. */
  readonly shortName: string;
  readonly color: string;
  /**
   * The keys this harness accepts in `harnesses.<id>` and in each of its targets (besides `env`, and a target's
   * `harness`, which the registry owns). Config validates against it, so a bad value is a config error with file,
   * line and key, and adding a harness needs no change in src/config.
   */
  readonly settingsSchema: HarnessSettingsSchema;
  /**
   * What this harness's adapters can do, declared without building one: surfaces (`Controller.targets()`) read it
   * before any binding exists. It equals `create(…).capabilities` (the contract suite checks); an adapter that
   * learns its agent's abilities at start may narrow it, and then the live binding's answer is used.
   */
  readonly capabilities: Capabilities;
  /**
   * False for a harness whose targets cannot work unconfigured (ACP: every target is an agent command): then the
   * registry builds no bundled target `<id>`, only the configured ones. Default true.
   */
  readonly bundledTarget?: boolean;
  create(context: HarnessCreateContext): HarnessAdapter;
  /** Resolve the executable without starting a session (doctor, admission errors). */
  probeExecutable(target: HarnessTarget, env: Readonly<Record<string, string>>): Promise<ExecutableReport>;
  /** Reads this harness's own sessions for adoption (NAT-02); absent when it cannot. */
  readonly inspector?: HarnessSessionInspector;
}
