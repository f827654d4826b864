/**
 * The CLI dispatcher: the first word picks the command; no word (or a leading flag) opens the TUI.
 * Each command's module is imported when it runs, so a start loads one command's code, not all of them
 * (the TUI's first frame waits for nothing else).
 */
import { terminalIo, type CliIo } from "./io.ts";
import { HELP, runHelp, runVersion } from "./commands/help.ts";
import { EXIT } from "./commands/shared.ts";
import { withResolvedHome } from "./app-context.ts";
import { ASYNC_PACKAGES } from "./async-packages.ts";
import { loadWithReactProduction } from "./react-build.ts";

type Command = (argv: readonly string[], io: CliIo) => Promise<number> | number;

/**
 * The commands whose modules load the TUI (React and JSX); only they bind React's jsx runtimes while loading
 * (react-build.ts). tests/unit/cli-renders.test.ts loads every command in a fresh Bun and checks this list.
 */
export const RENDERING_COMMANDS: ReadonlySet<string> = new Set(["tui", "fork", "resume", "plugins"]);

export const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  exec: async () => (await import("./commands/exec.ts")).runExec,
  repl: async () => (await import("./commands/repl.ts")).runRepl,
  sessions: async () => (await import("./commands/sessions.ts")).runSessions,
  inbox: async () => (await import("./commands/inbox.ts")).runInbox,
  approvals: async () => (await import("./commands/approvals.ts")).runApprovals,
  export: async () => (await import("./commands/export.ts")).runExport,
  doctor: async () => (await import("./commands/doctor.ts")).runDoctor,
  fork: async () => (await import("./commands/fork-resume.ts")).runFork,
  resume: async () => (await import("./commands/fork-resume.ts")).runResume,
  logs: async () => (await import("./commands/logs.ts")).runLogs,
  plugins: async () => (await import("./commands/plugins.ts")).runPlugins,
  rewind: async () => (await import("./commands/rewind.ts")).runRewind,
  "gc-checkpoints": async () => (await import("./commands/gc-checkpoints.ts")).runGcCheckpoints,
  tui: async () => (await import("./commands/tui.ts")).runTuiCommand,
  help: async () => (_argv, io) => runHelp(io),
  version: async () => (_argv, io) => runVersion(io),
};

export async function runCli(argv: readonly string[], processIo: CliIo): Promise<number> {
  // Every printer writes through terminal-safe streams: agent and tool text never reaches the terminal raw.
  const io = withResolvedHome(terminalIo(processIo));
  const [first, ...rest] = argv;
  if (first === undefined || (first.startsWith("-") && !["--help", "-h", "--version", "-V"].includes(first))) {
    return (await loadCommand("tui", async () => (await import("./commands/tui.ts")).runTuiCommand))(argv, io);
  }
  if (first === "--help" || first === "-h") return runHelp(io);
  if (first === "--version" || first === "-V") return runVersion(io);
  const command = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  if (!command) {
    io.stderr.write(`baton: unknown command '${first}'\n\n${HELP}`);
    return EXIT.usage;
  }
  return (await loadCommand(first, command))(rest, io);
}

/**
 * A command's modules load with React's production build selected (react-build.ts); none of them starts a
 * process while loading, and NODE_ENV is back as it was before the command runs. A rendering command imports
 * OpenTUI first (async-packages.ts: the prebuilt start can require it only then).
 */
export function loadCommand(name: string, load: () => Promise<Command>): Promise<Command> {
  const renders = RENDERING_COMMANDS.has(name);
  const loadAll = renders ? async () => {
    for (const pkg of ASYNC_PACKAGES) await import(pkg);
    return load();
  } : load;
  return loadWithReactProduction(loadAll, process.env, { renders });
}
