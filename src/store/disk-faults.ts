/**
 * A simulated full disk for crash tests (`BATON_FAILPOINT=enospc:<site>[:<kind>[:<detail>]]`, parsed by the
 * app). From the first write at `site` — for `ledger`, the first write carrying an event of `kind`; for the
 * other sites, the first one after an event of `kind` was written — every store write fails with ENOSPC, as if
 * the disk had just filled up: a ledger write first gets a short write (half its bytes), the way a real full
 * disk tears a line. Unset (production): one comparison per write, no effect.
 */
import type { LedgerIo } from "./ledger-io.ts";

export const WRITE_SITES = ["ledger", "meta", "project", "session", "lock", "checkpoint", "sidecar", "log", "plugin"] as const;
export type WriteSite = (typeof WRITE_SITES)[number];

export interface DiskFaultPlan {
  readonly site: WriteSite;
  readonly kind?: string;
  /** Matches the event's attempt phase or run state (like the SIGSTOP failpoints). */
  readonly detail?: string;
}

let plan: DiskFaultPlan | undefined;
let afterKindSeen = false;
let full = false;

export function setDiskFaults(next: DiskFaultPlan | undefined): void {
  plan = next;
  afterKindSeen = false;
  full = false;
}

export function isDiskFull(): boolean {
  return full;
}

function matchesEvent(kind: string, payload: unknown): boolean {
  if (plan?.kind !== kind) return false;
  if (plan.detail === undefined) return true;
  const fields = payload as { phase?: unknown; state?: unknown } | null;
  return fields?.phase === plan.detail || fields?.state === plan.detail;
}

/** The ledger is about to write an event: the disk fills here when the plan names it. */
export function noteLedgerWrite(kind: string, payload: unknown): void {
  if (plan === undefined || full) return;
  if (plan.site === "ledger" && matchesEvent(kind, payload)) full = true;
}

/** An event is on disk (for plans that fill the disk at another site after it). */
export function noteLedgerWritten(kind: string, payload: unknown): void {
  if (plan !== undefined && plan.site !== "ledger" && matchesEvent(kind, payload)) afterKindSeen = true;
}

/** Throws ENOSPC when the simulated disk is full (or fills up at this write). */
export function checkDiskWrite(site: WriteSite, file: string): void {
  if (plan === undefined) return;
  if (!full && site === plan.site && site !== "ledger" && (plan.kind === undefined || afterKindSeen)) full = true;
  if (full) throw enospc(file);
}

function enospc(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), { code: "ENOSPC", errno: -28, syscall: "write", path: file });
}

/** The ledger's syscalls under the plan: once full, one short write (half the bytes), then ENOSPC. */
export function faultingLedgerIo(base: LedgerIo): LedgerIo {
  let tore = false;
  return {
    ...base,
    writeSync(fd, data) {
      if (!full) return base.writeSync(fd, data);
      const bytes = typeof data === "string" ? Buffer.from(data) : data;
      if (!tore && bytes.byteLength > 1) {
        tore = true;
        return base.writeSync(fd, bytes.subarray(0, Math.floor(bytes.byteLength / 2)));
      }
      throw enospc("session.jsonl");
    },
  };
}
