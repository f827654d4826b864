/**
 * The native-session inspector contract (NAT-02..04): how Baton reads a harness's own session (a Codex
 * thread, a Claude Code transcript) to adopt it. Inspectors are read-only: they never open, resume or
 * modify the native session, and they fail closed — a history that is still being written, or that
 * cannot be read completely, is an error, never a shorter history.
 */
import type { PromptBlock } from "../event/content.ts";
import type { EventKind, DraftPayloadOf } from "../event/kinds.ts";
import type { StopReason } from "../event/stop-reasons.ts";
import type { Logger } from "../shared/log.ts";
import type { ResumeState } from "./contract.ts";
import type { HistoryBoundary } from "./history-boundary.ts";

export interface InspectContext {
  /** The environment the harness would run with (the user's, plus the target's overrides). */
  readonly env: Readonly<Record<string, string>>;
  /** The invoking directory (used to look in the matching project first and as the child's cwd). */
  readonly cwd: string;
  /** The target's settings (e.g. a configured executable). */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly log: Logger;
}

/** What identifies a native session to a person. */
export interface NativeSessionInfo {
  /** The native id, verbatim (Codex thread id, Claude session id). */
  readonly id: string;
  /** Where the native session says it ran. */
  readonly cwd?: string;
  /** A title the user gave it (not a generated summary). */
  readonly title?: string;
  /** Its first prompt, to tell sessions apart. */
  readonly preview?: string;
  /** Where it is stored (a rollout or transcript path), when the harness says; distinguishes copies. */
  readonly location?: string;
}

export type ProbeResult =
  | { readonly kind: "found"; readonly session: NativeSessionInfo }
  | { readonly kind: "not_found" }
  /** The harness cannot be asked at all here (e.g. not installed); not an answer about the id. */
  | { readonly kind: "unavailable"; readonly reason: string }
  /** The lookup itself failed: callers fail closed, never treating this as "not found". */
  | { readonly kind: "error"; readonly message: string };

/** One normalized event of a native turn, without envelope coordinates (the adopter stamps them). */
export type NativeEvent = {
  [K in EventKind]: {
    readonly kind: K;
    readonly payload: DraftPayloadOf<K>;
    /** `user` for messages the person typed (steers); everything else is the harness's. */
    readonly source?: "user" | "harness";
  };
}[EventKind];

export interface NativeTurn {
  /** The native turn's own id (Codex turn id, the uuid of Claude's prompt line). */
  readonly nativeTurnId: string;
  /** What the user sent to start the turn. */
  readonly prompt: readonly PromptBlock[];
  /** Agent messages, thoughts, tool calls with status/output, plans, errors, steers: in order. */
  readonly events: readonly NativeEvent[];
  /** How the turn ended, in Baton's vocabulary; `unknown` when the native history does not say. */
  readonly stopReason: StopReason;
  readonly startedAt?: string;
  readonly endedAt?: string;
}

export interface NativeHistory {
  readonly session: NativeSessionInfo;
  /** The binding Baton records so its next turn resumes this very session. */
  readonly harnessSessionId: string;
  readonly resumeState: ResumeState;
  /** Every completed turn, oldest first. */
  readonly turns: readonly NativeTurn[];
  /** What was read, for re-adoption to verify (NAT-05). */
  readonly boundary: HistoryBoundary;
}

export interface HarnessSessionInspector {
  /** Does this harness have a session with this id? Cheap, read-only. */
  probe(nativeId: string, context: InspectContext): Promise<ProbeResult>;
  /**
   * The whole history, read-only. Throws BatonError `session_not_found` when it is gone,
   * `native_incomplete` when a turn is still in progress or the history is cut short,
   * `native_unreadable` when it cannot be read.
   */
  read(nativeId: string, context: InspectContext): Promise<NativeHistory>;
}
