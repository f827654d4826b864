/** The harness registry (HAR-01..03): definitions by id, targets built from configuration, fail-closed lookup. */
import { BatonError } from "../shared/errors.ts";
import { targetIdOf, type TargetId } from "../shared/ids.ts";
import type { HarnessDefinition, HarnessTarget } from "./definition.ts";
import { matchTargetRef, type TargetMatch } from "./target-refs.ts";

export interface TargetConfigInput {
  /** Per-harness settings sections (e.g. `harnesses.codex`). */
  readonly harnesses: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;
  /** Extra targets: id → { harness, env?, …harness settings }. */
  readonly targets: Readonly<Record<string, Readonly<Record<string, unknown>> & { readonly harness: string }>>;
}

export class HarnessRegistry {
  private readonly definitions = new Map<string, HarnessDefinition>();
  private readonly targets = new Map<string, HarnessTarget>();

  constructor(definitions: readonly HarnessDefinition[], config: TargetConfigInput = { harnesses: {}, targets: {} }) {
    for (const definition of definitions) {
      if (this.definitions.has(definition.id)) throw new BatonError("internal", `harness '${definition.id}' registered twice`);
      this.definitions.set(definition.id, definition);
      if (definition.bundledTarget === false) continue;
      const settings = config.harnesses[definition.id] ?? {};
      this.targets.set(definition.id, { id: targetIdOf(definition.id), harness: definition.id, env: envOf(settings), settings: withoutEnv(settings) });
    }
    for (const [id, entry] of Object.entries(config.targets)) {
      const definition = this.resolveHarnessName(entry.harness);
      if (!definition) {
        throw new BatonError("config_invalid", `targets.${id}.harness: unknown harness '${entry.harness}' (known: ${this.harnessIds().join(", ")})`);
      }
      const key = id.toLowerCase();
      if (this.targets.has(key) || this.aliasOwner(key)) {
        throw new BatonError("config_invalid", `targets.${id}: the id is already taken by a built-in target or alias`);
      }
      const base = config.harnesses[definition.id] ?? {};
      const { harness: _harness, ...own } = entry;
      const settings = { ...base, ...own };
      this.targets.set(key, { id: targetIdOf(key), harness: definition.id, env: envOf(settings), settings: withoutEnv(settings) });
    }
  }

  harnessIds(): string[] {
    return [...this.definitions.keys()];
  }

  listDefinitions(): HarnessDefinition[] {
    return [...this.definitions.values()];
  }

  listTargets(): HarnessTarget[] {
    return [...this.targets.values()];
  }

  definition(harnessId: string): HarnessDefinition {
    const found = this.definitions.get(harnessId);
    if (!found) throw new BatonError("target_unknown", `unknown harness '${harnessId}'`);
    return found;
  }

  definitionOf(target: HarnessTarget): HarnessDefinition {
    return this.definition(target.harness);
  }

  /** Resolve what a user typed (`cc`, `Claude`, `cla`, `codex-work`) to one target, or explain why not. */
  match(ref: string): TargetMatch {
    return matchTargetRef(ref, this.refEntries());
  }

  /** Fail-closed resolution: unknown or ambiguous refs throw before anything starts. */
  resolve(ref: string): HarnessTarget {
    const result = this.match(ref);
    if (result.kind === "match") return this.target(result.id);
    throw this.refError(ref, result);
  }

  /** Exact target id lookup (ids stored in ledgers and meta). */
  target(id: string): HarnessTarget {
    const found = this.targets.get(id);
    if (!found) throw new BatonError("target_unknown", `unknown target '${id}'. ${this.describeKnown()}`);
    return found;
  }

  /** A configured target's id (what a ledger, meta or a command line names): the door that brands it. */
  hasTarget(id: string): id is TargetId {
    return this.targets.has(id);
  }

  describeKnown(): string {
    return `Known targets: ${this.refEntries()
      .map((entry) => (entry.aliases.length ? `${entry.id} (${entry.aliases.join(", ")})` : entry.id))
      .join(", ")}`;
  }

  refError(ref: string, result: Exclude<TargetMatch, { kind: "match" }>): BatonError {
    if (result.kind === "ambiguous") {
      return new BatonError("target_ambiguous", `'${ref}' matches more than one target: ${result.matches.join(", ")}`);
    }
    return new BatonError("target_unknown", `unknown target '${ref}'. ${this.describeKnown()}`);
  }

  private refEntries(): { id: TargetId; aliases: readonly string[] }[] {
    return [...this.targets.values()].map((target) => ({
      id: target.id,
      aliases: target.id === target.harness ? (this.definitions.get(target.harness)?.aliases ?? []) : [],
    }));
  }

  private resolveHarnessName(name: string): HarnessDefinition | undefined {
    const lowered = name.toLowerCase();
    for (const definition of this.definitions.values()) {
      if (definition.id === lowered || definition.aliases.includes(lowered)) return definition;
    }
    return undefined;
  }

  private aliasOwner(alias: string): HarnessDefinition | undefined {
    for (const definition of this.definitions.values()) if (definition.aliases.includes(alias)) return definition;
    return undefined;
  }
}

function envOf(settings: Readonly<Record<string, unknown>>): Readonly<Record<string, string>> {
  const env = settings["env"];
  return typeof env === "object" && env !== null ? (env as Record<string, string>) : {};
}

function withoutEnv(settings: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const { env: _env, ...rest } = settings;
  return rest;
}
