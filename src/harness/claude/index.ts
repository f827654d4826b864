/** The Claude Code harness: its definition for the registry, and the adapter for tests and wiring. */
export { claudeDefinition } from "./definition.ts";
export { ClaudeAdapter, type ClaudeAdapterOptions } from "./adapter.ts";
export type { ClaudeTrace } from "./session.ts";
export { bundledClaudePath, probeClaudeExecutable, resolveClaudeExecutable } from "./executable.ts";
