/** Baton's program: wires the real process into the CLI and exits with its status once the output is out. */
import { runCli } from "./cli.ts";
import type { CodexPrestart } from "./codex-prestart.ts";
import { reportError } from "./commands/shared.ts";
import { withIo } from "./io.ts";
import { createProcessIo } from "./process-io.ts";

export interface StartOptions {
  /** `baton exec`'s Codex app-server, started by the entry before Baton loaded (codex-prestart.ts): stopped here unless taken. */
  readonly prestart?: CodexPrestart | undefined;
}

export async function start(argv: readonly string[], options: StartOptions = {}): Promise<void> {
  const { io, exit } = createProcessIo();
  const prestart = options.prestart;
  let code: number;
  try {
    code = await runCli(argv, prestart === undefined ? io : withIo(io, { prestart }));
  } catch (error) {
    code = reportError(io, error);
  }
  await prestart?.discard();
  await exit(code);
}
