/** The composition root's choice of harnesses: the only place that names concrete adapters. */
import { acpDefinition } from "../harness/acp/definition.ts";
import { claudeDefinition } from "../harness/claude/definition.ts";
import { codexDefinition } from "../harness/codex/definition.ts";
import type { HarnessDefinition } from "../harness/definition.ts";
import type { HarnessSessionInspector } from "../harness/inspector.ts";

/** Codex's native-session reader, loaded on first use (its module is not needed for the first frame). */
const codexInspector: HarnessSessionInspector = {
  probe: async (id, context) => (await import("../harness/codex/inspector.ts")).codexInspector.probe(id, context),
  read: async (id, context) => (await import("../harness/codex/inspector.ts")).codexInspector.read(id, context),
};

export function builtinDefinitions(): HarnessDefinition[] {
  // The Codex inspector is attached here until codex/definition.ts declares it itself (as claude's does).
  return [{ ...codexDefinition, inspector: codexDefinition.inspector ?? codexInspector }, claudeDefinition, acpDefinition];
}
