/**
 * `baton plugins …` (plugins.md §6): marketplaces, install, enable (with consent), disable, remove, list,
 * restart, logs. Installing runs npm as async children with timeouts; nothing here runs a plugin except
 * `restart`, which starts it once outside any session to check that it activates.
 */
import { TargetDirectory } from "../../controller/targets.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parsePluginRef, type ConsentRequest } from "../../plugin/catalog.ts";
import { PluginManager } from "../../plugin/manager.ts";
import { BatonError } from "../../shared/errors.ts";
import { systemClock } from "../../shared/clock.ts";
import { createSessionLog } from "../../store/session-log.ts";
import { reservedCommandNames } from "../../tui/index.ts";
import { createAppContext, type AppContext } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { createCatalog } from "../plugins.ts";
import { listPlugins, listMarketplaces, showLogs } from "./plugins-list.ts";
import { EXIT, parse, reportError, UsageError } from "./shared.ts";

const OPTIONS = {
  marketplace: { type: "string", short: "m" },
  bundled: { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  json: { type: "boolean" },
  tail: { type: "string" },
  cwd: { type: "string" },
  root: { type: "string" },
} as const;

export const PLUGINS_USAGE = `usage: baton plugins <command>
  marketplace add <dir> | remove <name> | list      register a local marketplace (referenced in place)
  install <owner/name>[@version] | <dir> | <file.tgz> [--marketplace M]
  install --bundled                                 the plugins that ship with Baton
  enable <owner/name>[@version] [--yes]            shows its permissions and asks for consent
  disable | remove | restart | logs <owner/name>
  list [--json]                                     id, version, marketplace, enabled, state in the latest session`;

function one(positionals: readonly string[], what: string): string {
  const [only, ...rest] = positionals;
  if (only === undefined || rest.length > 0) throw new UsageError(`expected one ${what}\n${PLUGINS_USAGE}`);
  return only;
}

/** The terminal consent: the permissions, the warning, then y/N (or --yes); non-interactive needs --yes. */
function consentPrompt(io: CliIo, yes: boolean): (request: ConsentRequest) => Promise<boolean> {
  return async (request) => {
    const lines = request.growth === undefined ? request.lines : request.growth;
    io.stdout.write(`${request.pluginId} ${request.version} (${request.marketplace}) ${request.growth === undefined ? "asks to" : "now asks for more"}:\n`);
    for (const line of lines) io.stdout.write(`  • ${line}\n`);
    io.stdout.write(`${request.warning}\n`);
    if (yes) return true;
    if (!io.stdinIsTTY) {
      throw new BatonError("plugin_consent", `${request.pluginId} was not enabled: consent is needed and there is no terminal to ask`, {
        hint: "Read the permissions above, then rerun with --yes.",
      });
    }
    io.stdout.write("Enable it? [y/N] ");
    const answer = ((await io.stdin.next()) ?? "").trim().toLowerCase();
    return answer === "y" || answer === "yes";
  };
}

async function marketplace(ctx: AppContext, io: CliIo, args: readonly string[], json: boolean): Promise<number> {
  const catalog = createCatalog(ctx);
  const [verb, ...rest] = args;
  if (verb === "add") {
    const dir = path.resolve(io.cwd, one(rest, "marketplace directory"));
    const { entry, added, manifest } = await catalog.marketplaces.add(dir);
    io.stdout.write(added ? `Added marketplace ${entry.name} (${manifest.plugins.length} plugin${manifest.plugins.length === 1 ? "" : "s"}) from ${entry.source.path}\n` : `Marketplace ${entry.name} is already registered from ${entry.source.path}\n`);
    return EXIT.ok;
  }
  if (verb === "remove") {
    const entry = await catalog.marketplaces.remove(one(rest, "marketplace name"));
    io.stdout.write(`Removed marketplace ${entry.name} (its directory and installed plugins were left as they are)\n`);
    return EXIT.ok;
  }
  if (verb === "list" && rest.length === 0) return listMarketplaces(catalog, io, json);
  throw new UsageError(PLUGINS_USAGE);
}

async function install(ctx: AppContext, io: CliIo, positionals: readonly string[], values: { marketplace?: string | undefined; bundled?: boolean | undefined }): Promise<number> {
  const catalog = createCatalog(ctx);
  if (values.bundled === true) {
    if (positionals.length > 0) throw new UsageError("install --bundled takes no other argument");
    const { installed, skipped } = await catalog.installBundled();
    for (const r of installed) io.stdout.write(`Installed ${r.receipt.pluginId} ${r.receipt.version} from ${r.receipt.marketplace}\n`);
    for (const id of skipped) io.stdout.write(`${id}: already installed\n`);
    if (installed.length === 0 && skipped.length === 0) io.stdout.write("No bundled plugins ship with this version of Baton.\n");
    return EXIT.ok;
  }
  const spec = one(positionals, "plugin (owner/name[@version], a directory or a .tgz)");
  const isPath = spec.startsWith(".") || spec.startsWith("/") || spec.endsWith(".tgz");
  const result = await catalog.install(isPath ? path.resolve(io.cwd, spec) : spec, values.marketplace === undefined ? {} : { marketplace: values.marketplace });
  const { pluginId, version, marketplace: mkt, treeDigest } = result.receipt;
  io.stdout.write(`Installed ${pluginId} ${version} from ${mkt}\n  ${result.dir}\n  tree digest ${treeDigest}\n`);
  const current = await catalog.settings.get(`${pluginId}@${mkt}`);
  if (current?.enabled === true && current.version !== version) io.stdout.write(`It stays on ${current.version}; switch with: baton plugins enable ${pluginId}@${version}\n`);
  else if (current?.enabled !== true) io.stdout.write(`Enable it with: baton plugins enable ${pluginId}\n`);
  return EXIT.ok;
}

/** Start the plugin once outside any session, report what it registered, close it. */
async function restartCheck(ctx: AppContext, io: CliIo, ref: string, marketplaceName: string | undefined): Promise<number> {
  const catalog = createCatalog(ctx);
  const target = await catalog.resolve(parsePluginRef(ref, marketplaceName));
  if (target.settings?.enabled !== true) throw new BatonError("plugin_failed", `${target.pluginId} is disabled; enable it with: baton plugins enable ${target.pluginId}`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "baton-plugin-check-"));
  const log = createSessionLog({ path: path.join(scratch, "check.log"), batonSessionId: "check", clock: systemClock, minLevel: "debug" });
  const failures: string[] = [];
  const manager = new PluginManager({
    catalog,
    session: { batonSessionId: "check", cwd: ctx.cwd, projectDir: scratch, sessionDir: scratch },
    host: {
      record: (update) => {
        if (update.state === "failed") failures.push(`${update.reason?.code ?? "?"}: ${update.reason?.detail ?? ""}`);
      },
      projected: () => ({}),
      toast: () => undefined,
      askConsent: async () => false,
    },
    env: ctx.childEnv,
    log,
    reservedCommands: reservedCommandNames(new TargetDirectory(ctx.registry)),
  });
  try {
    const binding = await manager.restart(target.pluginId);
    if (binding.state !== "active") throw new BatonError("plugin_failed", `${target.pluginId} did not start: ${failures[0] ?? binding.state}`, { hint: `See why: baton plugins logs ${target.pluginId}` });
    const commands = binding.registrations.filter((r) => r.type === "command").map((r) => `/${r.name}`);
    io.stdout.write(`${target.pluginId} ${binding.version} starts and activates (commands: ${commands.join(" ") || "none"}).\n`);
    io.stdout.write("Running sessions restart their own binding with /plugins restart in the terminal UI.\n");
    return EXIT.ok;
  } finally {
    await manager.close();
    await log.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

export async function runPlugins(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command === undefined || command === "help" || command === "--help") {
      io.stdout.write(`${PLUGINS_USAGE}\n`);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    const { values, positionals } = parse(rest, OPTIONS);
    const ctx = createAppContext(io, { ...(values.cwd === undefined ? {} : { cwd: values.cwd }), ...(values.root === undefined ? {} : { home: values.root }) });
    const json = values.json === true;
    switch (command) {
      case "marketplace":
        return await marketplace(ctx, io, positionals, json);
      case "install":
        return await install(ctx, io, positionals, values);
      case "enable": {
        const catalog = createCatalog(ctx);
        const { instance, asked } = await catalog.enable(parsePluginRef(one(positionals, "plugin"), values.marketplace), consentPrompt(io, values.yes === true));
        io.stdout.write(`Enabled ${instance.pluginId} ${instance.version}${asked ? "" : " (consent given before)"}; it starts with the next terminal UI session (or /plugins there).\n`);
        return EXIT.ok;
      }
      case "disable": {
        const instance = await createCatalog(ctx).disable(parsePluginRef(one(positionals, "plugin"), values.marketplace));
        io.stdout.write(`Disabled ${instance.pluginId}; its data stays. Running sessions stop it with /plugins disable ${instance.pluginId}.\n`);
        return EXIT.ok;
      }
      case "remove": {
        const { key, versions } = await createCatalog(ctx).remove(parsePluginRef(one(positionals, "plugin"), values.marketplace));
        io.stdout.write(`Removed ${key} (${versions} installed version${versions === 1 ? "" : "s"} deleted; plugin data kept)\n`);
        return EXIT.ok;
      }
      case "list":
        if (positionals.length > 0) throw new UsageError(PLUGINS_USAGE);
        return await listPlugins(ctx, createCatalog(ctx), io, json);
      case "restart":
        return await restartCheck(ctx, io, one(positionals, "plugin"), values.marketplace);
      case "logs":
        return await showLogs(createCatalog(ctx), io, one(positionals, "plugin"), values.tail, json);
      default:
        throw new UsageError(`unknown plugins command '${command}'\n${PLUGINS_USAGE}`);
    }
  } catch (error) {
    return reportError(io, error);
  }
}
