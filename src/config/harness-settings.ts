/**
 * The second pass of config validation: `harnesses.<id>` and `targets.<id>` against the settings schema of the
 * harness they name. Config knows harnesses only through this structural spec (a HarnessDefinition is one), so a
 * new harness needs no change here. Problems come back as zod issues with full key paths (load.ts adds the line).
 */
import type { z } from "zod";
import type { BatonConfig } from "./schema.ts";

/** What config needs of a harness to validate its sections. */
export interface HarnessSettingsSpec {
  readonly id: string;
  readonly aliases: readonly string[];
  readonly settingsSchema: z.ZodType<Readonly<Record<string, unknown>>>;
  /** False when the harness has no bundled target of its own id (then a target may take that id). */
  readonly bundledTarget?: boolean;
}

export type ConfigIssue = Pick<z.core.$ZodIssue, "code" | "message"> & { readonly path: readonly PropertyKey[]; readonly keys?: readonly string[] };

export interface HarnessSettingsResult {
  readonly issues: readonly ConfigIssue[];
  /** The sections as the schemas parsed them (env kept beside). */
  readonly harnesses: BatonConfig["harnesses"];
  readonly targets: BatonConfig["targets"];
}

function known(specs: readonly HarnessSettingsSpec[]): string {
  return specs.length === 0 ? "none" : specs.map((spec) => spec.id).join(", ");
}

function custom(path: readonly PropertyKey[], message: string): ConfigIssue {
  return { code: "custom", path, message };
}

/** Parse `own` (the harness's keys) with the spec's schema; issues carry `prefix`. */
function parseOwn(spec: HarnessSettingsSpec, own: Record<string, unknown>, prefix: readonly PropertyKey[], issues: ConfigIssue[]): Record<string, unknown> | undefined {
  const parsed = spec.settingsSchema.safeParse(own);
  if (parsed.success) return { ...parsed.data };
  for (const issue of parsed.error.issues) {
    issues.push({ ...issue, path: [...prefix, ...issue.path], ...("keys" in issue ? { keys: issue.keys } : {}) });
  }
  return undefined;
}

export function validateHarnessSettings(config: BatonConfig, specs: readonly HarnessSettingsSpec[]): HarnessSettingsResult {
  const issues: ConfigIssue[] = [];
  const byId = new Map(specs.map((spec) => [spec.id, spec]));
  const harnesses: Record<string, BatonConfig["harnesses"][string]> = {};
  for (const [id, section] of Object.entries(config.harnesses)) {
    const spec = byId.get(id);
    if (spec === undefined) {
      issues.push(custom(["harnesses", id], `unknown harness (known: ${known(specs)})`));
      continue;
    }
    const { env, ...own } = section;
    const parsed = parseOwn(spec, own, ["harnesses", id], issues);
    if (parsed !== undefined) harnesses[id] = { ...parsed, ...(env === undefined ? {} : { env }) };
  }
  const taken = new Set(specs.flatMap((spec) => [...(spec.bundledTarget === false ? [] : [spec.id]), ...spec.aliases]));
  const targets: Record<string, BatonConfig["targets"][string]> = {};
  for (const [id, entry] of Object.entries(config.targets)) {
    if (taken.has(id.toLowerCase())) {
      issues.push(custom(["targets", id], "the id is already taken by a built-in target or alias; choose another"));
      continue;
    }
    const name = entry.harness.toLowerCase();
    const spec = specs.find((candidate) => candidate.id === name || candidate.aliases.includes(name));
    if (spec === undefined) {
      issues.push(custom(["targets", id, "harness"], `unknown harness '${entry.harness}' (known: ${known(specs)})`));
      continue;
    }
    const { harness, env, ...own } = entry;
    const parsed = parseOwn(spec, own, ["targets", id], issues);
    if (parsed !== undefined) targets[id] = { ...parsed, harness, ...(env === undefined ? {} : { env }) };
  }
  return { issues, harnesses, targets };
}
