/**
 * Saved hook trust (IX-11, CFG-03): `$BATON_HOME/state/hook.json`
 * `{trust:{targets:{<targetId>:{<hookKey>: fingerprint}}}}`. Other fields are preserved; writes are
 * atomic (temp + rename) under a cross-process lock file whose stale holders (dead pid, or older than
 * `staleLockMs`) are taken over. An unreadable or malformed file fails closed: `load` reports it and
 * the caller treats every hook as untrusted. A later save moves such a file aside
 * (`hook.json.corrupt-<ms>`) before writing a fresh one, so nothing is silently lost.
 */
import { randomHex } from "../../shared/digest.ts";
import fs from "node:fs";
import path from "node:path";
import { BatonError, describeError } from "../../shared/errors.ts";
import { isObjectRecord } from "../../shared/shape.ts";

/** Hook key → fingerprint, for one target. */
export type HookFingerprints = Readonly<Record<string, string>>;

export type HookTrustLoad =
  | { readonly ok: true; readonly targets: Readonly<Record<string, HookFingerprints>> }
  | { readonly ok: false; readonly error: string };

export interface HookTrustStoreOptions {
  /** How long a writer waits for a live lock before giving up. */
  readonly lockTimeoutMs?: number;
  /** A lock file older than this is stale whatever its pid says. */
  readonly staleLockMs?: number;
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const LOCK_RETRY_MS = 20;

type Parsed = { readonly ok: true; readonly whole: Record<string, unknown>; readonly targets: Record<string, HookFingerprints> } | { readonly ok: false; readonly error: string };

function errnoOf(error: unknown): string | undefined {
  return isObjectRecord(error) && typeof error["code"] === "string" ? error["code"] : undefined;
}

/** Parse the whole file; structure errors are corruption, a non-string fingerprint is just not trusted. */
function parse(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not valid JSON (${describeError(error)})` };
  }
  if (!isObjectRecord(value)) return { ok: false, error: "the top level is not an object" };
  const trust = value["trust"];
  if (trust === undefined) return { ok: true, whole: value, targets: {} };
  if (!isObjectRecord(trust)) return { ok: false, error: "`trust` is not an object" };
  const targets = trust["targets"];
  if (targets === undefined) return { ok: true, whole: value, targets: {} };
  if (!isObjectRecord(targets)) return { ok: false, error: "`trust.targets` is not an object" };
  const out: Record<string, HookFingerprints> = {};
  for (const [targetId, hooks] of Object.entries(targets)) {
    if (!isObjectRecord(hooks)) return { ok: false, error: `\`trust.targets.${targetId}\` is not an object` };
    const fingerprints: Record<string, string> = {};
    for (const [key, fingerprint] of Object.entries(hooks)) if (typeof fingerprint === "string" && fingerprint !== "") fingerprints[key] = fingerprint;
    out[targetId] = fingerprints;
  }
  return { ok: true, whole: value, targets: out };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoOf(error) === "EPERM";
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class HookTrustStore {
  private readonly lockTimeoutMs: number;
  private readonly staleLockMs: number;

  constructor(
    readonly file: string,
    options: HookTrustStoreOptions = {},
  ) {
    this.lockTimeoutMs = options.lockTimeoutMs ?? 5_000;
    this.staleLockMs = options.staleLockMs ?? 30_000;
  }

  get lockFile(): string {
    return `${this.file}.lock`;
  }

  /** Every target's saved fingerprints; a missing file is empty, an unreadable or malformed one is an error. */
  load(): HookTrustLoad {
    const read = this.read();
    return read.ok ? { ok: true, targets: read.targets } : read;
  }

  /** Save fingerprints for one target (merged over what is saved; other targets and fields kept). */
  async trust(targetId: string, fingerprints: HookFingerprints): Promise<void> {
    await this.withLock(() => {
      const read = this.read();
      let whole: Record<string, unknown> = {};
      if (read.ok) whole = read.whole;
      else if (fs.existsSync(this.file)) fs.renameSync(this.file, `${this.file}.corrupt-${Date.now()}`);
      const targets = read.ok ? read.targets : {};
      const trust = isObjectRecord(whole["trust"]) ? whole["trust"] : {};
      const next = {
        ...whole,
        trust: { ...trust, targets: { ...targets, [targetId]: { ...targets[targetId], ...fingerprints } } },
      };
      this.writeAtomic(`${JSON.stringify(next, null, 2)}\n`);
    });
  }

  private read(): Parsed {
    let text: string;
    try {
      text = fs.readFileSync(this.file, "utf8");
    } catch (error) {
      if (errnoOf(error) === "ENOENT") return { ok: true, whole: {}, targets: {} };
      return { ok: false, error: describeError(error) };
    }
    return parse(text);
  }

  private writeAtomic(data: string): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: DIR_MODE });
    const temp = `${this.file}.tmp-${process.pid}-${randomHex(6)}`;
    try {
      const fd = fs.openSync(temp, "wx", FILE_MODE);
      try {
        fs.writeSync(fd, data);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, this.file);
    } catch (error) {
      fs.rmSync(temp, { force: true });
      throw error;
    }
  }

  /** Run `fn` holding `<file>.lock` (O_EXCL create; stale holders are removed). */
  private async withLock(fn: () => void): Promise<void> {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: DIR_MODE });
    const token = `${process.pid} ${randomHex(8)}`;
    const deadline = Date.now() + this.lockTimeoutMs;
    for (;;) {
      try {
        fs.writeFileSync(this.lockFile, token, { flag: "wx", mode: FILE_MODE });
        break;
      } catch (error) {
        if (errnoOf(error) !== "EEXIST") throw error;
      }
      const holder = this.lockState();
      // Released meanwhile: try again at once. Never remove a lock we did not see go stale —
      // it may be a new holder's.
      if (holder === "gone") continue;
      if (holder === "stale") {
        fs.rmSync(this.lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new BatonError("busy", `Could not save hook trust: ${this.lockFile} is held by another process`, {
          hint: "Retry; remove the lock file if no Baton is running.",
        });
      }
      await sleep(LOCK_RETRY_MS);
    }
    try {
      fn();
    } finally {
      try {
        if (fs.readFileSync(this.lockFile, "utf8") === token) fs.rmSync(this.lockFile, { force: true });
      } catch {
        // already gone (taken over as stale): nothing of ours to remove
      }
    }
  }

  private lockState(): "held" | "stale" | "gone" {
    try {
      const holder = Number.parseInt(fs.readFileSync(this.lockFile, "utf8").split(" ")[0] ?? "", 10);
      const age = Date.now() - fs.statSync(this.lockFile).mtimeMs;
      if (age > this.staleLockMs) return "stale";
      // A lock being written right now may still be empty: not stale until it is a little old.
      if (!Number.isInteger(holder) || holder <= 0) return age > 1_000 ? "stale" : "held";
      return pidAlive(holder) ? "held" : "stale";
    } catch (error) {
      if (errnoOf(error) === "ENOENT") return "gone";
      throw error;
    }
  }
}
