/** Baton's process entry: wires the real process into the CLI and exits with its status once the output is out. */
import { runCli } from "./cli.ts";
import { reportError } from "./commands/shared.ts";
import { createProcessIo } from "./process-io.ts";

const { io, exit } = createProcessIo();
let code: number;
try {
  code = await runCli(process.argv.slice(2), io);
} catch (error) {
  code = reportError(io, error);
}
await exit(code);
