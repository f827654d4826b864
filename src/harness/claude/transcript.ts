/**
 * Claude Code's native transcripts, read-only: `$CLAUDE_CONFIG_DIR/projects/<munged cwd>/<session id>.jsonl`
 * (CLAUDE_CONFIG_DIR defaults to `$HOME/.claude`). Baton locates the file itself — so the environment it
 * inspects is the target's, not Baton's own process environment — and hands the parsed lines to the SDK
 * through a read-only SessionStore, so the conversation chain is built by the SDK's own code.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SessionKey, SessionStore, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { BatonError, describeError } from "../../shared/errors.ts";

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isClaudeSessionId(value: string): boolean {
  return SESSION_ID.test(value);
}

/** Claude Code's project-directory name for a cwd: every non-alphanumeric character becomes "-". */
export function mungeProjectDir(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

export function claudeConfigDir(env: Readonly<Record<string, string | undefined>>): string {
  const configured = env["CLAUDE_CONFIG_DIR"];
  if (configured !== undefined && configured.trim() !== "") return path.resolve(configured.trim());
  return path.join(env["HOME"] ?? os.homedir(), ".claude");
}

/** The transcript file of `sessionId`, looking in `cwd`'s project first; undefined when there is none. */
export function locateTranscript(sessionId: string, env: Readonly<Record<string, string | undefined>>, cwd: string): string | undefined {
  if (!isClaudeSessionId(sessionId)) return undefined;
  const projects = path.join(claudeConfigDir(env), "projects");
  const file = `${sessionId}.jsonl`;
  const first = path.join(projects, mungeProjectDir(cwd), file);
  if (isFile(first)) return first;
  let dirs: string[];
  try {
    dirs = fs.readdirSync(projects);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new BatonError("native_unreadable", `cannot list ${projects}: ${describeError(error)}`, { cause: error });
  }
  for (const dir of dirs.sort()) {
    const candidate = path.join(projects, dir, file);
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Every line of a transcript, parsed. Opened read-only. A last line without its newline means Claude Code
 * is writing it right now (fail closed: `native_incomplete`); a corrupt line is `native_unreadable`.
 */
export function readTranscript(file: string): SessionStoreEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, { encoding: "utf8", flag: "r" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new BatonError("session_not_found", `the Claude Code transcript ${file} is gone`);
    throw new BatonError("native_unreadable", `cannot read the Claude Code transcript ${file}: ${describeError(error)}`, { cause: error });
  }
  if (text.length > 0 && !text.endsWith("\n")) {
    throw new BatonError("native_incomplete", `the Claude Code transcript ${file} ends in a partly written line`, {
      hint: "Claude Code is probably still writing this session; let it finish (or close it) and try again",
    });
  }
  const entries: SessionStoreEntry[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new BatonError("native_unreadable", `${file} line ${index + 1} is not valid JSON`, { hint: "the native session is damaged; Baton will not import part of it" });
    }
    if (typeof value !== "object" || value === null || typeof (value as { type?: unknown }).type !== "string") {
      throw new BatonError("native_unreadable", `${file} line ${index + 1} is not a transcript entry`);
    }
    entries.push(value as SessionStoreEntry);
  }
  return entries;
}

/** A SessionStore over lines already read; every write is refused (inspection is read-only). */
export function readOnlyStore(sessionId: string, entries: readonly SessionStoreEntry[]): SessionStore {
  return {
    append(): Promise<void> {
      return Promise.reject(new BatonError("internal", "the Claude Code inspector is read-only"));
    },
    load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
      return Promise.resolve(key.sessionId === sessionId && key.subpath === undefined ? [...entries] : null);
    },
  };
}
