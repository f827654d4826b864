/** The store's public surface. Low-level helpers (line framing, file utilities) stay internal. */
export * from "./checkpoint.ts";
export { DIR_MODE, FILE_MODE } from "./files.ts";
export * from "./file-lock.ts";
export * from "./fork.ts";
export * from "./ledger.ts";
export { LedgerLineError, readLedgerFile, scanLedger, type LedgerProblem, type LedgerProblemKind, type LedgerScan, type LocatedEvent } from "./ledger-read.ts";
export * from "./lock.ts";
export * from "./meta.ts";
export * from "./meta-cache.ts";
export * from "./project.ts";
export * from "./session-log.ts";
export * from "./session-store.ts";
export * from "./sessions.ts";
export * from "./display.ts";
export * from "./native-trace.ts";
export { faultingLedgerIo, noteLedgerWrite, noteLedgerWritten, setDiskFaults, WRITE_SITES, type DiskFaultPlan, type WriteSite } from "./disk-faults.ts";
export * from "./approvals-file.ts";
