#!/usr/bin/env node
// `npm run bench`: every benchmark in bench/, one after another (they measure the machine, so never in parallel).
// Not part of `npm test`. `npm run bench -- ledger tui` runs only the named ones.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bun = path.join(root, "node_modules", ".bin", "bun");
const wanted = process.argv.slice(2);
const benches = readdirSync(path.join(root, "bench"))
  .filter((name) => /\.(ts|tsx)$/.test(name) && !name.startsWith("_"))
  .filter((name) => wanted.length === 0 || wanted.includes(name.replace(/\.(ts|tsx)$/, "")))
  .sort();
if (benches.length === 0) {
  console.error(`bench: nothing matches ${wanted.join(", ")}`);
  process.exit(2);
}
const failed = [];
for (const name of benches) {
  console.log(`\n== bench/${name}`);
  const run = spawnSync(bun, [path.join("bench", name)], { cwd: root, stdio: "inherit" });
  if (run.status !== 0) failed.push(`${name} (exit ${run.status ?? run.signal})`);
}
console.log(`\nbench: ${benches.length - failed.length} of ${benches.length} ran${failed.length ? `; failed: ${failed.join(", ")}` : ""}`);
process.exit(failed.length ? 1 : 0);
