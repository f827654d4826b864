/**
 * The session's storage as the controller sees it, watched for the first failed write (a full disk, an I/O
 * error) in the ledger or meta.json. That failure is the session's last word: the guard remembers it, tells
 * the controller once (which stops the turn, frees the queue and says so), and every later intent is refused
 * with it. Contract violations and other bugs are not storage failures and pass through untouched.
 */
import type { EventDraft } from "../event/envelope.ts";
import { BatonError, isBatonError } from "../shared/errors.ts";
import type { HarnessBinding } from "./binding.ts";
import type { LedgerPort, MetaPort } from "./ports.ts";
import type { TurnRecord } from "./turn-record.ts";
import type { TargetId } from "../shared/ids.ts";

/** A failed write of the session's own files (as opposed to a bad draft or a bug). */
export function isStorageFailure(error: unknown): error is BatonError {
  return isBatonError(error, "disk_full") || isBatonError(error, "ledger_io");
}

export class StorageGuard {
  private failed: BatonError | undefined;

  constructor(private readonly onFailed: (error: BatonError) => void) {}

  /** The first storage failure, if one happened. */
  get failure(): BatonError | undefined {
    return this.failed;
  }

  /** Throws the storage failure (for intents that would write). */
  assertWritable(what: string): void {
    const failure = this.failed;
    if (failure === undefined) return;
    throw new BatonError(failure.code, `${what}: this session stopped recording after a failed write (${failure.message})`, {
      cause: failure,
      ...(failure.hint === undefined ? {} : { hint: failure.hint }),
    });
  }

  /** Record a failure (idempotent: only the first one counts and is reported). */
  note(error: unknown): void {
    if (this.failed !== undefined || !isStorageFailure(error)) return;
    this.failed = error;
    this.onFailed(error);
  }

  ledger(port: LedgerPort): LedgerPort {
    port.onWriteFailure?.((error) => this.note(error));
    return {
      append: (draft: EventDraft) => {
        try {
          return port.append(draft);
        } catch (error) {
          this.note(error);
          throw error;
        }
      },
      sync: () =>
        port.sync().catch((error: unknown) => {
          this.note(error);
          throw error;
        }),
    };
  }

  meta(port: MetaPort): MetaPort {
    return {
      read: () => port.read(),
      flush: () =>
        (port.flush?.() ?? Promise.resolve()).catch((error: unknown) => {
          this.note(error);
          throw error;
        }),
      update: (change) => {
        try {
          port.update(change);
        } catch (error) {
          this.note(error);
          throw error;
        }
      },
    };
  }
}

export interface StopDeps {
  readonly turns: Iterable<TurnRecord>;
  readonly binding: (targetId: TargetId) => HarnessBinding | undefined;
  /** Close the turn (its terminal if the ledger still takes it, else in memory only). */
  readonly fail: (record: TurnRecord) => void;
  readonly graceMs: number;
  /** Stop every harness process once the interrupts were acknowledged (or the grace ran out). */
  readonly resetAll: () => Promise<void>;
}

/**
 * Stop what runs after the session stopped recording: each dispatched turn's harness is interrupted first
 * (so an accepted prompt does not go on to reach the model unrecorded), every turn is closed at once (its
 * submitter is told), and the harness processes are stopped once the interrupts were acknowledged or the
 * cancel grace ran out. Resolves when they are stopped.
 */
export function stopTurns(deps: StopDeps): Promise<void> {
  const interrupts: Promise<unknown>[] = [];
  const records = [...deps.turns].filter((record) => !record.finalized);
  for (const record of records) {
    const binding = deps.binding(record.targetId);
    const handle = binding?.handle;
    if (binding && handle && record.phase === "dispatched") interrupts.push(binding.adapter.cancel(handle, record.turnId).catch(() => undefined));
  }
  for (const record of records) deps.fail(record);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, deps.graceMs)));
  return Promise.race([Promise.all(interrupts), grace])
    .then(() => clearTimeout(timer))
    .then(() => deps.resetAll());
}
