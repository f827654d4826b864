/** An open session's meta.json (PROC-01): read from memory, written behind, newest wins, first failure is final. */
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BatonError } from "../../src/shared/errors.ts";
import { createMetaCache, readMeta, setDiskFaults, writeMeta, type SessionMeta } from "../../src/store/index.ts";

const dirs: string[] = [];
afterEach(() => {
  setDiskFaults(undefined);
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function sessionDir(): { dir: string; meta: SessionMeta } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-meta-"));
  dirs.push(dir);
  const meta: SessionMeta = { batonSessionId: "bs_00000000000000000000000001" as never, cwd: dir, createdAt: "2026-01-01T00:00:00.000Z", harnessSessions: {} };
  writeMeta(dir, meta);
  return { dir, meta };
}

test("reads come from memory at once; writes land behind, the newest content winning; flush waits for the disk", async () => {
  const { dir, meta } = sessionDir();
  const errors: BatonError[] = [];
  const cache = createMetaCache(dir, meta, (error) => errors.push(error));
  for (let i = 0; i < 20; i++) cache.update((m) => ({ ...m, title: `title ${i}` }));
  expect(cache.read().title).toBe("title 19");
  await cache.flush();
  expect(readMeta(dir).title).toBe("title 19");
  expect(fs.readdirSync(dir).filter((name) => name.includes(".tmp-"))).toEqual([]);
  expect(errors).toEqual([]);
});

test("an invalid change throws at once and changes nothing", () => {
  const { dir, meta } = sessionDir();
  const cache = createMetaCache(dir, meta, () => undefined);
  expect(() => cache.update((m) => ({ ...m, cwd: "" }))).toThrow(/refusing to write .*meta\.json/);
  expect(cache.read()).toBe(meta);
});

test("the first failed write is reported once and is the last; flush rejects with it; the old file stays", async () => {
  const { dir, meta } = sessionDir();
  const errors: BatonError[] = [];
  const cache = createMetaCache(dir, meta, (error) => errors.push(error));
  setDiskFaults({ site: "meta" });
  cache.update((m) => ({ ...m, title: "lost" }));
  await expect(cache.flush()).rejects.toThrow(/the disk is full: could not write .*meta\.json/);
  setDiskFaults(undefined);
  cache.update((m) => ({ ...m, title: "also kept in memory only" }));
  await expect(cache.flush()).rejects.toThrow(/disk is full/);
  expect(errors).toHaveLength(1);
  expect(errors[0]?.code).toBe("disk_full");
  expect(readMeta(dir).title).toBeUndefined();
  expect(fs.readdirSync(dir).filter((name) => name.includes(".tmp-"))).toEqual([]);
});
