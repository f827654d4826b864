/** `baton logs [bs_id] [--level L] [--component prefix] [--tail N] [--json] [--cwd DIR]` (CLI-06). */
import path from "node:path";
import { createSessionStore, readLogRecords, type LogRecord } from "../../store/index.ts";
import { LOG_LEVELS, levelRank, type LogLevel } from "../../shared/log.ts";
import { BatonError } from "../../shared/errors.ts";
import { systemClock } from "../../shared/clock.ts";
import { terminalJson } from "../../shared/terminal-text.ts";
import { createUlidSource } from "../../shared/ids.ts";
import { batonHome } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { sessionsQuery } from "../open-session.ts";
import { EXIT, parse, reportError, UsageError } from "./shared.ts";

const OPTIONS = {
  level: { type: "string" },
  component: { type: "string" },
  plugin: { type: "string" },
  tail: { type: "string" },
  json: { type: "boolean" },
  cwd: { type: "string" },
} as const;

export async function runLogs(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    const level = (values.level ?? "debug") as LogLevel;
    if (!LOG_LEVELS.includes(level)) throw new UsageError(`--level takes one of ${LOG_LEVELS.join(", ")}, not '${values.level}'`);
    let tail: number | undefined;
    if (values.tail !== undefined) {
      tail = Number(values.tail);
      if (!Number.isInteger(tail) || tail < 0) throw new UsageError(`--tail takes a whole number ≥ 0, not '${values.tail}'`);
    }
    if (positionals.length > 1) throw new UsageError("usage: baton logs [bs_id] [--level L] [--component prefix] [--tail N] [--json]");
    const store = createSessionStore({ home: batonHome(io.env), clock: systemClock, ids: createUlidSource() });
    const cwd = path.resolve(io.cwd, values.cwd ?? ".");
    const ref = positionals[0] ? store.findSession(positionals[0]) : store.listSessions(sessionsQuery(cwd, io.env["HOME"])).sessions[0];
    if (!ref) throw new BatonError("session_not_found", `no sessions for ${cwd} yet`);
    let records = readLogRecords(ref.paths.dir).filter(
      (record) =>
        levelRank(record.level) >= levelRank(level) &&
        (values.component === undefined || record.component.startsWith(values.component)) &&
        (values.plugin === undefined || record.pluginId === values.plugin),
    );
    if (tail !== undefined) records = tail === 0 ? [] : records.slice(-tail);
    for (const record of records) io.stdout.write(values.json ? `${terminalJson(record)}\n` : `${formatRecord(record)}\n`);
    return EXIT.ok;
  } catch (error) {
    return reportError(io, error);
  }
}

export function formatRecord(record: LogRecord): string {
  const plugin = record.pluginId ? ` plugin=${record.pluginId}` : "";
  const target = record.harnessTargetId ? ` target=${record.harnessTargetId}` : "";
  const error = record.error ? ` — ${record.error.name}: ${record.error.message}` : "";
  return `${record.timestamp} ${record.level.toUpperCase().padEnd(5)} ${record.component}${plugin}${target} ${record.message}${error}`;
}
