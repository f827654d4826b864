/**
 * When file checkpoints are taken and recorded (issue 19): one before each driven turn's dispatch (started at
 * admission, so it overlaps a cold start) and one after the turn ends. They run one at a time, in order, so
 * each `_baton_checkpoint`'s `dirtyPaths` compares with the one recorded just before it: for `before` that is
 * what changed outside any agent turn, for `after` what the turn changed. Failures never fail a turn: the
 * checkpoint is skipped with a notice. No git directory: the feature is off, said once per session.
 */
import type { ProjectionState } from "../projection/index.ts";
import { lastFileCheckpoint, tableValues } from "../projection/index.ts";
import { describeError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import type { AppendFn } from "./pipeline.ts";
import type { FileCheckpointPort } from "./ports.ts";
import type { TurnRecord } from "./turn-record.ts";

export const CHECKPOINTS_OFF_TITLE = "File checkpoints are off";

export interface CheckpointRecorderDeps {
  readonly port: FileCheckpointPort;
  readonly append: AppendFn;
  readonly state: () => ProjectionState;
  readonly log: Logger;
  readonly sessionId: string;
}

export class FileCheckpointRecorder {
  private last: string | undefined;
  private chain: Promise<void> = Promise.resolve();
  private off = false;

  constructor(private readonly deps: CheckpointRecorderDeps) {
    this.last = lastFileCheckpoint(deps.state())?.commit;
  }

  /** Before a driven turn: resolves once the checkpoint is recorded or skipped; never rejects. */
  before(record: TurnRecord, throughSeq: number): Promise<void> {
    return this.enqueue(record, "before", async (commit, dirty) => {
      if (record.finalized) return false; // cancelled meanwhile: nothing to record
      this.deps.append({
        kind: "_baton_checkpoint",
        payload: { turnId: record.turnId, boundary: "before", commit, ...dirty, throughSeq },
        source: { type: "baton" },
        turnId: record.turnId,
        harnessTargetId: record.targetId,
      });
      record.checkpointed = true;
      return true;
    });
  }

  /** After a driven turn that had a before-checkpoint (whatever its outcome): what the turn changed. */
  after(record: TurnRecord): void {
    if (!record.checkpointed) return;
    void this.enqueue(record, "after", async (commit, dirty) => {
      this.deps.append({
        kind: "_baton_checkpoint",
        payload: { turnId: record.turnId, boundary: "after", commit, ...dirty },
        source: { type: "baton" },
        harnessTargetId: record.targetId,
      });
      return true;
    });
  }

  /** Resolves when every checkpoint asked for so far is done (shutdown waits for it). */
  settled(): Promise<void> {
    return this.chain;
  }

  private enqueue(
    record: TurnRecord,
    boundary: "before" | "after",
    recordIt: (commit: string, dirty: { dirtyPaths: string[]; dirtyUnknown?: true }) => Promise<boolean>,
  ): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.off) return;
      try {
        const shot = await this.deps.port.snapshot(`baton checkpoint ${this.deps.sessionId} ${boundary} ${record.turnId}`);
        if ("off" in shot) return this.turnOff(shot.off, record);
        const previous = this.last;
        const [dirty] = await Promise.all([
          this.compare(previous, shot.commit),
          this.deps.port.keep(record.turnId, boundary, shot.commit),
        ]);
        if (await recordIt(shot.commit, dirty)) this.last = shot.commit;
      } catch (error) {
        this.deps.log.log("warn", `file checkpoint ${boundary} ${record.turnId} failed`, { error, turnId: record.turnId });
        this.notice("warning", `File checkpoint skipped (${boundary} this turn)`, describeError(error), record);
      }
    };
    const next = this.chain.then(run);
    this.chain = next;
    return next;
  }

  private async compare(previous: string | undefined, commit: string): Promise<{ dirtyPaths: string[]; dirtyUnknown?: true }> {
    if (previous === undefined) return { dirtyPaths: [] };
    try {
      return { dirtyPaths: [...(await this.deps.port.changedPaths(previous, commit))] };
    } catch (error) {
      // The previous checkpoint is gone (another repository, pruned): anything may have changed.
      this.deps.log.log("warn", "could not compare with the previous file checkpoint", { error });
      return { dirtyPaths: [], dirtyUnknown: true };
    }
  }

  private turnOff(reason: string, record: TurnRecord): void {
    this.off = true;
    const told = tableValues(this.deps.state().notices).some((notice) => notice.title === CHECKPOINTS_OFF_TITLE);
    if (!told) this.notice("info", CHECKPOINTS_OFF_TITLE, `${reason}; /rewind needs a git worktree. Nothing else changes.`, record);
  }

  private notice(level: "info" | "warning", title: string, detail: string, record: TurnRecord): void {
    try {
      this.deps.append({
        kind: "_baton_notice",
        payload: { level, title, detail },
        source: { type: "baton" },
        ...(record.finalized ? {} : { turnId: record.turnId }),
        harnessTargetId: record.targetId,
      });
    } catch (error) {
      this.deps.log.log("warn", "could not record a file checkpoint notice", { error });
    }
  }
}
