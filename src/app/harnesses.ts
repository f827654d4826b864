/** The composition root's choice of harnesses: the only place that names concrete adapters. */
import { acpDefinition } from "../harness/acp/definition.ts";
import { claudeDefinition } from "../harness/claude/definition.ts";
import { codexDefinition } from "../harness/codex/definition.ts";
import { codexInspector } from "../harness/codex/inspector.ts";
import type { HarnessDefinition } from "../harness/definition.ts";

export function builtinDefinitions(): HarnessDefinition[] {
  // The Codex inspector is attached here until codex/definition.ts declares it itself (as claude's does).
  return [{ ...codexDefinition, inspector: codexDefinition.inspector ?? codexInspector }, claudeDefinition, acpDefinition];
}
