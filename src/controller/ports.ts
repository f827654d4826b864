/** What the controller needs from the session's storage, as ports (the app wires the store to them). */
import type { AnyEvent, EventDraft } from "../event/envelope.ts";
import type { HarnessSessionMeta, SessionMeta } from "../store/meta.ts";
import type { Clock } from "../shared/clock.ts";
import type { BatonSessionId, IdSource, TargetId } from "../shared/ids.ts";
import type { Logger } from "../shared/log.ts";
import type { BatonError } from "../shared/errors.ts";
import type { TurnRecord } from "./turn-record.ts";
import type { ApprovalRulesPort } from "./approval-memory.ts";

export interface LedgerPort {
  /** Stamps and writes the line (survives a process crash), then broadcasts. Throws on I/O failure. */
  append(draft: EventDraft): AnyEvent;
  /** Makes everything appended so far durable (fdatasync) — before any external side effect. */
  sync(): Promise<void>;
  /** Be told when a write fails in the background (a batched chunk flush) and the ledger stops. */
  onWriteFailure?(listener: (error: BatonError) => void): () => void;
}

export interface MetaPort {
  read(): SessionMeta;
  update(change: (meta: SessionMeta) => SessionMeta): void;
  /** Resolves when every change so far is on disk (a meta written behind); rejects with its write error. */
  flush?(): Promise<void>;
}

/** The user's per-target choices for new sessions (HAR-09). */
export interface PreferencesPort {
  get(kind: "model" | "effort", targetId: TargetId): string | undefined;
  set(kind: "model" | "effort", targetId: TargetId, value: string): void;
  /** Resolves when every change so far is stored (the session's close waits for it). */
  flush?(): Promise<void>;
}

/**
 * File checkpoints of the session's working tree (the app wires a git implementation; all I/O is async
 * child processes). The controller decides when: before each driven turn's dispatch and after it ends.
 */
export interface FileCheckpointPort {
  /**
   * A commit of the working tree as it is now and, when `previous` is given, the paths that differ from it
   * (absent: they could not be compared). `staged` is called once every file has been read (the commit is
   * then fixed, whatever happens to the files). `{ off }` when checkpoints cannot work here (no git worktree).
   */
  snapshot(
    label: string,
    previous?: string,
    staged?: () => void,
  ): Promise<{ readonly commit: string; readonly dirtyPaths?: readonly string[] } | { readonly off: string }>;
  /** Keep `commit` through `git gc` under this session's checkpoint ref for that turn boundary. */
  keep(turnId: string, boundary: "before" | "after", commit: string): Promise<void>;
}

/** When file checkpoints are taken: the controller calls these; FileCheckpointRecorder decides what is recorded. */
export interface TurnCheckpoints {
  /** At admission of a driven prompt turn: resolves once the files are read (dispatch waits); never rejects. */
  before(record: TurnRecord): Promise<void>;
  /** Once the turn has ended, whatever its outcome. */
  after(record: TurnRecord): void;
}

export interface ControllerSettings {
  readonly mentionBudgetChars: number;
  readonly cancelGraceMs: number;
  readonly stallNoticeMs: number;
  /** Generate a title after the first completed turn (off for one-shot `exec`: it would outlive the process). */
  readonly generateTitles?: boolean;
  /** Title generation: the target to ask first, and a model per harness id. */
  readonly textgenPrefer?: string;
  readonly textgenModels?: Readonly<Record<string, string>>;
  /** Limit failover per target id: `ask` (the default) proposes continuing elsewhere on quota_exhausted; `off` never. */
  readonly failover?: Readonly<Record<string, "ask" | "off">>;
}

export const DEFAULT_CONTROLLER_SETTINGS: ControllerSettings = {
  mentionBudgetChars: 4096,
  cancelGraceMs: 10_000,
  stallNoticeMs: 90_000,
};

export interface ControllerDeps {
  readonly sessionId: BatonSessionId;
  readonly cwd: string;
  readonly ledger: LedgerPort;
  readonly meta: MetaPort;
  readonly ids: IdSource;
  readonly clock: Clock;
  readonly log: Logger;
  readonly env: Readonly<Record<string, string>>;
  readonly settings: ControllerSettings;
  readonly preferences?: PreferencesPort;
  /** Where a target's raw native wire trace goes (LOG-03), if anywhere. */
  readonly nativeTrace?: (targetId: TargetId) => ((direction: "in" | "out", message: unknown) => void) | undefined;
  /** Baton's state directory (`$BATON_HOME/state`), handed to harness factories (e.g. saved hook trust). */
  readonly stateDir?: string;
  /** File checkpoints around driven turns (the app wires a FileCheckpointRecorder; none: the feature is off). */
  readonly fileCheckpoints?: TurnCheckpoints;
  /** Baton's approval rules (`$BATON_HOME/state/approvals.json`, #20.4); none: every approval asks. */
  readonly approvalRules?: ApprovalRulesPort;
}

export function setHarnessSession(meta: SessionMeta, targetId: TargetId, patch: Partial<HarnessSessionMeta> & Pick<HarnessSessionMeta, "harness">): SessionMeta {
  const current = meta.harnessSessions[targetId];
  const next: HarnessSessionMeta = { ...current, ...patch, harnessTargetId: targetId };
  return { ...meta, harnessSessions: { ...meta.harnessSessions, [targetId]: next } };
}
