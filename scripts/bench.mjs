#!/usr/bin/env node
// `npm run bench`: every benchmark in bench/, one after another (they measure the machine, so never in parallel).
// Not part of `npm test`. `npm run bench -- ledger tui` runs only the named ones. Each bench prints its figures as
// `figure  value  budget  ratio  OK|OVER` and closes with a `summary:` line; this collects those lines at the end.
// On a shared machine run it under the CPU lock: `flock /tmp/baton-cpu.lock npm run bench`.
import { spawn } from "node:child_process";
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

/** Runs one bench with its output shown as it comes; resolves with its exit status and its `summary:` lines. */
function run(name) {
  return new Promise((resolve) => {
    const child = spawn(bun, [path.join("bench", name)], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    const summaries = [];
    let pending = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text) => {
      process.stdout.write(text);
      pending += text;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.startsWith("summary:")) summaries.push(line);
    });
    child.on("close", (code, signal) => {
      if (pending.startsWith("summary:")) summaries.push(pending);
      resolve({ code, signal, summaries });
    });
  });
}

const results = [];
for (const name of benches) {
  console.log(`\n== bench/${name}`);
  results.push({ name, ...(await run(name)) });
}
console.log("\n== summary");
for (const { name, code, signal, summaries } of results) {
  const over = summaries.some((line) => /\bOVER\b/.test(line));
  const status = code === 0 ? (over ? "OVER" : "OK") : code === 1 && summaries.length > 0 ? "OVER" : `failed (exit ${code ?? signal})`;
  console.log(`${name.padEnd(24)} ${status.padEnd(8)} ${summaries.join(" | ") || "(no summary line)"}`);
}
const over = results.filter((r) => r.code !== 0 || r.summaries.some((line) => /\bOVER\b/.test(line)));
console.log(`bench: ${results.length} ran; ${results.length - over.length} within budget${over.length ? `; over or failed: ${over.map((r) => r.name).join(", ")}` : ""}`);
process.exit(over.length ? 1 : 0);
