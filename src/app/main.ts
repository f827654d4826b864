/**
 * Baton's process entry: runs the prebuilt bundle of Baton's sources when it matches them (src/app/start-bundle.ts,
 * docs/start.md), else the sources themselves. Both export the same `start` (src/app/start.ts).
 */
import { chooseStart } from "./start-bundle.ts";
import type { StartOptions } from "./start.ts";

type Program = { readonly start: (argv: readonly string[], options?: StartOptions) => Promise<void> };

// `baton exec` may start its Codex app-server now, before the rest of Baton loads (codex-prestart.ts).
const prestart = process.argv[2] === "exec" ? (await import("./codex-prestart.ts")).prestartCodex(process.argv.slice(2), process.env, process.cwd()) : undefined;
const choice = chooseStart();
const debug = process.env["BATON_DEBUG_START"] === "1";
let program: Program | undefined;
if (choice.kind === "bundle") {
  try {
    program = (await import(choice.entry)) as Program;
    if (debug) process.stderr.write(`baton: start: bundle ${choice.entry} (${choice.files} files match)\n`);
  } catch (error) {
    // A bundle that cannot load (a file removed by hand, a broken build) costs this start its speed, nothing else.
    if (debug) process.stderr.write(`baton: start: sources (the bundle did not load: ${error instanceof Error ? error.message : String(error)})\n`);
  }
} else if (debug) process.stderr.write(`baton: start: sources (${choice.why})\n`);
program ??= (await import("./start.ts")) as Program;
await program.start(process.argv.slice(2), { prestart });
