/**
 * Close waits for a checkpoint write still in flight (#12.2, the full-disk e2e's leftover
 * `checkpoint.jsonl.tmp-<pid>-<n>`): the turn's summary starts a checkpoint in the background; when the session
 * closes before it has renamed its file or removed its temp — after a write that failed on a full disk too — the
 * process exits right after close and the temp stays in the session directory. Here the write is held at one
 * step (the temp is open, or its removal after ENOSPC is pending) while the session closes: close must not resolve
 * before the write let go, and afterwards no temp is left.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { testSessions, waitFor } from "../support/session-host.ts";
import { CHECKPOINT_FILE, checkpointWritesSettled, faultingLedgerIo, nodeLedgerIo, setDiskFaults } from "../../src/store/index.ts";
import { NODES_PATTERN } from "../../src/store/checkpoint-nodes.ts";

const sessions = testSessions({ beforeCleanup: () => setDiskFaults(undefined) });
const text = (value: string) => [{ type: "text" as const, text: value }];
const isCheckpointTemp = (file: unknown) => path.basename(String(file)).startsWith(`${CHECKPOINT_FILE}.tmp-`);

type Step = "open" | "unlink";
const original = { open: fs.promises.open, unlink: fs.promises.unlink };
const isNodeFile = (file: unknown) => NODES_PATTERN.test(path.basename(String(file)));

/**
 * Holds the write at `step` until `release()`: just after the head's temp (or, `nodes`, the node file) was opened,
 * or just before the head's temp is removed. `fullAtHead`: the disk fills the moment the head's temp is open (the
 * node file's append fitted, the head did not).
 */
function holdCheckpointWrite(step: Step, options: { readonly nodes?: boolean; readonly fullAtHead?: boolean } = {}): { readonly held: () => boolean; release(): void } {
  let held = false;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const wait = async (file: unknown): Promise<void> => {
    if (!(options.nodes === true ? isNodeFile(file) : isCheckpointTemp(file))) return;
    held = true;
    await gate;
  };
  const open = original.open as (...args: unknown[]) => Promise<fs.promises.FileHandle>;
  fs.promises.open = (async (file: fs.PathLike, ...rest: unknown[]) => {
    const handle = await open(file, ...rest);
    if (options.fullAtHead === true && isCheckpointTemp(file)) setDiskFaults({ site: "checkpoint" });
    if (step === "open") await wait(file);
    return handle;
  }) as typeof fs.promises.open;
  if (step === "unlink") {
    fs.promises.unlink = (async (file: fs.PathLike) => {
      await wait(file);
      return original.unlink(file);
    }) as typeof fs.promises.unlink;
  }
  return { held: () => held, release };
}

const ledgers: string[] = [];
afterEach(async () => {
  fs.promises.open = original.open;
  fs.promises.unlink = original.unlink;
  // Without the fix a write outlives its close: let it end here, not inside the next test's full disk.
  for (const ledger of ledgers.splice(0)) await checkpointWritesSettled({ path: ledger }, 5000);
});

const WAITING_MS = 400;

describe("close and a checkpoint write in flight", () => {
  for (const [step, fault, what] of [
    ["open", "none", "the temp is being written"],
    ["unlink", "head", "the head's write failed with ENOSPC and its temp is being removed"],
    ["open", "nodes", "the node file's append is under way and fails with ENOSPC"],
  ] as const) {
    test(`${what}: close resolves only after the write let go, and no temp is left`, async () => {
      // On the full disk the ledger fails too (what close then writes is refused), as in `baton exec`.
      const s = await sessions.open({ definitions: [fakeDefinition({ turns: [[{ type: "text", text: "answer" }]] })], ledgerIo: faultingLedgerIo(nodeLedgerIo), checkpointTailBytes: 0 });
      ledgers.push(s.ref.paths.ledger);
      const gate = holdCheckpointWrite(step, { nodes: fault === "nodes", fullAtHead: fault === "head" });
      if (fault === "nodes") setDiskFaults({ site: "checkpoint" });
      expect(await s.controller.submit("fake", text("hello"))).toBe("completed");
      await waitFor(gate.held, 5000, "the turn's checkpoint write to reach its temp");
      const dir = path.dirname(s.ref.paths.ledger);
      // What the process would leave behind if it exited the moment close resolved.
      const closing = s.close().then(() => fs.readdirSync(dir).filter((name) => name.includes(".tmp-")));
      sessions.forget(s);
      const first = await Promise.race([closing.then(() => "closed"), new Promise((resolve) => setTimeout(() => resolve("waiting"), WAITING_MS))]);
      gate.release();
      expect(await closing).toEqual([]);
      expect(first).toBe("waiting");
      expect(fs.existsSync(path.join(dir, CHECKPOINT_FILE))).toBe(fault === "none");
      // A node file no head names is never left behind (the first checkpoint's is removed when its write fails).
      expect(fs.readdirSync(dir).filter((name) => NODES_PATTERN.test(name)).length).toBe(fault === "none" ? 1 : 0);
      expect(fs.existsSync(path.join(dir, "lock"))).toBe(false);
    });
  }
});
