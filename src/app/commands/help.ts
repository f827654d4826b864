/** `baton help` and `baton --version`. */
import fs from "node:fs";
import path from "node:path";
import type { CliIo } from "../io.ts";

export function packageVersion(): string {
  const file = path.resolve(import.meta.dir, "../../../package.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
}

export const HELP = `baton — one terminal workspace for Codex and Claude Code, with a session you own.

Usage: baton [command] [options]

Commands:
  baton [--cwd DIR] [-c | -s <bs_id>] [--agent <target>]
      Open the terminal UI (the default). -c continues the latest session of the directory,
      -s opens a given session, --agent picks the agent to start with.
        baton -c
  baton exec [--agent <target>] [--cwd DIR] [--session <bs_id> | --continue]
             [--approve deny|allow] [--model M] [--effort E] [--json] [--] <prompt…>
      Run one turn and exit: 0 completed, 1 failed, 2 usage/config error, 130 interrupted.
      The prompt '-' is read from standard input. Approvals are answered by --approve
      (default deny: the harness's reject-once option); questions are cancelled.
      --json prints every appended ledger event as one JSON line.
        baton exec --agent claude "explain src/app/main.ts"
        git diff | baton exec --continue --agent codex -
  baton repl [--agent <target>] [--cwd DIR] [--session <bs_id>]
      A line-oriented loop: 'you> ' prompt, streamed answers, approvals by number,
      /codex or /claude (or any target id or unique prefix) to switch, /exit to quit.
        printf 'hello\\n/exit\\n' | baton repl --agent codex
  baton sessions [--cwd DIR] [--all] [--tree] [--json]
      Sessions of this directory's project (all projects with --all), newest first;
      --tree shows forks under the session they came from.
        baton sessions --json
  baton inbox [--json]
      Every session of every project that waits for you (an approval, a question, suggestions,
      or the card it waited on when Baton exited), newest first. /inbox in the UI opens one.
        baton inbox --json
  baton approvals [list] [--cwd DIR] [--all] [--json] | baton approvals revoke <id>
      Baton's approval rules: what an agent may run or edit in this project without asking
      ("Always allow" on a card makes one; a matching request is answered with a visible
      "baton rule <id>" receipt). revoke takes a rule back; /approvals in the UI does both.
        baton approvals revoke apr_01J…
  baton resume [bs_id | native-id]
      Open a session in the terminal UI (no id: pick one of this directory's sessions).
      A Codex thread or Claude Code session id (cx:<id> / cc:<id> to say which) is imported
      first, read-only; its next turn continues that native session.
        baton resume cc:0f6c2a1e-5b7d-4c1a-9f3e-2d8b7a6c5e4f
  baton fork [bs_id | native-id | --last] [--cwd DIR]
      Copy a session (through its last finished turn) into a new session under this directory.
      The fork's first turn starts fresh agent sessions and hands them the history.
        baton fork --last
  baton rewind [bs_id] [--to <turnId> | --undo] [--yes] [--cwd DIR]
      Put the files back as they were before a turn (its file checkpoint) and continue the
      conversation from there in a new session (printed); the old one is kept. No --to: list
      the turns. Without --yes: show the diff (and ask on a terminal). Refused, naming the file,
      when a file changed outside any agent turn since. --undo goes back to before a rewind.
        baton rewind --to t_01J… --yes
  baton gc-checkpoints [--cwd DIR] [--dry-run]
      Remove the file-checkpoint refs (refs/baton/checkpoints/…) of deleted sessions.
  baton logs [bs_id] [--level L] [--component prefix] [--tail N] [--json] [--cwd DIR]
      The session's diagnostic log (default: the latest session of this directory), oldest first.
        baton logs --level warn --tail 20
  baton export <bs_id> [--format md|json] [--output FILE]
      The session's transcript as Markdown (default) or its projection as JSON, streamed. --output writes
      FILE whole or not at all (a temp renamed over it); cut short, stdout output is incomplete and exits 1.
        baton export bs_01J… > transcript.md
  baton plugins marketplace add <dir> | install <owner/name>[@v] | <dir> | <file.tgz> | --bundled
  baton plugins enable | disable | remove | restart | logs <owner/name> | list
      Plugins: long-running loops beside your agents, each in a runner process of its own.
      Enabling shows what a plugin may do and asks first; a plugin is NOT sandboxed.
        baton plugins marketplace add ./examples/marketplace && baton plugins install example/hello
  baton doctor
      Check BATON_HOME, the config (and where each value came from), the harness executables
      and every session's ledger. Exit 1 if a problem was found.
  baton help | --help | -h        This text.
  baton --version | -V            The version.

Targets: codex (alias cx), claude (alias cc), and any defined under 'targets:' in config.yaml.
Data lives in BATON_HOME (default ~/.baton). See the README for configuration.
`;

export function runHelp(io: CliIo): number {
  io.stdout.write(HELP);
  return 0;
}

export function runVersion(io: CliIo): number {
  io.stdout.write(`baton ${packageVersion()}\n`);
  return 0;
}
