/**
 * One session's file checkpoints in the git worktree around its cwd: the implementation of the controller's
 * FileCheckpointPort (the app wires it). The repository is probed once, on first use; no worktree → off.
 */
import { Git, type GitOptions } from "./git.ts";
import { checkpointRef, writeRefs } from "./refs.ts";
import { probeRepo, type RepoInfo, type RepoProbe } from "./repo.ts";
import { WorktreeSnapshots } from "./snapshot.ts";
import { changedPaths } from "./tree-diff.ts";

export interface SessionCheckpointsOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly sessionId: string;
  /** Baton's own index file for this session (in its directory). */
  readonly indexFile: string;
  readonly timeoutMs?: number;
}

export interface OpenRepo {
  readonly git: Git;
  readonly repo: RepoInfo;
  readonly snapshots: WorktreeSnapshots;
}

export class SessionCheckpoints {
  private probing: Promise<RepoProbe> | undefined;
  private opened: OpenRepo | undefined;

  constructor(private readonly options: SessionCheckpointsOptions) {}

  get sessionId(): string {
    return this.options.sessionId;
  }

  /** The worktree (top-level git, repo facts, snapshots), or why there is none. */
  async open(): Promise<OpenRepo | { readonly off: string }> {
    if (this.opened) return this.opened;
    const base: GitOptions = { cwd: this.options.cwd, env: this.options.env, ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }) };
    this.probing ??= probeRepo(new Git(base));
    const probe = await this.probing;
    if (probe.kind === "off") return { off: probe.reason };
    const git = new Git({ ...base, cwd: probe.repo.root });
    this.opened = { git, repo: probe.repo, snapshots: new WorktreeSnapshots(git, probe.repo, this.options.indexFile) };
    return this.opened;
  }

  /** A checkpoint commit, and (compared while it is committed) the paths changed since `previous`. */
  async snapshot(
    label: string,
    previous?: string,
    staged?: () => void,
  ): Promise<{ readonly commit: string; readonly dirtyPaths?: readonly string[] } | { readonly off: string }> {
    const open = await this.open();
    if ("off" in open) return open;
    const compare = previous === undefined ? undefined : (tree: string) => changedPaths(open.git, previous, tree).catch(() => undefined);
    const shot = await open.snapshots.take(label, compare, staged);
    return { commit: shot.commit, ...(shot.alongside === undefined ? {} : { dirtyPaths: shot.alongside }) };
  }

  async keep(turnId: string, boundary: "before" | "after", commit: string): Promise<void> {
    const open = await this.required();
    await writeRefs(open.git, [{ ref: checkpointRef(this.options.sessionId, turnId, boundary), commit }]);
  }

  private async required(): Promise<OpenRepo> {
    const open = await this.open();
    if ("off" in open) throw new Error(open.off);
    return open;
  }
}
