/** Ledger line serialization, I/O error mapping and the torn-tail sidecar. */
import fs from "node:fs";
import { ENVELOPE_VERSION, validatePayload, type AnyEvent } from "../event/envelope.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import { checkDiskWrite } from "./disk-faults.ts";
import { FILE_MODE, closeQuietly, errnoCode, unlinkQuietly, writeAllSync } from "./files.ts";
import { writeError } from "./write-errors.ts";

export function serialize(event: AnyEvent): string {
  return `${serializeJson(event)}\n`;
}

/** The event's JSON (no newline); `contract_violation` when it cannot be serialized. */
export function serializeJson(event: AnyEvent): string {
  try {
    return JSON.stringify(event);
  } catch (error) {
    throw new BatonError("contract_violation", `${event.kind} draft cannot be serialized: ${describeError(error)}`);
  }
}

/** The most of an event's `raw` (the verbatim wire message) a ledger line keeps; the wire trace log has it whole. */
export const RAW_MAX_BYTES = 16 * 1024;
/** How much of an over-long `raw` (as JSON) its stand-in keeps. */
const RAW_HEAD_CHARS = 1024;

/**
 * A line whose `raw` is over `RAW_MAX_BYTES` keeps a stand-in instead — `{ omitted, bytes, head }` — so a large
 * prompt or tool output echoed on the wire is not stored again (issue 12.14). Only lines already over the
 * bound pay for the check. Returns the event as written (what is broadcast) and its line.
 */
export function boundRaw(event: AnyEvent, line: string, bytes: number): { event: AnyEvent; line: string; bytes: number } {
  if (bytes <= RAW_MAX_BYTES || event.raw === undefined) return { event, line, bytes };
  const raw = JSON.stringify(event.raw) ?? "";
  const rawBytes = Buffer.byteLength(raw);
  if (rawBytes <= RAW_MAX_BYTES) return { event, line, bytes };
  const bounded = { ...event, raw: { omitted: `raw over ${RAW_MAX_BYTES} bytes`, bytes: rawBytes, head: raw.slice(0, RAW_HEAD_CHARS) } };
  const boundedLine = serialize(bounded);
  return { event: bounded, line: boundedLine, bytes: Buffer.byteLength(boundedLine) };
}

/** A failed ledger write as one sentence: which file, how many bytes, how much space was left. */
export function ioError(file: string, action: string, error: unknown, bytes?: number): BatonError {
  return writeError(file, action, error, bytes);
}

/** Save a torn tail beside the ledger (`session.jsonl.partial-<ms>`); a failed save leaves no file behind. */
export function writeSidecar(ledgerPath: string, now: number, fragment: Buffer): string {
  for (let attempt = 0; ; attempt++) {
    const sidecar = `${ledgerPath}.partial-${now}${attempt === 0 ? "" : `-${attempt}`}`;
    let fd: number;
    try {
      fd = fs.openSync(sidecar, "wx", FILE_MODE);
    } catch (error) {
      if (errnoCode(error) !== "EEXIST" || attempt > 100) throw ioError(sidecar, "save the torn tail to", error, fragment.byteLength);
      continue;
    }
    try {
      checkDiskWrite("sidecar", sidecar);
      writeAllSync(fd, fragment);
      fs.fsyncSync(fd);
    } catch (error) {
      closeQuietly(fd);
      unlinkQuietly(sidecar);
      throw ioError(sidecar, "save the torn tail to", error, fragment.byteLength);
    }
    closeQuietly(fd);
    return sidecar;
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
  // The stamps first, then the draft's own keys in its order, `raw` last (a load whose fold does not read it parses
  // the line up to it, ledger-load.ts); the stamps are set again after the copy, so they win over a draft's. Copied
  // key by key, not spread and then `raw` deleted and set again (#18: with the direct encode in ledger.ts, the
  // streamed append 0.87× at p50).
  const event: Record<string, unknown> = { v: ENVELOPE_VERSION, eventId: stamps.eventId, seq: stamps.seq, ts: stamps.ts, scope };
  for (const key in record) if (key !== "raw" && Object.hasOwn(record, key)) event[key] = record[key];
  event["v"] = ENVELOPE_VERSION;
  event["eventId"] = stamps.eventId;
  event["seq"] = stamps.seq;
  event["ts"] = stamps.ts;
  event["scope"] = scope;
  if (record["raw"] !== undefined) event["raw"] = record["raw"];
  return event as unknown as AnyEvent;
}

/** Write all of `data` (`bytes` long) at the end of `fd`, completing short writes. Throws the raw error. */
export function writeFully(io: { writeSync(fd: number, data: string | Uint8Array): number }, fd: number, data: string | Uint8Array, bytes: number): void {
  let written = io.writeSync(fd, data);
  if (written >= bytes) return;
  const buffer = typeof data === "string" ? Buffer.from(data) : data;
  while (written < bytes) {
    const n = io.writeSync(fd, buffer.subarray(written));
    // A write that makes no progress would spin forever: report it like the full disk it usually is.
    if (n <= 0) throw Object.assign(new Error("ENOSPC: no space left on device, write (no progress)"), { code: "ENOSPC" });
    written += n;
  }
}
