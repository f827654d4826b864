/**
 * Ledger bytes per turn with the real agents (issue 12.14): `baton exec` (the real binary) runs a trivial
 * turn, then a turn with a large prompt, on Codex and on Claude Code against the mock model servers; prints
 * the ledger and checkpoint bytes each turn added, how many copies of the prompt's text they hold, and the
 * kinds that take the most room.
 *   bun bench/ledger-turn-bytes.ts [promptKiB=2048]
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { runBaton } from "../tests/support/baton-process.ts";
import { crashHarnesses } from "../tests/support/crash-harnesses.ts";
import { newestSession, sessionDir } from "../tests/support/session-files.ts";

const PROMPT_KIB = Number(process.argv[2] ?? 2048);

function sizes(dir: string): { ledger: number; checkpoint: number; lines: string[] } {
  const ledgerFile = path.join(dir, "session.jsonl");
  const checkpointFile = path.join(dir, "checkpoint.json");
  const text = readFileSync(ledgerFile, "utf8");
  return {
    ledger: statSync(ledgerFile).size,
    checkpoint: existsSync(checkpointFile) ? statSync(checkpointFile).size : 0,
    lines: text.split("\n").filter((line) => line.length > 0),
  };
}

function copies(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

function byKind(lines: readonly string[]): string {
  const total = new Map<string, number>();
  for (const line of lines) {
    const kind = (JSON.parse(line) as { kind: string }).kind;
    total.set(kind, (total.get(kind) ?? 0) + Buffer.byteLength(line) + 1);
  }
  return [...total.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([kind, bytes]) => `${kind} ${(bytes / 1024).toFixed(1)} KB`)
    .join(", ");
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function main(): Promise<void> {
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
      console.log(`${harness.name.padEnd(7)} trivial turn: ledger ${kb(trivial.ledger)} (${trivial.lines.length} lines), checkpoint ${kb(trivial.checkpoint)}; by kind: ${byKind(trivial.lines)}`);

      const marker = "BIGPROMPT-";
      const big = `${marker}${"lorem ipsum dolor sit amet ".repeat(Math.ceil((PROMPT_KIB * 1024) / 27))}`.slice(0, PROMPT_KIB * 1024);
      await harness.scriptText("ok", marker);
      const second = await runBaton(["exec", "--agent", harness.target, "--session", id, "-"], { env: env.env, cwd: env.cwd, stdin: big });
      if (second.code !== 0) throw new Error(`${harness.name}: exec (large prompt) failed: ${second.stderr.slice(0, 400)}`);
      const after = sizes(dir);
      const added = after.lines.slice(trivial.lines.length);
      const checkpointText = existsSync(path.join(dir, "checkpoint.json")) ? readFileSync(path.join(dir, "checkpoint.json"), "utf8") : "";
      const probe = big.slice(0, 64);
      console.log(
        `${harness.name.padEnd(7)} ${PROMPT_KIB} KiB prompt turn: ledger +${kb(after.ledger - trivial.ledger)} (${copies(added.join("\n"), probe)} copies of the prompt), checkpoint ${kb(after.checkpoint)} (${copies(checkpointText, probe)} copies); by kind: ${byKind(added)}`,
      );
    } finally {
      await harness.stop();
    }
  }
}

await main();
