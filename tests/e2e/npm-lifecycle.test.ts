/**
 * npm's lifecycle scripts on a checkout that has no node_modules yet, as .ci/run meets it: `npm ci --dry-run`
 * (the lockfile check .ci/run makes before installing) runs `prepare` with no Bun anywhere. A `prepare` that
 * needs Bun failed CI there after 1 s ("sh: 1: bun: not found"); scripts/prepare.mjs runs on Node and leaves
 * Baton on its sources when no Bun is installed yet. Offline: the lockfile has everything `--dry-run` needs.
 */
import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "../..");
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A checkout without node_modules: package.json, the lockfile and scripts/, nothing else. */
function bareCheckout(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-npm-"));
  scratch.push(dir);
  for (const entry of ["package.json", "package-lock.json", "scripts"]) cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  return dir;
}

/** PATH with node and npm but no bun (the test runner's own bun lives elsewhere). */
function pathWithoutBun(): string {
  const node = Bun.which("node");
  const npm = Bun.which("npm");
  if (!node || !npm) throw new Error("node and npm must be on PATH for this test");
  const dirs = [...new Set([path.dirname(node), path.dirname(npm), "/usr/bin", "/bin"])];
  for (const dir of dirs) if (Bun.which("bun", { PATH: dir })) throw new Error(`${dir} holds a bun: the test needs a PATH without one`);
  return dirs.join(path.delimiter);
}

test("npm ci --dry-run on a checkout with no node_modules and no Bun passes (the .ci/run lockfile check)", () => {
  const dir = bareCheckout();
  const child = Bun.spawnSync(["npm", "ci", "--dry-run", "--offline", "--no-audit", "--no-fund"], {
    cwd: dir,
    env: { PATH: pathWithoutBun(), HOME: dir, npm_config_cache: path.join(dir, ".npm"), npm_config_update_notifier: "false" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = child.stdout.toString() + child.stderr.toString();
  expect({ code: child.exitCode, notFound: /bun: not found|command failed/.test(output) }).toEqual({ code: 0, notFound: false });
  expect(output).toContain("prepare: no Bun installed yet");
}, 60_000);
