/**
 * The store's three atomic replaces (`store/files.ts`) on a real full disk (a small tmpfs, root only): the
 * write fails with ENOSPC part-way through the temp's bytes, the raw error is thrown, the target keeps its old
 * bytes and no `.tmp-` file is left — the temp is removed whichever step failed. The checkpoint's writer used to
 * take the disk's first answer, a short write, for success and renamed a torn 64 KiB checkpoint over the good one.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeFileAtomic, writeFileAtomicSync, writeFileDurable } from "../../src/store/files.ts";
import { canMount, fillDisk, mountTmpfs, unmount } from "../support/tmpfs.ts";

let mounted: string | undefined;

afterEach(() => {
  if (mounted !== undefined) {
    unmount(mounted);
    fs.rmSync(mounted, { recursive: true, force: true });
  }
  mounted = undefined;
});

/** 256 KiB more than the 64 KiB left free: the temp fills the disk while it is written. */
const BIG = "x".repeat(320 * 1024);

const writers: Record<string, (target: string) => Promise<void>> = {
  "writeFileAtomic (checkpoints, pieces)": (target) => writeFileAtomic(target, [BIG.slice(0, 1000), BIG.slice(1000)], "checkpoint"),
  "writeFileDurable (meta.json)": (target) => writeFileDurable(target, BIG, "meta"),
  "writeFileAtomicSync (project.json, the lock)": async (target) => writeFileAtomicSync(target, BIG, "project"),
};

describe("an atomic write on a full disk", () => {
  for (const [name, write] of Object.entries(writers)) {
    test.if(canMount)(`${name}: ENOSPC, the old file untouched, no temp left`, async () => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "baton-atomic-"));
      mountTmpfs(root, "1m");
      mounted = root;
      const target = path.join(root, "state.json");
      fs.writeFileSync(target, "old\n");
      fillDisk(root, 64 * 1024);
      const error = await write(target).then(
        () => undefined,
        (thrown: unknown) => thrown as NodeJS.ErrnoException,
      );
      expect(error?.code).toBe("ENOSPC");
      expect(fs.readFileSync(target, "utf8")).toBe("old\n");
      expect(fs.readdirSync(root).filter((file) => file.includes(".tmp-"))).toEqual([]);
    });
  }
});
