/** `baton sessions --tree` (TREE-01) through the CLI, in-process, over sessions with set times and forks. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { systemClock } from "../../src/shared/clock.ts";
import { createUlidSource } from "../../src/shared/ids.ts";
import { createSessionStore, type SessionStore } from "../../src/store/index.ts";
import { runCliOnce } from "../support/cli-runner.ts";

let base: string;
let cwd: string;
let env: Record<string, string | undefined>;
let store: SessionStore;

beforeEach(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "baton-tree-"));
  cwd = path.join(base, "project");
  mkdirSync(cwd, { recursive: true });
  env = { HOME: base, BATON_HOME: path.join(base, "home"), PATH: process.env["PATH"] };
  store = createSessionStore({ home: env["BATON_HOME"]!, clock: systemClock, ids: createUlidSource() });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function session(title: string, createdAt: string, updatedAt: string, parent?: string): string {
  const ref = store.createSession({ cwd, title });
  store.updateMeta(ref, (meta) => ({ ...meta, createdAt, updatedAt, ...(parent === undefined ? {} : { forkedFrom: { batonSessionId: parent as never, throughSeq: 0 } }) }));
  return ref.batonSessionId;
}

test("roots by the newest activity in their subtree, siblings oldest first, forks of forks deeper", async () => {
  const old = session("old root", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z");
  session("busy fork", "2026-01-03T00:00:00.000Z", "2026-01-09T00:00:00.000Z", old);
  const early = session("early fork", "2026-01-02T00:00:00.000Z", "2026-01-02T00:00:00.000Z", old);
  session("fork of a fork", "2026-01-04T00:00:00.000Z", "2026-01-04T00:00:00.000Z", early);
  session("middle root", "2026-01-05T00:00:00.000Z", "2026-01-06T00:00:00.000Z");
  const result = await runCliOnce(["sessions", "--tree"], { env, cwd, definitions: [] });
  expect(result.code).toBe(0);
  const titles = result.stdout
    .split("\n")
    .filter((line) => line.includes("@bs_"))
    .map((line) => line.replace(/@bs_\w+\s+\[[^\]]*\]\s+/, "").replace(/\s+\(.*$/, ""));
  expect(titles).toEqual(["old root", "└ early fork", "  └ fork of a fork", "└ busy fork", "middle root"]);
});
