#!/usr/bin/env node
// npm's `prepare` (npm install / npm ci in a checkout): builds the prebuilt start (docs/start.md) when Bun is there.
// Node runs this, not Bun: `npm ci --dry-run` (which .ci/run uses to check the lockfile) and an install whose
// `bun` package is not in place yet run `prepare` without a Bun, and that must not fail the install — Baton then
// runs from its sources, exactly as when the build cannot run (`--if-possible`).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const local = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun");

function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

const bun = existsSync(local) ? local : onPath("bun");
if (!bun) {
  process.stdout.write("prepare: no Bun installed yet, so no prebuilt start; Baton runs from its sources (`npm run build` makes it later)\n");
  process.exit(0);
}
const build = spawnSync(bun, [path.join(root, "scripts", "build-start.ts"), "--if-possible"], { cwd: root, stdio: "inherit" });
if (build.error) {
  process.stderr.write(`prepare: could not run ${bun} (${build.error.message}); Baton runs from its sources\n`);
  process.exit(0);
}
process.exit(build.status ?? 0);
