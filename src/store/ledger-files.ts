/** Ledger line serialization, I/O error mapping and the torn-tail sidecar. */
import * as fs from "node:fs";
import { ENVELOPE_VERSION, validatePayload, type AnyEvent } from "../event/envelope.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import { FILE_MODE, errnoCode } from "./files.ts";

export function serialize(event: AnyEvent): string {
  let json: string;
  try {
    json = JSON.stringify(event);
  } catch (error) {
    throw new BatonError("contract_violation", `${event.kind} draft cannot be serialized: ${describeError(error)}`);
  }
  return `${json}\n`;
}

export function ioError(file: string, action: string, error: unknown): BatonError {
  const code = errnoCode(error);
  if (code === "ENOSPC" || code === "EDQUOT") {
    return new BatonError("disk_full", `cannot ${action} ${file}: the disk is full (${code}); the event was not recorded`, {
      cause: error,
      hint: "free some disk space; Baton keeps the session consistent and can continue afterwards",
    });
  }
  return new BatonError("ledger_io", `cannot ${action} ${file}: ${describeError(error)}`, { cause: error });
}

export function writeSidecar(ledgerPath: string, now: number, fragment: Buffer): string {
  for (let attempt = 0; ; attempt++) {
    const sidecar = `${ledgerPath}.partial-${now}${attempt === 0 ? "" : `-${attempt}`}`;
    try {
      fs.writeFileSync(sidecar, fragment, { mode: FILE_MODE, flag: "wx" });
      return sidecar;
    } catch (error) {
      if (errnoCode(error) !== "EEXIST" || attempt > 100) throw ioError(sidecar, "save the torn tail to", error);
    }
  }
}


/**
 * Stamp a host-attributed draft (validated first): the store's v, eventId, seq, ts and scope win over
 * anything the draft carried at runtime (EV-02). Throws `contract_violation` for an invalid draft.
 */
export function stampDraft(
  draft: unknown,
  stamps: { seq: number; eventId: string; ts: string; scope: { readonly type: "session"; readonly batonSessionId: string } },
): AnyEvent {
  const record = draft as Record<string, unknown>;
  if (typeof record["kind"] !== "string" || record["kind"].length === 0) {
    throw new BatonError("contract_violation", "event draft has no kind");
  }
  const kind = record["kind"];
  const source = record["source"] as { type?: unknown } | undefined;
  if (typeof source !== "object" || source === null || typeof source.type !== "string") {
    throw new BatonError("contract_violation", `${kind} draft has no source (the host must stamp it)`);
  }
  const problem = validatePayload(kind, record["payload"]);
  if (problem !== undefined) throw new BatonError("contract_violation", problem);
  const scope = stamps.scope;
  const event: Record<string, unknown> = { v: ENVELOPE_VERSION, eventId: stamps.eventId, seq: stamps.seq, ts: stamps.ts, scope, ...record };
  event["v"] = ENVELOPE_VERSION;
  event["eventId"] = stamps.eventId;
  event["seq"] = stamps.seq;
  event["ts"] = stamps.ts;
  event["scope"] = scope;
  return event as unknown as AnyEvent;
}

/** Write all of `data` (`bytes` long) at the end of `fd`, completing short writes. Throws the raw error. */
export function writeFully(io: { writeSync(fd: number, data: string | Uint8Array): number }, fd: number, data: string | Uint8Array, bytes: number): void {
  let written = io.writeSync(fd, data);
  if (written >= bytes) return;
  const buffer = typeof data === "string" ? Buffer.from(data) : data;
  while (written < bytes) written += io.writeSync(fd, buffer.subarray(written));
}
