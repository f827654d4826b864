/**
 * Cron Sources (REC-06): `{type: "cron", sourceId, cron (5 or 6 fields, seconds first), timeZone (IANA)}`.
 * The timer is Baton's (the Manager's clock), never the plugin's: at each occurrence every current resource of
 * the controller's type is enqueued, and ticks of one controller that fall together are coalesced into one.
 * Occurrences are computed by croner in the source's time zone, so `0 9 * * *` in `America/New_York` is 09:00
 * there on both sides of a DST change (a wall time a spring-forward skips runs at the first valid minute).
 *
 * Due times are persisted per (controller, source) in `<session>/plugins/<instance>/cron.json`, so a restart
 * resumes them: a due time still ahead is kept; one that passed while Baton was not running gives **one**
 * catch-up tick at start (never a burst of every missed occurrence), then the next occurrence from now. A
 * changed cron or time zone starts afresh. The next due time is written after the tick's resources were
 * queued: a crash in between repeats the tick (at least once), never loses it.
 */
import { Cron } from "croner";
import type { Clock, TimerHandle } from "../../shared/clock.ts";
import { describeError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { isErrno } from "../../store/files.ts";
import { withFileLock, writeSmallFileAtomic } from "../../store/file-lock.ts";
import fs from "node:fs";

export interface CronSpec {
  readonly cron: string;
  readonly timeZone: string;
}

/** What is wrong with a cron Source's pattern or time zone, in words, or undefined. */
export function cronProblem(spec: CronSpec): string | undefined {
  if (typeof spec.cron !== "string" || typeof spec.timeZone !== "string") return "needs cron and timeZone strings";
  const fields = spec.cron.trim().split(/\s+/).filter((f) => f !== "");
  if (fields.length !== 5 && fields.length !== 6) return `cron '${spec.cron}' has ${fields.length} fields; use 5 (minute hour day month weekday) or 6 (seconds first)`;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: spec.timeZone });
  } catch {
    return `timeZone '${spec.timeZone}' is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)`;
  }
  try {
    if (nextCronRun(spec, Date.now()) === undefined) return `cron '${spec.cron}' never fires`;
  } catch (error) {
    return `cron '${spec.cron}': ${describeError(error).replace(/^CronPattern: /, "")}`;
  }
  return undefined;
}

/** The first occurrence strictly after `afterMs`, or undefined when there is none. Throws on an invalid pattern. */
export function nextCronRun(spec: CronSpec, afterMs: number): number | undefined {
  const job = new Cron(spec.cron.trim(), { timezone: spec.timeZone, paused: true, domAndDow: false });
  return job.nextRun(new Date(afterMs))?.getTime();
}

export interface CronSourceEntry extends CronSpec {
  readonly controllerId: string;
  readonly sourceId: string;
}

interface PersistedEntry extends CronSpec {
  readonly dueAt: number;
}

interface CronFile {
  readonly version: 1;
  readonly sources: Readonly<Record<string, PersistedEntry>>;
}

export interface CronTickerOptions {
  /** `<session>/plugins/<pluginInstanceId>/cron.json`. */
  readonly file: string;
  readonly sources: readonly CronSourceEntry[];
  readonly clock: Clock;
  readonly log: Logger;
  /** Enqueue every current resource of the controller (one tick; the ticker coalesces). */
  readonly tick: (controllerId: string) => Promise<void>;
}

const keyOf = (entry: { controllerId: string; sourceId: string }): string => `${entry.controllerId}#${entry.sourceId}`;

export class CronTicker {
  private readonly timers = new Map<string, TimerHandle>();
  private readonly due = new Map<string, number>();
  /** Controllers whose tick is being queued now (a tick falling together with it is the same tick). */
  private readonly ticking = new Set<string>();
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly work = new Set<Promise<void>>();

  constructor(private readonly options: CronTickerOptions) {}

