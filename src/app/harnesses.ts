/** The composition root's choice of harnesses: the only place that names concrete adapters. */
import { claudeDefinition } from "../harness/claude/definition.ts";
import { codexDefinition } from "../harness/codex/definition.ts";
import type { HarnessDefinition } from "../harness/definition.ts";

export function builtinDefinitions(): HarnessDefinition[] {
  return [codexDefinition, claudeDefinition];
}
