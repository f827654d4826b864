/**
 * Would this session open, and what is wrong with it? `baton doctor` reports exactly what opening
 * refuses (fatal) and what it repairs or ignores (warnings): the line checks every reader applies, a
 * lost history, and the fold itself — run the way open runs it (checkpoint verified, then the tail).
 */
import fs from "node:fs";
import { initialState } from "../projection/index.ts";
import { describeError } from "../shared/errors.ts";
import { LedgerLineError, loadState, lostHistoryProblem, scanLedger, type SessionRef, type SessionStore } from "../store/index.ts";
import { projectionFold } from "./open-session.ts";

export interface SessionFinding {
  /** True when opening the session refuses it. */
  readonly fatal: boolean;
  /** `path:line`, or the file. */
  readonly where: string;
  readonly message: string;
  /** What to do about it. */
  readonly action: string;
}

const FIX_LINE = "the session cannot be opened until this line is fixed or removed (back up the file first)";
const RAW_ONLY = "fix or remove the line's raw (back up the file first)";

export function checkSession(store: SessionStore, ref: SessionRef): SessionFinding[] {
  const findings: SessionFinding[] = [];
  const exists = fs.existsSync(ref.paths.ledger);
  const scan = exists ? scanLedger(ref.paths.ledger, ref.batonSessionId) : undefined;
  const lost = lostHistoryProblem(ref, scan?.lastSeq ?? 0, exists);
  if (lost !== undefined) {
    findings.push({ fatal: true, where: ref.paths.ledger, message: lost, action: `restore it from a backup, or move ${ref.paths.dir} away` });
    return findings;
  }
  /** Lines that are not JSON: fatal, unless only their `raw` is broken (an open does not parse it: below). */
  const unparsable: SessionFinding[] = [];
  for (const found of scan?.problems ?? []) {
    const where = found.line === undefined ? ref.paths.ledger : `${ref.paths.ledger}:${found.line}`;
    const message = found.message.startsWith(`${where}: `) ? found.message.slice(where.length + 2) : found.message;
    if (found.kind === "torn_tail") {
      findings.push({ fatal: false, where, message, action: "repaired automatically on the next write; the fragment is kept beside the ledger" });
    } else {
      const finding = { fatal: found.fatal, where, message, action: found.fatal ? FIX_LINE : "nothing to do" };
      findings.push(finding);
      if (found.kind === "corrupt_line") unparsable.push(finding);
    }
  }
  if (!exists || findings.some((finding) => finding.fatal && !unparsable.includes(finding))) return findings;
  // The fold, as open runs it: a transition the state machine refuses, or a checkpoint that no longer matches.
  // An open leaves each event's `raw` unparsed (store/ledger-load.ts): a line broken only there opens.
  try {
    const ledger = store.openLedger(ref, { readOnly: true });
    try {
      const loaded = loadState(ledger, { ...projectionFold, initial: () => initialState(ref.batonSessionId) });
      if (loaded.checkpointProblem !== undefined) {
        findings.push({ fatal: false, where: ref.paths.checkpoint, message: loaded.checkpointProblem, action: "it is discarded: the next open replays the whole ledger and writes a new one" });
      }
    } finally {
      void ledger.close();
    }
  } catch (error) {
    const where = error instanceof LedgerLineError ? `${error.file}:${error.line}` : ref.paths.ledger;
    if (!unparsable.some((finding) => finding.where === where)) {
      findings.push({ fatal: true, where, message: error instanceof LedgerLineError ? error.reason : describeError(error), action: FIX_LINE });
    }
    return findings;
  }
  return findings.map((finding) => (unparsable.includes(finding) ? { ...finding, fatal: false, message: `${finding.message}; only its raw (the wire message kept for the record) is broken: the session opens and exports, reads of whole lines (gc-checkpoints, re-import) refuse it`, action: RAW_ONLY } : finding));
}
