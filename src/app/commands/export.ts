/** `baton export <bs_id> [--format md|json]`: the reduced transcript, read-only (no lock, no writes). */
import { createSessionStore, loadState } from "../../store/index.ts";
import { initialState, plainState } from "../../projection/index.ts";
import { systemClock } from "../../shared/clock.ts";
import { terminalJson } from "../../shared/terminal-text.ts";
import { createUlidSource } from "../../shared/ids.ts";
import { batonHome } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { projectionFold } from "../open-session.ts";
import { displayTitle } from "../../store/display.ts";
import { transcriptMarkdown } from "../transcript-markdown.ts";
import { EXIT, parse, reportError, UsageError } from "./shared.ts";

const OPTIONS = { format: { type: "string", short: "f" } } as const;

export async function runExport(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    const format = values.format ?? "md";
    if (format !== "md" && format !== "json") throw new UsageError(`--format takes 'md' or 'json', not '${format}'`);
    const id = positionals[0];
    if (!id || positionals.length > 1) throw new UsageError("usage: baton export <bs_id> [--format md|json]");
    const store = createSessionStore({ home: batonHome(io.env), clock: systemClock, ids: createUlidSource() });
    const ref = store.findSession(id);
    const ledger = store.openLedger(ref, { readOnly: true });
    try {
      // A read-only fold: the checkpoint is used when valid but never written from here.
      const { state } = loadState(ledger, { ...projectionFold, initial: () => initialState(ref.batonSessionId) });
      if (format === "json") {
        io.stdout.write(`${terminalJson({ meta: ref.meta, projection: plainState(state) })}\n`);
      } else {
        io.stdout.write(transcriptMarkdown(state, { title: displayTitle(ref.meta), batonSessionId: ref.batonSessionId, cwd: ref.meta.cwd, createdAt: ref.meta.createdAt }));
      }
      return EXIT.ok;
    } finally {
      await ledger.close();
    }
  } catch (error) {
    return reportError(io, error);
  }
}
