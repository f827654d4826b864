/**
 * The plugin files' lock and atomic write (`store/file-lock.ts`) on a full disk: one sentence naming the file
 * (never a raw ENOSPC), nothing left behind (no empty lock, no temp file), the old file untouched; with space
 * again both work. On a real tmpfs (root), and through the `plugin` write site of the simulated disk.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BatonError } from "../../src/shared/errors.ts";
import { withFileLock, writeSmallFileAtomic } from "../../src/store/file-lock.ts";
import { setDiskFaults } from "../../src/store/index.ts";
import { canMount, fillDisk, mountTmpfs, unmount } from "../support/tmpfs.ts";

let mounted: string | undefined;
let dirs: string[] = [];

afterEach(() => {
  setDiskFaults(undefined);
  if (mounted !== undefined) unmount(mounted);
  mounted = undefined;
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-file-lock-"));
  dirs.push(dir);
  return dir;
}

async function failure(run: () => Promise<unknown>): Promise<BatonError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof BatonError) return error;
    throw new Error(`expected a BatonError, got ${String(error)} (${(error as { code?: string }).code ?? "no code"})`);
  }
  throw new Error("expected the write to fail");
}

const leftovers = (dir: string) => fs.readdirSync(dir).filter((name) => name.endsWith(".lock") || name.includes(".tmp-"));

describe("file lock and small atomic writes on a full disk", () => {
  test.if(canMount)("a real tmpfs with no space left: the lock and the write fail in one sentence each, leave nothing behind, and work once space is freed", async () => {
    const root = tempDir();
    mountTmpfs(root, "1m");
    mounted = root;
    const dir = path.join(root, "plugins");
    fs.mkdirSync(dir);
    const file = path.join(dir, "plugin.yaml");
    fs.writeFileSync(file, "instances: []\n");
    const filler = fillDisk(root, 0);
    expect(fs.statfsSync(root).bavail).toBe(0);

    let ran = false;
    const lock = await failure(() => withFileLock(file, () => (ran = true)));
    expect({ code: lock.code, message: lock.message }).toEqual({ code: "disk_full", message: expect.stringMatching(/^the disk is full: could not create the lock \S+plugin\.yaml\.lock \(\d+ B to write, 0 B free there\)$/) });
    expect(ran).toBe(false);

    const write = await failure(() => writeSmallFileAtomic(file, "instances: [a]\n"));
    expect({ code: write.code, message: write.message }).toEqual({ code: "disk_full", message: expect.stringMatching(/^the disk is full: could not write \S+plugin\.yaml \(15 B to write, 0 B free there\)$/) });
    expect(leftovers(dir)).toEqual([]);
    expect(fs.readFileSync(file, "utf8")).toBe("instances: []\n");

    fs.rmSync(filler);
    await withFileLock(file, () => writeSmallFileAtomic(file, "instances: [a]\n"));
    expect(fs.readFileSync(file, "utf8")).toBe("instances: [a]\n");
    expect(leftovers(dir)).toEqual([]);
  });

  test("the simulated full disk (site `plugin`) reaches the lock and the atomic write", async () => {
    const dir = tempDir();
    const file = path.join(dir, "marketplaces.json");
    fs.writeFileSync(file, "{}\n");
    setDiskFaults({ site: "plugin" });
    const lock = await failure(() => withFileLock(file, () => undefined));
    expect(lock.message).toStartWith(`the disk is full: could not create the lock ${file}.lock`);
    const write = await failure(() => writeSmallFileAtomic(file, '{"version":1}\n'));
    expect(write.message).toStartWith(`the disk is full: could not write ${file}`);
    expect(leftovers(dir)).toEqual([]);
    expect(fs.readFileSync(file, "utf8")).toBe("{}\n");
  });
});