  /** Resume persisted due times (one catch-up tick for those that passed), arm the timers. */
  async start(): Promise<void> {
    if (this.options.sources.length === 0) return;
    const persisted = await this.read();
    const now = this.options.clock.now();
    const catchUp = new Set<string>();
    for (const entry of this.options.sources) {
      const key = keyOf(entry);
      const before = persisted[key];
      const same = before !== undefined && before.cron === entry.cron && before.timeZone === entry.timeZone && Number.isFinite(before.dueAt);
      if (same && before.dueAt <= now) {
        catchUp.add(entry.controllerId);
        this.options.log.log("info", `cron source ${key} was due at ${new Date(before.dueAt).toISOString()} while Baton was not running: one catch-up tick`);
        this.schedule(entry, this.nextAfter(entry, now));
      } else if (same) {
        this.schedule(entry, before.dueAt);
      } else {
        this.schedule(entry, this.nextAfter(entry, now));
      }
    }
    await this.persist();
    for (const controllerId of catchUp) this.fire(controllerId);
  }

  /** The due time of a source (tests, benches). */
  dueAt(controllerId: string, sourceId: string): number | undefined {
    return this.due.get(keyOf({ controllerId, sourceId }));
  }

  /** Resolves once no tick is being queued or persisted. */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.all([...this.work]);
    await this.writing;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) this.options.clock.clearTimeout(timer);
    this.timers.clear();
  }

  private nextAfter(entry: CronSourceEntry, afterMs: number): number | undefined {
    try {
      return nextCronRun(entry, afterMs);
    } catch (error) {
      this.options.log.log("error", `cron source ${keyOf(entry)} cannot be scheduled: ${describeError(error)}`);
      return undefined;
    }
  }

  private schedule(entry: CronSourceEntry, dueAt: number | undefined): void {
    const key = keyOf(entry);
    const old = this.timers.get(key);
    if (old !== undefined) this.options.clock.clearTimeout(old);
    this.timers.delete(key);
    if (dueAt === undefined || this.closed) {
      this.due.delete(key);
      return;
    }
    this.due.set(key, dueAt);
    const timer = this.options.clock.setTimeout(() => {
      this.timers.delete(key);
      if (this.closed) return;
      // Several occurrences that passed at once (a suspended machine) are one tick, not a burst.
      const next = this.nextAfter(entry, Math.max(this.options.clock.now(), dueAt));
      this.schedule(entry, next);
      this.fire(entry.controllerId, true);
    }, Math.max(0, dueAt - this.options.clock.now()));
    this.timers.set(key, timer);
  }

  private fire(controllerId: string, persistAfter = false): void {
    if (this.closed) return;
    if (this.ticking.has(controllerId)) {
      if (persistAfter) this.track(this.persist());
      return;
    }
    this.ticking.add(controllerId);
    const work = (async () => {
      try {
        await this.options.tick(controllerId);
      } catch (error) {
        this.options.log.log("warn", `cron tick of ${controllerId} failed: ${describeError(error)}`);
      } finally {
        this.ticking.delete(controllerId);
      }
      if (persistAfter) await this.persist();
    })();
    this.track(work);
  }

  private track(work: Promise<void>): void {
    this.work.add(work);
    void work.finally(() => this.work.delete(work));
  }

  private async read(): Promise<Record<string, PersistedEntry>> {
    try {
      const parsed = JSON.parse(await fs.promises.readFile(this.options.file, "utf8")) as Partial<CronFile>;
      return typeof parsed.sources === "object" && parsed.sources !== null ? { ...parsed.sources } : {};
    } catch (error) {
      if (!isErrno(error, "ENOENT")) this.options.log.log("warn", `${this.options.file}: unreadable (${describeError(error)}); cron sources start afresh`);
      return {};
    }
  }

  /** Write this ticker's due times (merged with what other controllers' entries say), one write at a time. */
  private persist(): Promise<void> {
    const mine = new Map(this.options.sources.map((entry) => [keyOf(entry), entry]));
    this.writing = this.writing.then(async () => {
      try {
        await withFileLock(this.options.file, async () => {
          const sources: Record<string, PersistedEntry> = {};
          for (const [key, value] of Object.entries(await this.read())) if (!mine.has(key)) sources[key] = value;
          for (const [key, entry] of mine) {
            const dueAt = this.due.get(key);
            if (dueAt !== undefined) sources[key] = { cron: entry.cron, timeZone: entry.timeZone, dueAt };
          }
          const file: CronFile = { version: 1, sources };
          await writeSmallFileAtomic(this.options.file, `${JSON.stringify(file, null, 2)}\n`);
        });
      } catch (error) {
        this.options.log.log("error", `could not persist cron due times: ${describeError(error)}`);
      }
    });
    return this.writing;
  }
}
