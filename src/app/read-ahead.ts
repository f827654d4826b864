/**
 * After an open from an incremental checkpoint, the tables' indexes are read in the background (#18).
 *
 * An open reads the checkpoint's head and leaves the rest on disk until used (`src/projection/lazy.ts`). The
 * first write of a new id into a table — the first chunk of a message, a new tool call, a new turn — walks to the
 * id's leaf, so in a session just opened it read one or two records mid-stream: ≈ 30–45 µs on that streamed event,
 * and most of the streamed append's p99 (docs/storage.md). Here the same records are read ahead
 * (`readIndexes`: inner nodes and leaves, never values), a little while after the open so they stay off the first
 * frame's path, in slices of about a millisecond so they stay off everything else's.
 *
 * Bounded: it stops once the loaded-node cache holds half its limit (`NODE_CACHE`): an index that large (a session
 * of millions of events) would only push out what readers loaded, and is read on demand instead. It stops when the
 * session closes; a record that cannot be read stops it too (a reader that needs it reports the problem).
 */
import { readIndexes, type ProjectionState } from "../projection/index.ts";
import type { SessionLog } from "../store/index.ts";
import { loadedNodeStats, NODE_CACHE } from "../store/checkpoint-nodes.ts";

/** Settings (tests change them). */
export const READ_AHEAD = {
  /** After the open: a terminal's first frame comes first (a prompt is typed seconds later). */
  delayMs: 500,
  /** One slice of reads, then the event loop runs what waits. */
  sliceMs: 1,
};

/** Reads `state()`'s indexes ahead (from `delayMs` on) until done, `stopped()`, or the cache is half full; resolves then. */
export function readAhead(state: () => ProjectionState, stopped: () => boolean, log?: SessionLog, delayMs = READ_AHEAD.delayMs): Promise<void> {
  return new Promise<void>((done) => {
    let steps: Generator<void> | undefined;
    let records = 0;
    let busyMs = 0;
    /** One slice: why it ended the read-ahead, or undefined to go on. */
    const run = (): string | undefined => {
      if (stopped()) return "closed";
      steps ??= readIndexes(state());
      const until = performance.now() + READ_AHEAD.sliceMs;
      do {
        if (steps.next().done === true) return "done";
        records++;
        if (loadedNodeStats().bytes >= NODE_CACHE.maxBytes / 2) return "cache half full";
      } while (performance.now() < until);
      return undefined;
    };
    const slice = (): void => {
      const started = performance.now();
      let outcome: string | undefined;
      try {
        outcome = run();
      } catch (error) {
        log?.log("warn", "could not read the checkpoint's indexes ahead; they are read when used", { error });
        outcome = "failed";
      }
      busyMs += performance.now() - started;
      if (outcome === undefined) return void setImmediate(slice);
      log?.log("debug", "read the checkpoint's indexes ahead", { attributes: { outcome, records, busyMs: Math.round(busyMs * 10) / 10 } });
      done();
    };
    setTimeout(slice, delayMs).unref();
  });
}
