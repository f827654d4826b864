/**
 * Failpoints for crash testing. `BATON_FAILPOINT=after:<event kind>[:<detail>]` makes the process stop
 * itself (SIGSTOP) right after the first matching event is on disk, so a test can `kill -9` it at an exact
 * point of a turn; `<detail>` matches the attempt phase or the state. `BATON_FAILPOINT=at:<step>[:<n>]`
 * stops it at the n-th (default first) pass of a named step inside an operation, e.g. `at:rewind-restore:1`
 * after the first file a rewind restored. `BATON_FAILPOINT=enospc:<site>[:<kind>[:<detail>]]` fills the
 * (simulated) disk at a write site — see `store/disk-faults.ts`. Unset: no effect.
 */
import type { AnyEvent } from "../event/envelope.ts";
import { WRITE_SITES, type DiskFaultPlan, type WriteSite } from "../store/index.ts";

/** The simulated full disk a `enospc:` failpoint asks for, if any. */
export function diskFaultFrom(spec: string | undefined): DiskFaultPlan | undefined {
  if (!spec?.startsWith("enospc:")) return undefined;
  const [, site, kind, detail] = spec.split(":");
  if (!(WRITE_SITES as readonly string[]).includes(site ?? "")) return undefined;
  return { site: site as WriteSite, ...(kind ? { kind } : {}), ...(detail ? { detail } : {}) };
}

export type Failpoint = (event: AnyEvent) => void;

export function failpointFrom(spec: string | undefined): Failpoint | undefined {
  if (!spec) return undefined;
  const [when, kind, detail] = spec.split(":");
  if (when !== "after" || !kind) return undefined;
  let fired = false;
  return (event) => {
    if (fired || event.kind !== kind) return;
    const payload = event.payload as { phase?: unknown; state?: unknown };
    if (detail !== undefined && payload.phase !== detail && payload.state !== detail) return;
    fired = true;
    process.kill(process.pid, "SIGSTOP");
  };
}

/** The `at:<step>[:<n>]` form for step `name`: call it with the step count; it stops the process at n. */
export function stepFailpointFrom(spec: string | undefined, name: string): ((count: number) => void) | undefined {
  if (!spec) return undefined;
  const [when, step, at] = spec.split(":");
  if (when !== "at" || step !== name) return undefined;
  const n = at === undefined ? 1 : Number(at);
  if (!Number.isInteger(n) || n < 1) return undefined;
  let fired = false;
  return (count) => {
    if (fired || count < n) return;
    fired = true;
    process.kill(process.pid, "SIGSTOP");
  };
}
