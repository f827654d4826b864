/**
 * What a plugin registered at activation against what its manifest declares (plugins.md §3): commands, controllers
 * and context providers must equal the manifest's lists, a command may not shadow a Baton command, and a controller's
 * type must be one the plugin owns (or Baton's Turn), and its Sources must be valid (REC-06). The first problem, in
 * words, or undefined.
 */
import type { PluginManifest } from "./manifest.ts";
import type { ControllerRegistrationWire, Registration } from "./protocol.ts";
import { cronProblem } from "./resources/cron.ts";
import { parseTypeKey, sameType, TURN_TYPE, typeKey } from "./resources/schema.ts";

export function registrationProblem(
  registrations: readonly Registration[],
  manifest: PluginManifest | undefined,
  reservedCommands: ReadonlySet<string>,
): string | undefined {
  const listed = (manifest?.contributes.commands ?? []).map((c) => c.name).sort();
  const names = registrations.filter((r) => r.type === "command").map((r) => r.name);
  const shadowing = names.filter((name) => reservedCommands.has(name));
  if (shadowing.length > 0) return `command ${shadowing.map((n) => `/${n}`).join(", ")} would shadow a Baton command; rename it`;
  const registered = [...names].sort();
  if (registered.join("\n") !== listed.join("\n")) {
    return `it registered commands [${registered.join(", ")}] but its manifest lists [${listed.join(", ")}] under contributes.commands; they must be equal`;
  }
  const controllers = registrations.filter((r): r is ControllerRegistrationWire => r.type === "controller");
  const listedTypes = (manifest?.contributes.controllers ?? []).map((c) => c.resourceType).sort();
  const registeredTypes = controllers.map((c) => typeKey(c.resourceType)).sort();
  if (registeredTypes.join("\n") !== listedTypes.join("\n")) {
    return `it registered controllers for [${registeredTypes.join(", ")}] but its manifest lists [${listedTypes.join(", ")}] under contributes.controllers; they must be equal`;
  }
  const owned = (manifest?.permissions.resourceTypes ?? []).map(parseTypeKey);
  for (const c of controllers) {
    if (!sameType(c.resourceType, TURN_TYPE) && !owned.some((t) => sameType(t, c.resourceType))) {
      return `its controller for ${typeKey(c.resourceType)} needs that type under permissions.resourceTypes (or Baton's ${typeKey(TURN_TYPE)})`;
    }
    const problem = sourcesProblem(c);
    if (problem !== undefined) return problem;
  }
  const listedKinds = (manifest?.contributes.contextProviders ?? []).map((p) => p.kind).sort();
  const registeredKinds = registrations.flatMap((r) => (r.type === "contextProvider" ? [r.kind] : [])).sort();
  if (registeredKinds.join("\n") !== listedKinds.join("\n")) {
    return `it registered context providers [${registeredKinds.join(", ")}] but its manifest lists [${listedKinds.join(", ")}] under contributes.contextProviders; they must be equal`;
  }
  return undefined;
}

/** REC-06 / RES-06: unique source ids, a valid cron pattern and IANA zone, and no Source for Baton's Turns. */
function sourcesProblem(c: ControllerRegistrationWire): string | undefined {
  const sources = c.sources ?? [];
  const where = `its controller for ${typeKey(c.resourceType)}`;
  if (sources.length > 0 && sameType(c.resourceType, TURN_TYPE)) return `${where} declares Sources; Baton's Turn resources come from the session's turns and take no Source`;
  const seen = new Set<string>();
  for (const source of sources) {
    if (seen.has(source.sourceId)) return `${where} has two Sources with sourceId '${source.sourceId}'`;
    seen.add(source.sourceId);
    if (source.type !== "cron") continue;
    const problem = cronProblem(source);
    if (problem !== undefined) return `${where}, cron Source '${source.sourceId}': ${problem}`;
  }
  return undefined;
}
