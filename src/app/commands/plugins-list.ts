/** `baton plugins list`, `marketplace list` and `logs`: what is installed, enabled and running where. */
import fs from "node:fs";
import type { PluginCatalog } from "../../plugin/catalog.ts";
import { pluginLogFile } from "../../plugin/paths.ts";
import { BatonError } from "../../shared/errors.ts";
import { readLedgerFile, readLogFile } from "../../store/index.ts";
import type { AppContext } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { formatRecord } from "./logs.ts";
import { EXIT, UsageError } from "./shared.ts";

/** Ledgers bigger than this are not scanned for the state column (it shows "?"). */
const MAX_SCAN_BYTES = 32 * 1024 * 1024;

interface Row {
  readonly pluginId: string;
  readonly version: string;
  readonly marketplace: string;
  readonly enabled: boolean;
  readonly state: string;
}

/** The last binding fact of each plugin instance in the latest session of this directory. */
function latestSessionStates(ctx: AppContext): { sessionId: string | undefined; states: Map<string, string> } {
  const states = new Map<string, string>();
  const ref = ctx.store.listSessions({ cwd: ctx.cwd }).sessions[0];
  if (ref === undefined) return { sessionId: undefined, states };
  try {
    if (fs.statSync(ref.paths.ledger).size > MAX_SCAN_BYTES) return { sessionId: ref.batonSessionId, states };
    for (const event of readLedgerFile(ref.paths.ledger)) {
      if (event.kind !== "_baton_plugin_binding_update") continue;
      const p = event.payload as { pluginInstanceId: string; state: string; reason?: { code: string } };
      states.set(p.pluginInstanceId, p.reason === undefined ? p.state : `${p.state} (${p.reason.code})`);
    }
  } catch {
    // an unreadable ledger just leaves the column empty
  }
  return { sessionId: ref.batonSessionId, states };
}

export async function listPlugins(ctx: AppContext, catalog: PluginCatalog, io: CliIo, json: boolean): Promise<number> {
  const installed = await catalog.installed();
  const settings = await catalog.settings.load();
  const { sessionId, states } = latestSessionStates(ctx);
  const rows: Row[] = [];
  const seen = new Set<string>();
  for (const instance of settings.instances) {
    seen.add(instance.key);
    rows.push({ pluginId: instance.pluginId, version: instance.version, marketplace: instance.marketplace, enabled: instance.enabled, state: states.get(instance.pluginInstanceId) ?? "-" });
  }
  for (const v of installed) {
    const key = `${v.pluginId}@${v.marketplace}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const versions = installed.filter((x) => x.pluginId === v.pluginId && x.marketplace === v.marketplace).map((x) => x.version);
    rows.push({ pluginId: v.pluginId, version: versions.join(", "), marketplace: v.marketplace, enabled: false, state: v.problem === undefined ? "-" : "damaged" });
  }
  if (json) {
    io.stdout.write(`${JSON.stringify({ session: sessionId ?? null, plugins: rows })}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.stdout.write("No plugins installed. Install one with: baton plugins install <owner/name | ./dir | file.tgz>\n");
    return EXIT.ok;
  }
  const header = ["PLUGIN", "VERSION", "MARKETPLACE", "ENABLED", sessionId === undefined ? "STATE" : `STATE (${sessionId})`];
  const table = [header, ...rows.map((r) => [r.pluginId, r.version, r.marketplace, r.enabled ? "yes" : "no", r.state])];
  const widths = header.map((_, i) => Math.max(...table.map((row) => (row[i] ?? "").length)));
  for (const row of table) io.stdout.write(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ")}\n`);
  return EXIT.ok;
}

export async function listMarketplaces(catalog: PluginCatalog, io: CliIo, json: boolean): Promise<number> {
  const listings = await catalog.marketplaces.list();
  if (json) {
    io.stdout.write(`${JSON.stringify(listings)}\n`);
    return EXIT.ok;
  }
  if (listings.length === 0) io.stdout.write("No marketplaces registered. Add one with: baton plugins marketplace add <dir>\n");
  for (const m of listings) {
    io.stdout.write(`${m.name}  ${m.source.path}\n`);
    if (m.error !== undefined) io.stdout.write(`  unreadable: ${m.error}\n`);
    for (const p of m.manifest?.plugins ?? []) io.stdout.write(`  ${p.pluginId}  (${p.source})\n`);
  }
  return EXIT.ok;
}

export async function showLogs(catalog: PluginCatalog, io: CliIo, pluginId: string, tailText: string | undefined, json: boolean): Promise<number> {
  let tail: number | undefined;
  if (tailText !== undefined) {
    tail = Number(tailText);
    if (!Number.isInteger(tail) || tail < 0) throw new UsageError(`--tail takes a whole number ≥ 0, not '${tailText}'`);
  }
  const file = pluginLogFile(catalog.paths, pluginId);
  let records = readLogFile(file);
  if (records.length === 0 && !(await catalog.installed()).some((v) => v.pluginId === pluginId)) {
    throw new BatonError("plugin_not_found", `${pluginId} is not installed and has no log`);
  }
  if (tail !== undefined) records = tail === 0 ? [] : records.slice(-tail);
  for (const record of records) io.stdout.write(json ? `${JSON.stringify(record)}\n` : `${record.batonSessionId} ${formatRecord(record)}\n`);
  return EXIT.ok;
}
