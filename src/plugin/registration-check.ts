/**
 * What a plugin registered at activation against what its manifest declares (plugins.md §3): commands, controllers
 * and context providers must equal the manifest's lists, a command may not shadow a Baton command, and a controller's
 * type must be one the plugin owns (or Baton's Turn). The first problem, in words, or undefined.
 */
import type { PluginManifest } from "./manifest.ts";
import type { ControllerRegistrationWire, Registration } from "./protocol.ts";
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
  }
  const listedKinds = (manifest?.contributes.contextProviders ?? []).map((p) => p.kind).sort();
  const registeredKinds = registrations.flatMap((r) => (r.type === "contextProvider" ? [r.kind] : [])).sort();
  if (registeredKinds.join("\n") !== listedKinds.join("\n")) {
    return `it registered context providers [${registeredKinds.join(", ")}] but its manifest lists [${listedKinds.join(", ")}] under contributes.contextProviders; they must be equal`;
  }
  return undefined;
}
