/** `baton inbox [--json]` (#20.2): the sessions of every project that wait for you, newest first (see ../inbox.ts). */
import { createSessionStore } from "../../store/index.ts";
import { systemClock } from "../../shared/clock.ts";
import { createUlidSource } from "../../shared/ids.ts";
import { terminalJson } from "../../shared/terminal-text.ts";
import { batonHome } from "../app-context.ts";
import { readInbox } from "../inbox.ts";
import type { CliIo } from "../io.ts";
import { EXIT, parse, reportError, UsageError } from "./shared.ts";

const OPTIONS = { json: { type: "boolean" } } as const;

export async function runInbox(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const store = createSessionStore({ home: batonHome(io.env), clock: systemClock, ids: createUlidSource() });
    const rows = readInbox(store, { onProblem: (file, message) => io.stderr.write(`baton: skipped ${file}: ${message}\n`) });
    if (values.json) {
      io.stdout.write(`${terminalJson(rows, 2)}\n`);
      return EXIT.ok;
    }
    if (rows.length === 0) {
      io.stdout.write("Nothing waits for you.\n");
      return EXIT.ok;
    }
    for (const row of rows) io.stdout.write(`@${row.id}  ${row.project}  [${row.agent ?? "-"}]  ${row.title}  — ${row.summary}\n`);
    io.stdout.write("\nOpen one in its directory with: baton --cwd <project> -s <id>  (or /inbox in the terminal UI)\n");
    return EXIT.ok;
  } catch (error) {
    return reportError(io, error);
  }
}
