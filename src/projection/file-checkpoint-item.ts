/** The projection's record of one `_baton_checkpoint` (its own file: state.ts stays small). */
import type { CheckpointBoundary } from "../event/kinds.ts";
import type { TargetId } from "../shared/ids.ts";

/** A file checkpoint (`_baton_checkpoint`): the working tree as a git commit at a turn boundary. */
export interface FileCheckpointItem {
  readonly turnId: string;
  readonly boundary: CheckpointBoundary;
  readonly commit: string;
  /** Paths that changed since the previous checkpoint (for `before`: outside any agent turn). */
  readonly dirtyPaths: readonly string[];
  /** The comparison with the previous checkpoint failed: anything may have changed. */
  readonly dirtyUnknown: boolean;
  /** `before`: the last seq before the turn began (where a rewind to it forks). */
  readonly throughSeq: number | null;
  /** `rewind`: the session, seq and worktree this rewind left (its undo point). */
  readonly undo: { readonly batonSessionId: string; readonly throughSeq: number; readonly commit: string } | null;
  readonly harnessTargetId: TargetId | null;
  readonly seq: number;
  readonly ts: string;
}
