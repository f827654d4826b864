/**
 * gh-review's loop: the PullRequestWatch reconcile polls when a poll is due — Baton's cron Source ticks every
 * five minutes (`POLL_CRON`, one catch-up tick after Baton was not running), and a turn that ran `git push`
 * wakes it at once — turns the open threads not proposed before into one ThreadBatch, and deletes the
 * batches whose threads are all resolved. Without `gh` or a login it shows a warning on the Board and tries
 * again at the next tick; nothing fails.
 */
import { ResourceError, type ActivationContext, type JsonValue, type Resource } from "baton-plugin";
import { createGh, type Gh } from "./gh.ts";
import type { ReconcileContext, ReconcileResult } from "./loop-api.ts";
import {
  BATCH_TYPE,
  batchName,
  batchText,
  planBatches,
  pollDue,
  prOf,
  REMEMBERED_THREADS,
  WATCH_REF,
  WATCH_TYPE,
  type BatchSpec,
  type WatchStatus,
} from "./review-threads.ts";

export interface GhReviewSettings {
  readonly target: string | undefined;
  readonly ghTimeoutMs: number;
}

export function readSettings(config: unknown): { settings: GhReviewSettings; problems: string[] } {
  const problems: string[] = [];
  const raw = typeof config === "object" && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>) : {};
  for (const key of Object.keys(raw)) if (key !== "target" && key !== "ghTimeoutMs") problems.push(`config.${key}: unknown setting (known: target, ghTimeoutMs); ignored`);
  let target: string | undefined;
  if (typeof raw["target"] === "string" && raw["target"].trim() !== "") target = raw["target"].trim();
  else if (raw["target"] !== undefined) problems.push(`config.target: must be a target id; the proposal goes to the current target`);
  let ghTimeoutMs = 20_000;
  const t = raw["ghTimeoutMs"];
  if (typeof t === "number" && Number.isInteger(t) && t >= 500 && t <= 120_000) ghTimeoutMs = t;
  else if (t !== undefined) problems.push(`config.ghTimeoutMs: must be a whole number of milliseconds from 500 to 120000; using 20000`);
  return { settings: { target, ghTimeoutMs }, problems };
}

const WARNINGS = {
  missing: "gh is not installed or not on PATH: install GitHub CLI (https://cli.github.com) to see review threads here",
  login: "gh is not logged in: run `gh auth login`",
} as const;

export class GhReview {
  private readonly gh: Gh;

  constructor(
    private readonly ctx: ActivationContext,
    private readonly settings: GhReviewSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.gh = createGh(ctx.exec, ctx.session.cwd, settings.ghTimeoutMs);
  }

  async reconcileWatch(baton: ReconcileContext, watch: Resource): Promise<ReconcileResult | undefined> {
    if (watch.metadata.deletionTimestamp !== undefined) return undefined;
    const status = watch.status as WatchStatus;
    // Baton's clock (the cron Source's); a Baton older than the field has only the runner's.
    const now = typeof baton.snapshot.now === "number" ? baton.snapshot.now : this.now();
    const turns = baton.snapshot.turns;
    const latest = turns.reduce((max, t) => Math.max(max, t.revision), status.seenRevision ?? 0);
    if (!pollDue(status, turns, now)) return undefined;
    const patch = await this.poll(baton.signal, status);
    await this.ctx.resources.patchStatus(WATCH_REF, { ...patch, lastPollAt: now, seenRevision: latest });
    return undefined;
  }

  private async poll(signal: AbortSignal, status: WatchStatus): Promise<Record<string, JsonValue>> {
    const warn = (warning: string): Record<string, JsonValue> => {
      if (warning !== status.warning) this.ctx.logger.warn(warning);
      return { warning };
    };
    const auth = await this.gh.authStatus(signal);
    if (!auth.ok) return warn(auth.problem === "missing" ? WARNINGS.missing : auth.problem === "login" ? WARNINGS.login : auth.detail);
    const pr = await this.gh.currentPr(signal);
    if (!pr.ok) {
      if (pr.problem !== "no-pr") return warn(pr.detail);
      await this.removeBatches(() => true);
      return { warning: null, pr: null, unresolved: null, note: "no pull request for this branch" };
    }
    const threads = await this.gh.threads(pr.value, signal);
    if (!threads.ok) return warn(threads.detail);
    const unresolved = threads.value.filter((t) => !t.isResolved);
    const batches = (await this.ctx.resources.list(BATCH_TYPE))
      .filter((b) => b.metadata.deletionTimestamp === undefined)
      .map((b) => ({ name: b.metadata.name, threadIds: (b.spec as unknown as BatchSpec).threads.map((t) => t.id) }));
    const proposed = status.proposed ?? [];
    const plan = planBatches(unresolved, proposed, batches);
    await this.removeBatches((name) => plan.remove.includes(name));
    let nextProposed = proposed;
    if (plan.fresh.length > 0) {
      const spec: BatchSpec = { pr: { number: pr.value.number, url: pr.value.url, title: pr.value.title }, threads: plan.fresh };
      const owner = await this.ctx.resources.get(WATCH_REF);
      try {
        await this.ctx.resources.create({
          ...BATCH_TYPE,
          metadata: { name: batchName(plan.fresh.map((t) => t.id)), ...(owner === undefined ? {} : { owner: { ...WATCH_TYPE, name: WATCH_REF.name, uid: owner.metadata.uid } }) },
          spec: spec as unknown as JsonValue,
        });
      } catch (error) {
        if (!(error instanceof ResourceError && error.code === "exists")) throw error;
      }
      nextProposed = [...proposed, ...plan.fresh.map((t) => t.id)].slice(-REMEMBERED_THREADS);
    }
    return { warning: null, note: null, pr: prOf(pr.value), unresolved: unresolved.length, proposed: [...nextProposed] };
  }

  private async removeBatches(which: (name: string) => boolean): Promise<void> {
    for (const batch of await this.ctx.resources.list(BATCH_TYPE)) {
      if (batch.metadata.deletionTimestamp === undefined && which(batch.metadata.name)) await this.ctx.resources.delete({ ...BATCH_TYPE, name: batch.metadata.name });
    }
  }

  reconcileBatch(batch: Resource): ReconcileResult | undefined {
    if (batch.metadata.deletionTimestamp !== undefined) return undefined;
    const spec = batch.spec as unknown as BatchSpec;
    const n = spec.threads.length;
    return {
      output: {
        kind: "proposed-input",
        title: `Address ${n} review thread${n === 1 ? "" : "s"} on PR #${spec.pr.number}`,
        text: batchText(spec),
        ...(this.settings.target === undefined ? {} : { targetId: this.settings.target }),
        contextRefs: [{ name: batch.metadata.name }],
      },
    };
  }
}
