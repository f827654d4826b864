/**
 * Bounded diagnostics: what an agent sent that Baton does not map (update kinds, extension notifications, late
 * chunks). Every occurrence is counted; the first few of each key go to the session log with a sample. The raw
 * message itself is always in the native trace. Nothing is dropped silently, and nothing grows without bound.
 */
import type { Logger } from "../../shared/log.ts";

const LOGGED_PER_KEY = 3;
const MAX_KEYS = 64;

export class Diagnostics {
  private readonly counts = new Map<string, number>();

  constructor(private readonly log: Logger) {}

  record(key: string, detail: string): void {
    const seen = this.counts.get(key);
    if (seen === undefined && this.counts.size >= MAX_KEYS) {
      this.bump("(other keys)");
      return;
    }
    const count = (seen ?? 0) + 1;
    this.counts.set(key, count);
    if (count <= LOGGED_PER_KEY) this.log.log("info", `acp: not mapped: ${key}${count === LOGGED_PER_KEY ? " (further ones are only counted)" : ""}`, { attributes: { detail } });
  }

  private bump(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Counts per key, e.g. for a closing log line and for tests. */
  snapshot(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.counts);
  }
}
