/** The CLI dispatcher: the first word picks the command; no word (or a leading flag) opens the TUI. */
import { terminalIo, type CliIo } from "./io.ts";
import { runDoctor } from "./commands/doctor.ts";
import { runExec } from "./commands/exec.ts";
import { runExport } from "./commands/export.ts";
import { HELP, runHelp, runVersion } from "./commands/help.ts";
import { runRepl } from "./commands/repl.ts";
import { runSessions } from "./commands/sessions.ts";
import { EXIT } from "./commands/shared.ts";
import { runTuiCommand } from "./commands/tui.ts";
import { runFork, runResume } from "./commands/fork-resume.ts";
import { runLogs } from "./commands/logs.ts";
import { runInbox } from "./commands/inbox.ts";
import { runApprovals } from "./commands/approvals.ts";
import { withResolvedHome } from "./app-context.ts";
import { runPlugins } from "./commands/plugins.ts";
import { runRewind } from "./commands/rewind.ts";
import { runGcCheckpoints } from "./commands/gc-checkpoints.ts";

type Command = (argv: readonly string[], io: CliIo) => Promise<number> | number;

const COMMANDS: Readonly<Record<string, Command>> = {
  exec: runExec,
  repl: runRepl,
  sessions: runSessions,
  inbox: runInbox,
  approvals: runApprovals,
  export: runExport,
  doctor: runDoctor,
  fork: runFork,
  resume: runResume,
  logs: runLogs,
  plugins: runPlugins,
  rewind: runRewind,
  "gc-checkpoints": runGcCheckpoints,
  tui: runTuiCommand,
  help: (_argv, io) => runHelp(io),
  version: (_argv, io) => runVersion(io),
};

export async function runCli(argv: readonly string[], processIo: CliIo): Promise<number> {
  // Every printer writes through terminal-safe streams: agent and tool text never reaches the terminal raw.
  const io = withResolvedHome(terminalIo(processIo));
  const [first, ...rest] = argv;
  if (first === undefined || (first.startsWith("-") && !["--help", "-h", "--version", "-V"].includes(first))) {
    return runTuiCommand(argv, io);
  }
  if (first === "--help" || first === "-h") return runHelp(io);
  if (first === "--version" || first === "-V") return runVersion(io);
  const command = COMMANDS[first];
  if (!command) {
    io.stderr.write(`baton: unknown command '${first}'\n\n${HELP}`);
    return EXIT.usage;
  }
  return command(rest, io);
}
