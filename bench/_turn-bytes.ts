/**
 * Ledger bytes per turn with the real agents (issue 12.14), printed by `bench/ledger.ts`: `baton exec` (the real
 * binary) runs a trivial turn, then a turn with a large prompt, on Codex and on Claude Code against the mock model
 * servers; prints the ledger and checkpoint bytes each turn added, how many copies of the prompt's text they hold,
 * and the kinds that take the most room, against what the issue asks: one copy of a prompt in the ledger (it was
 * stored twice in the ledger and twice in the checkpoint: a 2 MB prompt cost 8.4 MB), and a trivial turn smaller
 * than the issue measured (8.5 KB Codex, 14.8 KB Claude).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { CHECKPOINT_FILE } from "../src/store/checkpoint.ts";
import { runBaton } from "../tests/support/baton-process.ts";
import { crashHarnesses } from "../tests/support/crash-harnesses.ts";
import { newestSession, sessionDir } from "../tests/support/session-files.ts";

/** What the issue measured for a trivial turn, per harness. */
const ISSUE_TRIVIAL_KB: Readonly<Record<string, number>> = { codex: 8.5, claude: 14.8 };
/** Codex refuses a user input over 1,048,576 characters. */
const CODEX_MAX_PROMPT_KIB = 1000;
/** Room a large-prompt turn may take besides its one copy of the prompt. */
const TURN_OVERHEAD_BYTES = 64 * 1024;

type Line = (label: string, value: string, budget?: string, ok?: boolean) => void;

function sizes(dir: string): { ledger: number; checkpoint: string; lines: string[] } {
  const ledgerFile = path.join(dir, "session.jsonl");
  const checkpointFile = path.join(dir, CHECKPOINT_FILE);
  return {
    ledger: statSync(ledgerFile).size,
    checkpoint: existsSync(checkpointFile) ? readFileSync(checkpointFile, "utf8") : "",
    lines: readFileSync(ledgerFile, "utf8").split("\n").filter((line) => line.length > 0),
  };
}

const copies = (haystack: string, needle: string): number => haystack.split(needle).length - 1;
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** The kinds that take the most room, largest first: `agent_message 1.2 KB, …`. */
export function bytesByKind(lines: readonly string[], most = 6): string {
  const total = new Map<string, number>();
  for (const line of lines) {
    const kind = (JSON.parse(line) as { kind: string }).kind;
    total.set(kind, (total.get(kind) ?? 0) + Buffer.byteLength(line) + 1);
  }
  return [...total.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, most)
    .map(([kind, bytes]) => `${kind} ${kb(bytes)}`)
    .join(", ");
}

/** Runs the two turns on every harness of the crash matrix and prints their bytes with `line`. */
export async function printTurnBytes(promptKiB: number, line: Line): Promise<void> {
  for (const harness of crashHarnesses()) {
    await harness.start();
    try {
      const env = await harness.freshEnv();
      await harness.scriptText("hello there", "say hello");
      const first = await runBaton(["exec", "--agent", harness.target, "say hello"], { env: env.env, cwd: env.cwd });
      if (first.code !== 0) throw new Error(`${harness.name}: exec failed: ${first.stderr}`);
      const id = newestSession(env.batonHome);
      const dir = sessionDir(env.batonHome, id);
      const trivial = sizes(dir);
      const was = ISSUE_TRIVIAL_KB[harness.name];
      line(`${harness.name}: trivial turn, ledger${was === undefined ? "" : ` (issue: ${was} KB)`}`, kb(trivial.ledger), undefined);
      line(`  ${trivial.lines.length} lines; by kind`, "", undefined);
      console.log(`    ${bytesByKind(trivial.lines)}`);

      const kib = harness.name === "codex" ? Math.min(promptKiB, CODEX_MAX_PROMPT_KIB) : promptKiB;
      const marker = "BIGPROMPT-";
      const big = `${marker}${"lorem ipsum dolor sit amet ".repeat(Math.ceil((kib * 1024) / 27))}`.slice(0, kib * 1024);
      await harness.scriptText("ok", marker);
      const second = await runBaton(["exec", "--agent", harness.target, "--session", id, "-"], { env: env.env, cwd: env.cwd, stdin: big });
      if (second.code !== 0) throw new Error(`${harness.name}: exec (large prompt) failed: ${second.stderr.slice(0, 400)}`);
      const after = sizes(dir);
      const added = after.lines.slice(trivial.lines.length);
      const probe = big.slice(0, 64);
      const grew = after.ledger - trivial.ledger;
      const inLedger = copies(added.join("\n"), probe);
      const inCheckpoint = copies(after.checkpoint, probe);
      line(`${harness.name}: ${kib} KiB prompt turn, ledger +`, kb(grew), `≤ prompt + ${kb(TURN_OVERHEAD_BYTES)}`, grew <= big.length + TURN_OVERHEAD_BYTES);
      line("  copies of the prompt in the ledger", `${inLedger}`, "1", inLedger === 1);
      line("  copies in the checkpoint", `${inCheckpoint} (${kb(after.checkpoint.length)})`, "≤ 1", inCheckpoint <= 1);
      console.log(`    by kind: ${bytesByKind(added)}`);
    } finally {
      await harness.stop();
    }
  }
}
