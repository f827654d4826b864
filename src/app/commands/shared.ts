/** Small helpers shared by the CLI commands: parsing, errors as one line, exit codes. */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { BatonError, describeError } from "../../shared/errors.ts";
import { batonHome } from "../app-context.ts";
import { describeFsError } from "../fs-errors.ts";
import type { CliIo } from "../io.ts";

export const EXIT = { ok: 0, failed: 1, usage: 2, timedOut: 124, interrupted: 130 } as const;

export class UsageError extends Error {}

export type Parsed<T extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

export function parse<const T extends ParseArgsOptionsConfig>(argv: readonly string[], options: T): Parsed<T> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(describeError(error).replace(/^TypeError \[[A-Z_]+\]: /, ""));
  }
}

/** Print an error as one line (plus a hint) and return the exit code it deserves. */
export function reportError(io: CliIo, error: unknown): number {
  if (error instanceof UsageError) {
    io.stderr.write(`baton: ${error.message}\nRun 'baton help' for usage.\n`);
    return EXIT.usage;
  }
  const fsError = describeFsError(error, batonHome(io.env));
  if (fsError !== undefined) {
    io.stderr.write(`baton: ${fsError.message}\n  ${fsError.hint}\n`);
    return EXIT.failed;
  }
  if (error instanceof BatonError) {
    io.stderr.write(`baton: ${error.message}\n`);
    if (error.hint) io.stderr.write(`  ${error.hint}\n`);
    const usage = ["usage", "config_invalid", "target_unknown", "target_ambiguous", "session_not_found", "session_id_invalid", "session_ambiguous", "project_mismatch"];
    return usage.includes(error.code) ? EXIT.usage : EXIT.failed;
  }
  io.stderr.write(`baton: unexpected error: ${describeError(error)}\n`);
  if (error instanceof Error && error.stack) io.stderr.write(`${error.stack.split("\n").slice(1, 6).join("\n")}\n`);
  return EXIT.failed;
}

export function sessionChoiceFrom(values: { session?: string | undefined; continue?: boolean | undefined }):
  | { kind: "new" }
  | { kind: "continue" }
  | { kind: "id"; id: string } {
  if (values.session !== undefined && values.continue) throw new UsageError("--session and --continue cannot be used together");
  if (values.session !== undefined) return { kind: "id", id: values.session };
  if (values.continue) return { kind: "continue" };
  return { kind: "new" };
}
