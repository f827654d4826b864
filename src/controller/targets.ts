/**
 * The configured targets as surfaces see them (`Controller.targets()`): identity, look, aliases and what each
 * can do. Read-only: nothing here builds an adapter, starts a process or creates a binding, so a render may
 * call it freely. Capabilities are the harness definition's declaration until a binding exists; then they are
 * the live adapter's (an agent that reports what it can do at start may narrow them).
 */
import { declares, type Capabilities } from "../harness/capabilities.ts";
import type { HarnessAdapter } from "../harness/contract.ts";
import type { HarnessRegistry } from "../harness/registry.ts";
import type { TargetMatch } from "../harness/target-refs.ts";
import type { TargetId } from "../shared/ids.ts";

export type { TargetMatch } from "../harness/target-refs.ts";

export interface TargetInfo {
  readonly id: TargetId;
  /** The harness definition id: a key, never branched on by surfaces. */
  readonly harness: string;
  /** The definition's label for a built-in target, the target id for an extra one. */
  readonly label: string;
  /** Author name on the timeline: the definition's short name for a built-in target, else the target id. */
  readonly author: string;
  readonly color: string;
  /** The definition's aliases for a built-in target; none for extra targets. */
  readonly aliases: readonly string[];
  readonly capabilities: Capabilities;
  /** Model, effort and mode can be read and set (`/model`, `/effort`, `/plan`). */
  readonly canConfigure: boolean;
  /** Native compaction can run (`/compact`). */
  readonly canCompact: boolean;
  /** A harness process is up for this target in this session (its binding is open). */
  readonly running: boolean;
}

/** What a binding tells the directory about its target: the adapter's capabilities and whether it is open. */
export interface LiveTarget {
  readonly adapter: Pick<HarnessAdapter, "capabilities">;
  readonly isOpen: boolean;
}

export class TargetDirectory {
  constructor(
    private readonly registry: HarnessRegistry,
    private readonly live: (targetId: TargetId) => LiveTarget | undefined = () => undefined,
  ) {}

  /** Every configured target, in registry order. */
  list(): TargetInfo[] {
    return this.registry.listTargets().map((target) => this.info(target.id));
  }

  /** Whether a name (typed, stored, or named by a plugin) is a configured target: the door that brands it. */
  has(targetId: string): targetId is TargetId {
    return this.registry.hasTarget(targetId);
  }

  /** The target with this exact id, or undefined for an id that is not (or no longer) configured. */
  get(targetId: string): TargetInfo | undefined {
    return this.registry.hasTarget(targetId) ? this.info(targetId) : undefined;
  }

  /** Resolve what a user typed (an id, an alias, a unique prefix; any case) to one target, or say why not. */
  match(ref: string): TargetMatch {
    return this.registry.match(ref);
  }

  private info(targetId: TargetId): TargetInfo {
    const target = this.registry.target(targetId);
    const definition = this.registry.definitionOf(target);
    const builtin = target.id === target.harness;
    const live = this.live(target.id);
    const capabilities = live?.adapter.capabilities ?? definition.capabilities;
    return {
      id: target.id,
      harness: target.harness,
      label: builtin ? definition.label : target.id,
      author: builtin ? definition.shortName : target.id,
      color: definition.color,
      aliases: builtin ? definition.aliases : [],
      capabilities,
      canConfigure: declares(capabilities, "config"),
      canCompact: declares(capabilities, "compact"),
      running: live?.isOpen === true,
    };
  }
}
