/** One streaming `query()` of a Claude session — one Claude Code process — and what its setup can answer. */
import type { Query, SDKResultMessage, SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import type { TurnId } from "../../shared/ids.ts";
import type { PromptChannel } from "./channel.ts";

export interface QueryRun {
  readonly query: Query;
  readonly channel: PromptChannel;
  /** The native session it resumes, and (after a failed prompt) the entry it resumes at. */
  readonly resumed: { readonly sessionId: string; readonly at: string | undefined } | undefined;
  initSeen: boolean;
  closing: boolean;
  /** Messages pushed before the first system/init, re-sent if a resume turns out to be impossible. */
  unconfirmed: SDKUserMessage[];
  startingTurn: TurnId | undefined;
  done: Promise<void>;
}

/** SDK message types that carry nothing Baton records. */
export const IGNORED_TYPES: ReadonlySet<string> = new Set(["command_lifecycle", "tool_progress", "tool_use_summary", "prompt_suggestion", "auth_status", "thinking_tokens"]);

export const NO_CONVERSATION = /No conversation found with session ID/;
/** Measured with Claude Code 2.1.332: `resumeSessionAt` naming no entry of the transcript answers this. */
const NO_MESSAGE = /No message found with message\.uuid/;

function setupError(run: QueryRun, result: SDKResultMessage, pattern: RegExp): boolean {
  return !run.initSeen && result.is_error && result.subtype !== "success" && result.errors.some((e) => pattern.test(e));
}

/** The resumed session does not exist (the run is restarted fresh by its consumer). */
export function isMissingConversation(run: QueryRun, result: SDKResultMessage): boolean {
  return setupError(run, result, NO_CONVERSATION);
}

/** The entry to resume at is gone (an edited transcript). */
export function isMissingResumePoint(run: QueryRun, result: SDKResultMessage): boolean {
  return run.resumed?.at !== undefined && setupError(run, result, NO_MESSAGE);
}

export function userMessage(content: string | { type: "text"; text: string }[], uuid: string): SDKUserMessage {
  return { type: "user", message: { role: "user", content }, parent_tool_use_id: null, uuid: uuid as SDKUserMessage["uuid"] & string };
}

/** True when `done` settled within `ms`. */
export async function endsWithin(done: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const ended = await Promise.race([done.then(() => true), grace]);
  clearTimeout(timer);
  return ended;
}

/** End an idle run: its input ends (Claude Code exits) and `stop` reaps the process. */
export async function endRun(run: QueryRun, stop: () => Promise<void>): Promise<void> {
  run.closing = true;
  run.channel.end();
  await stop();
}
