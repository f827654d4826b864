/** CI installs with `npm ci`: the lockfile must stay in sync with package.json (every platform package recorded). */
import { expect, test } from "bun:test";
import path from "node:path";

const root = path.resolve(import.meta.dir, "../..");

test("npm ci --dry-run accepts package-lock.json", () => {
  const run = Bun.spawnSync(["npm", "ci", "--dry-run", "--offline", "--no-audit", "--no-fund"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const errors = run.stderr.toString().split("\n").filter((line) => line.startsWith("npm error")).slice(0, 12).join("\n");
  expect(errors).toBe("");
  expect(run.exitCode).toBe(0);
}, 60_000);
