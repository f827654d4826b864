/** `baton exec`'s options: its own parse and the Codex prestart's (src/app/codex-prestart.ts, before Baton loads) read the same table. */
export const EXEC_OPTIONS = {
  agent: { type: "string", short: "a" },
  cwd: { type: "string" },
  session: { type: "string", short: "s" },
  continue: { type: "boolean", short: "c" },
  approve: { type: "string" },
  json: { type: "boolean" },
  model: { type: "string" },
  effort: { type: "string" },
  timeout: { type: "string" },
} as const;
