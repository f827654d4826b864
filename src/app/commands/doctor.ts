/**
 * `baton doctor`: checks BATON_HOME, the config (and shows where each value came from), the harness
 * executables, and every session's ledger. One line per problem with the file and what to do; exit 1
 * if any problem was found. Warnings (e.g. a harness you may not use) do not fail it.
 */
import fs from "node:fs";
import { formatProblem, loadConfig, type LoadedConfig } from "../../config/load.ts";
import { HarnessRegistry } from "../../harness/registry.ts";
import { createSessionStore, inspectLock } from "../../store/index.ts";
import { checkSession } from "../session-check.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import { systemClock } from "../../shared/clock.ts";
import { createUlidSource } from "../../shared/ids.ts";
import { batonHome } from "../app-context.ts";
import { readOnlyHint } from "../fs-errors.ts";
import type { CliIo } from "../io.ts";
import { EXIT, parse, reportError } from "./shared.ts";

interface Report {
  problems: number;
  warnings: number;
}

export async function runDoctor(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    parse(argv, {});
  } catch (error) {
    return reportError(io, error);
  }
  const report: Report = { problems: 0, warnings: 0 };
  const ok = (text: string) => io.stdout.write(`  ok    ${text}\n`);
  const warn = (text: string) => {
    report.warnings++;
    io.stdout.write(`  warn  ${text}\n`);
  };
  const problem = (text: string) => {
    report.problems++;
    io.stdout.write(`  FAIL  ${text}\n`);
  };

  const home = batonHome(io.env);
  const from = io.relativeHome !== undefined ? ` (from BATON_HOME=${io.relativeHome}, a relative path: resolved against ${io.cwd})` : io.env["BATON_HOME"] ? " (from BATON_HOME)" : " (default)";
  io.stdout.write(`Baton home: ${home}${from}\n`);
  if (io.relativeHome !== undefined) warn(`BATON_HOME=${io.relativeHome} is relative: Baton run from another directory uses another home; set an absolute path`);
  checkHome(home, { ok, warn, problem });

  io.stdout.write("\nConfig:\n");
  const loaded = checkConfig(home, io, { ok, warn, problem });

  io.stdout.write("\nHarnesses:\n");
  await checkHarnesses(io, loaded, { ok, warn, problem });

  io.stdout.write("\nSessions:\n");
  checkSessions(home, { ok, warn, problem });

  io.stdout.write(`\n${report.problems} problem${report.problems === 1 ? "" : "s"}, ${report.warnings} warning${report.warnings === 1 ? "" : "s"}\n`);
  return report.problems > 0 ? EXIT.failed : EXIT.ok;
}

interface Say {
  ok(text: string): void;
  warn(text: string): void;
  problem(text: string): void;
}

function checkHome(home: string, say: Say): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(home);
  } catch {
    say.ok(`${home} does not exist yet; it is created on first use`);
    return;
  }
  if (!stat.isDirectory()) return say.problem(`${home} is not a directory: move it away or set BATON_HOME to another directory`);
  try {
    fs.accessSync(home, fs.constants.W_OK | fs.constants.R_OK);
  } catch (error) {
    if ((error as { code?: unknown }).code === "EROFS") return say.problem(`${home} is on a read-only file system. ${readOnlyHint(home)}`);
    return say.problem(`${home} is not readable and writable by you: fix its permissions (chmod 700 ${home})`);
  }
  if ((stat.mode & 0o077) !== 0) say.warn(`${home} is readable by others (mode ${(stat.mode & 0o777).toString(8)}): chmod 700 ${home}`);
  else say.ok(`${home} is private and writable`);
}

function checkConfig(home: string, io: CliIo, say: Say): LoadedConfig | undefined {
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig(home, io.env, io.definitions);
  } catch (error) {
    for (const line of (error instanceof BatonError ? error.message : describeError(error)).split("\n")) say.problem(line);
    say.problem("fix the value or remove the key to use its default (see README, Configuration)");
    return undefined;
  }
  say.ok(loaded.exists ? `${loaded.path} parsed` : `${loaded.path} not present: defaults apply`);
  for (const warning of loaded.warnings) say.warn(formatProblem(warning));
  for (const [key, value] of Object.entries(loaded.config)) {
    const origin = loaded.origins[key];
    const from = origin?.kind === "file" ? `config.yaml:${origin.line}` : origin?.kind === "env" ? `env ${origin.name}` : "default";
    io.stdout.write(`        ${key} = ${JSON.stringify(value)}  (${from})\n`);
  }
  return loaded;
}

