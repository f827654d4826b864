/**
 * The meta.json of an open session, held in memory (PROC-01): the session lock makes this process its
 * only writer, so reads never touch the disk and a change is written behind, off the event loop —
 * atomically (temp + fsync + rename), one write at a time, the newest content winning. A key press
 * that records the preview or a model choice therefore costs no file I/O (and a change is checked only where it
 * changed something, `checkMetaChange`); `flush()` waits for the
 * disk (close does). The first failed write (a full disk) is reported once and is the last: like the
 * ledger, the session stops recording — later changes stay in memory and `flush()` rejects with it.
 */
import { BatonError } from "../shared/errors.ts";
import { writeFileDurable } from "./files.ts";
import { checkMetaChange, metaPath, type SessionMeta } from "./meta.ts";
import { writeError } from "./write-errors.ts";

export interface MetaCache {
  read(): SessionMeta;
  /** Apply `change` now (validated; `meta_invalid` throws, nothing changes) and write it behind. */
  update(change: (meta: SessionMeta) => SessionMeta): SessionMeta;
  /** Resolves when everything changed so far is on disk; rejects with the write error that stopped it. */
  flush(): Promise<void>;
}

export function createMetaCache(sessionDir: string, initial: SessionMeta, onWriteError: (error: BatonError) => void): MetaCache {
  const file = metaPath(sessionDir);
  let current = initial;
  let written = initial;
  let writing: Promise<void> | undefined;
  let failure: BatonError | undefined;

  const writeBehind = (): Promise<void> => {
    if (failure !== undefined) return Promise.resolve();
    writing ??= (async () => {
      try {
        while (written !== current) {
          const next = current;
          const text = `${JSON.stringify(next, null, 2)}\n`;
          try {
            await writeFileDurable(file, text, "meta");
            written = next;
          } catch (error) {
            failure = writeError(file, "write", error, Buffer.byteLength(text));
            onWriteError(failure);
            return;
          }
        }
      } finally {
        writing = undefined;
      }
    })();
    return writing;
  };

  return {
    read: () => current,
    update(change) {
      const next = change(current);
      if (next === current) return current;
      const problem = checkMetaChange(current, next);
      if (problem !== undefined) throw new BatonError("meta_invalid", `refusing to write ${file}: ${problem}`);
      current = next;
      void writeBehind();
      return current;
    },
    async flush() {
      while (writing !== undefined) await writing;
      if (written !== current) await writeBehind();
      if (failure !== undefined) throw failure;
    },
  };
}
