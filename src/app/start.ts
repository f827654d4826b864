/** Baton's program: wires the real process into the CLI and exits with its status once the output is out. */
import { runCli } from "./cli.ts";
import { reportError } from "./commands/shared.ts";
import { createProcessIo } from "./process-io.ts";

export async function start(argv: readonly string[]): Promise<void> {
  const { io, exit } = createProcessIo();
  let code: number;
  try {
    code = await runCli(argv, io);
  } catch (error) {
    code = reportError(io, error);
  }
  await exit(code);
}
