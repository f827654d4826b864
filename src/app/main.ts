/** Baton's process entry: wires the real process into the CLI and exits with its status. */
import { runCli } from "./cli.ts";
import { builtinDefinitions } from "./harnesses.ts";
import { lineSource, type CliIo } from "./io.ts";

const interruptListeners = new Set<() => void>();
let interrupts = 0;
process.on("SIGINT", () => {
  interrupts++;
  if (interruptListeners.size === 0 || interrupts > 2) process.exit(130);
  for (const listener of [...interruptListeners]) listener();
});

const io: CliIo = {
  stdout: { write: (text) => void process.stdout.write(text), isTTY: process.stdout.isTTY === true },
  stderr: { write: (text) => void process.stderr.write(text), isTTY: process.stderr.isTTY === true },
  stdin: lineSource(process.stdin),
  stdinIsTTY: process.stdin.isTTY === true,
  env: process.env,
  cwd: process.cwd(),
  onInterrupt(listener) {
    interruptListeners.add(listener);
    return () => interruptListeners.delete(listener);
  },
  definitions: builtinDefinitions(),
};

const code = await runCli(process.argv.slice(2), io);
process.exit(code);
