/**
 * The answer to "which command runs this project's tests?", kept for the project — every Baton session
 * started in this directory — so it is asked once, not once per session. It lives in the plugin's project
 * data directory (`<BATON_HOME>/projects/<project>/plugins/baton%2Ftest-watch/test-command.json`), written
 * atomically; an unreadable file is treated as no answer (asked again), never as an error.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";

export type Answer = { readonly command: string } | { readonly declined: true };

export const ANSWER_FILE = "test-command.json";

export function answerFile(projectDir: string): string {
  return path.join(projectDir, ANSWER_FILE);
}

export async function readProjectAnswer(projectDir: string): Promise<Answer | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(answerFile(projectDir), "utf8"));
  } catch {
    return undefined;
  }
  const answer = (parsed as { answer?: unknown } | null)?.answer as { command?: unknown; declined?: unknown } | undefined;
  if (typeof answer?.command === "string" && answer.command.trim() !== "") return { command: answer.command.trim() };
  if (answer?.declined === true) return { declined: true };
  return undefined;
}

export async function writeProjectAnswer(projectDir: string, answer: Answer, cwd: string): Promise<void> {
  const file = answerFile(projectDir);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify({ version: 1, cwd, answer, answeredAt: new Date().toISOString() }, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
}
