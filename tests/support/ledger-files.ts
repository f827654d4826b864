/**
 * Ledger files of one property test: `ledgerFiles(session, prefix)` registers the file's cleanup and returns
 * `file()` (a fresh `session.jsonl` in its own temp dir) and `open(file)`, a ledger on a manual clock whose
 * ids come from a new block each open, so a reopened ledger never repeats an id it wrote before.
 */
import * as path from "node:path";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource, type BatonSessionId } from "../../src/shared/ids.ts";
import { openLedger, type Ledger } from "../../src/store/ledger.ts";
import { tempDirs } from "./temp-dirs.ts";

export interface LedgerFiles {
  file(): string;
  open(file: string): Ledger;
}

export function ledgerFiles(session: BatonSessionId, prefix: string): LedgerFiles {
  const dir = tempDirs(prefix);
  let idBlock = 0;
  return {
    file: () => path.join(dir(), "session.jsonl"),
    open(file) {
      idBlock += 1_000_000;
      return openLedger({ path: file, batonSessionId: session, clock: new ManualClock(), ids: createSequentialIdSource(idBlock) });
    },
  };
}
