/** `baton` with no command: the terminal UI. It needs a real terminal. */
import type { CliIo } from "../io.ts";
import { EXIT } from "./shared.ts";
import { runRepl } from "./repl.ts";

export async function runTuiCommand(argv: readonly string[], io: CliIo): Promise<number> {
  if (!io.stdout.isTTY || !io.stdinIsTTY) {
    io.stderr.write("baton: the terminal UI requires a real terminal (TTY). For scripts use 'baton exec' or 'baton repl'.\n");
    return EXIT.failed;
  }
  // Interim: the full-screen UI is being built; the line-oriented loop serves until it lands.
  return runRepl(argv.filter((arg) => arg !== "tui"), io);
}