async function checkHarnesses(io: CliIo, loaded: LoadedConfig | undefined, say: Say): Promise<void> {
  let registry: HarnessRegistry;
  try {
    registry = new HarnessRegistry(io.definitions, {
      harnesses: (loaded?.config.harnesses ?? {}) as Record<string, Record<string, unknown>>,
      targets: (loaded?.config.targets ?? {}) as Record<string, Record<string, unknown> & { harness: string }>,
    });
  } catch (error) {
    say.problem(describeError(error));
    return;
  }
  const defaultId = loaded === undefined ? undefined : checkDefaultAgent(registry, loaded, say);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(io.env)) if (value !== undefined) env[key] = value;
  for (const target of registry.listTargets()) {
    const definition = registry.definitionOf(target);
    // The default agent not running is a problem (every new session starts there); another one a warning.
    const isDefault = target.id === defaultId;
    const report = isDefault ? (text: string) => say.problem(`${text} (it is the default agent)`) : (text: string) => say.warn(text);
    try {
      const found = await definition.probeExecutable(target, { ...env, ...target.env });
      if (found.ok) {
        say.ok(`${target.id}: ${found.argv.join(" ")}  (${found.source}${found.version ? `, ${found.version}` : ""})`);
        for (const detail of found.details ?? []) io.stdout.write(`        ${detail}\n`);
      } else report(`${target.id}: not usable (searched ${found.searched.join(", ")}). ${found.hint}`);
    } catch (error) {
      report(`${target.id}: could not check the executable: ${describeError(error)}`);
    }
  }
}

/** `defaultAgent` must name a configured target; the problem names where the value came from (file:line, or env). */
function checkDefaultAgent(registry: HarnessRegistry, loaded: LoadedConfig, say: Say): string | undefined {
  const value = loaded.config.defaultAgent;
  const match = registry.match(value);
  if (match.kind === "match") {
    say.ok(`defaultAgent: ${value}${match.id === value ? "" : ` (target ${match.id})`}: new sessions start there`);
    return match.id;
  }
  const origin = loaded.origins["defaultAgent"];
  const where = origin?.kind === "file" ? `${loaded.path}:${origin.line}: defaultAgent` : origin?.kind === "env" ? `environment ${origin.name} (defaultAgent)` : "defaultAgent";
  const why = match.kind === "ambiguous" ? `'${value}' matches more than one target (${match.matches.join(", ")})` : `unknown target '${value}'`;
  say.problem(`${where}: ${why}. ${registry.describeKnown()}; set it to one of them`);
  return undefined;
}

function checkSessions(home: string, say: Say): void {
  const store = createSessionStore({ home, clock: systemClock, ids: createUlidSource() });
  let listing;
  try {
    listing = store.listSessions({ all: true });
  } catch (error) {
    say.problem(`cannot list sessions: ${describeError(error)}`);
    return;
  }
  for (const skipped of listing.problems) say.problem(`${skipped.path}: ${skipped.message} — the session is skipped; fix or move its meta.json`);
  let clean = 0;
  for (const ref of listing.sessions) {
    // The same checks opening the session runs: doctor fails exactly the sessions open refuses.
    const findings = checkSession(store, ref);
    for (const found of findings) (found.fatal ? say.problem : say.warn)(`${found.where}: ${found.message} — ${found.action}`);
    const lock = inspectLock(ref.paths.lock);
    if (lock && !lock.alive) say.warn(`${ref.paths.lock}: stale lock from pid ${lock.owner.pid}; it is taken over on next open`);
    if (findings.length === 0) clean++;
  }
  say.ok(`${clean} of ${listing.sessions.length} session ledger${listing.sessions.length === 1 ? "" : "s"} clean`);
}
