/**
 * The ledger's writes, as one seam: the real file system (`nodeLedgerIo`), or a wrapper that injects disk faults
 * (`faultingLedgerIo` in disk-faults.ts). Its own file so that the fault injector does not import the ledger.
 */
import fs from "node:fs";

/** The few syscalls append and sync make; tests replace them to inject ENOSPC and short writes. */
export interface LedgerIo {
  /** Write `data` at the end (O_APPEND); returns the bytes written, which may be fewer than asked. */
  writeSync(fd: number, data: string | Uint8Array): number;
  ftruncateSync(fd: number, length: number): void;
  fdatasync(fd: number): Promise<void>;
}

export const nodeLedgerIo: LedgerIo = {
  writeSync: (fd, data) => (typeof data === "string" ? fs.writeSync(fd, data) : fs.writeSync(fd, data, 0, data.byteLength)),
  ftruncateSync: (fd, length) => fs.ftruncateSync(fd, length),
  fdatasync: (fd) => new Promise((resolve, reject) => fs.fdatasync(fd, (error) => (error ? reject(error) : resolve()))),
};
