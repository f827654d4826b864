/**
 * When file checkpoints are taken and recorded (issue 19): one before each driven turn's dispatch (started at
 * admission, so it overlaps a cold start; dispatch waits until the files have been read, not for the commit
 * and its record) and one after the turn ends. They run one at a time, in order, so
 * each `_baton_checkpoint`'s `dirtyPaths` compares with the one recorded just before it: for `before` that is
 * what changed outside any agent turn, for `after` what the turn changed. Failures never fail a turn: the
 * checkpoint is skipped with a notice. No git directory: the feature is off, said once per session.
 */
import type { ProjectionState } from "../projection/index.ts";
import { lastFileCheckpoint, tableValues } from "../projection/index.ts";
import { describeError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import type { AppendFn } from "./pipeline.ts";
import type { FileCheckpointPort, TurnCheckpoints } from "./ports.ts";
import type { TurnRecord } from "./turn-record.ts";
import { BATON_SOURCE } from "../event/envelope.ts";

export const CHECKPOINTS_OFF_TITLE = "File checkpoints are off";

export interface CheckpointRecorderDeps {
  readonly port: FileCheckpointPort;
  /** The controller's pipeline (called only once turns run, so the app may wire the controller afterwards). */
  readonly append: AppendFn;
  readonly state: () => ProjectionState;
  readonly log: Logger;
  readonly sessionId: string;
}

export class FileCheckpointRecorder implements TurnCheckpoints {
  private last: string | undefined;
  private chain: Promise<void> = Promise.resolve();
  private off = false;
  private healed = false;

  constructor(private readonly deps: CheckpointRecorderDeps) {}

  /**
   * Before a driven turn, called right after its admission: resolves once the working tree has been read (or
   * the checkpoint skipped); never rejects. The fork point is the seq just before the turn's user message (a
   * queued prompt's own record may be older: what happened between stays in the fork).
   */
  before(record: TurnRecord): Promise<void> {
    const throughSeq = (record.firstSeq ?? this.deps.state().lastSeq + 1) - 1;
    return this.enqueue(record, "before", async (commit, dirty) => {
      // Recorded even if the turn has ended meanwhile: the files were read before its dispatch.
      this.deps.append({
        kind: "_baton_checkpoint",
        payload: { turnId: record.turnId, boundary: "before", commit, ...dirty, throughSeq },
        source: BATON_SOURCE,
        turnId: record.turnId,
        harnessTargetId: record.targetId,
      });
      record.checkpointed = true;
      return true;
    });
  }

  /** After a driven turn that had a before-checkpoint (whatever its outcome): what the turn changed. */
  after(record: TurnRecord): void {
    if (record.checkpoint === undefined) return;
    // In line after the before-checkpoint: by the time this runs it was recorded, or skipped (nothing to pair).
    void this.enqueue(
      record,
      "after",
      async (commit, dirty) => {
        this.deps.append({
          kind: "_baton_checkpoint",
          payload: { turnId: record.turnId, boundary: "after", commit, ...dirty },
          source: BATON_SOURCE,
          harnessTargetId: record.targetId,
        });
        return true;
      },
      () => record.checkpointed === true,
    );
  }

  /** Resolves when every checkpoint asked for so far is done (a rewind and the session's close wait for it). */
  settled(): Promise<void> {
    return this.chain;
  }

  /**
   * Checkpoints run one at a time. The caller's promise resolves once the files have been read (the snapshot
   * is fixed from then on); tree, commit, comparison, record and the ref that keeps the commit through git gc
   * follow in line, off the dispatch path. Should the process die before the ref, the next process re-keeps
   * the last recorded checkpoint before anything else.
   */
  private enqueue(
    record: TurnRecord,
    boundary: "before" | "after",
    recordIt: (commit: string, dirty: { dirtyPaths: string[]; dirtyUnknown?: true }) => Promise<boolean>,
    wanted: () => boolean = () => true,
  ): Promise<void> {
    let read: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (read = resolve));
    const recorded = (): void => read();
    const run = async (): Promise<void> => {
      try {
        if (this.off || !wanted()) return;
        await this.healOnce();
        const previous = this.last;
        const shot = await this.deps.port.snapshot(`baton checkpoint ${this.deps.sessionId} ${boundary} ${record.turnId}`, previous, recorded);
        if ("off" in shot) return this.turnOff(shot.off, record);
        // No previous checkpoint: nothing to compare with. A failed comparison (the previous one is gone:
        // another repository, pruned) means anything may have changed.
        const dirty = previous === undefined ? { dirtyPaths: [] } : shot.dirtyPaths === undefined ? { dirtyPaths: [], dirtyUnknown: true as const } : { dirtyPaths: [...shot.dirtyPaths] };
        if (!(await recordIt(shot.commit, dirty))) return;
        this.last = shot.commit;
        await this.deps.port.keep(record.turnId, boundary, shot.commit);
      } catch (error) {
        this.deps.log.log("warn", `file checkpoint ${boundary} ${record.turnId} failed`, { error, turnId: record.turnId });
        this.notice("warning", `File checkpoint skipped (${boundary} this turn)`, describeError(error), record);
      } finally {
        recorded();
      }
    };
    this.chain = this.chain.then(run);
    return done;
  }

  private async healOnce(): Promise<void> {
    if (this.healed) return;
    this.healed = true;
    const last = lastFileCheckpoint(this.deps.state());
    this.last = last?.commit;
    if (last === undefined || last.boundary === "rewind") return;
    await this.deps.port.keep(last.turnId, last.boundary, last.commit).catch((error: unknown) => this.deps.log.log("warn", "could not re-keep the last file checkpoint", { error }));
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
        source: BATON_SOURCE,
        ...(record.finalized ? {} : { turnId: record.turnId }),
        harnessTargetId: record.targetId,
      });
    } catch (error) {
      this.deps.log.log("warn", "could not record a file checkpoint notice", { error });
    }
  }
}
