#!/usr/bin/env node
// The README's test command: typecheck, then `bun test`, then one closing line `N passed, N failed`.
// Fails when the typecheck fails, when any test fails, or when no test ran.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => path.join(root, "node_modules", ".bin", name);
const args = process.argv.slice(2);

function run(command, argv, { capture = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { cwd: root, stdio: capture ? ["inherit", "inherit", "pipe"] : "inherit" });
    let stderr = "";
    if (capture) {
      child.stderr.on("data", (chunk) => {
        const text = chunk.toString();
        stderr += text;
        process.stderr.write(text);
      });
    }
    child.on("exit", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stderr }));
  });
}

if (!existsSync(bin("bun")) || !existsSync(bin("tsc"))) {
  console.error("test: node_modules is missing; run `npm install` first.");
  process.exit(2);
}

const skipTypecheck = args.includes("--no-typecheck");
const testArgs = args.filter((a) => a !== "--no-typecheck");

if (!skipTypecheck) {
  process.stdout.write("typecheck: tsc --noEmit\n");
  const tsc = await run(bin("tsc"), ["--noEmit", "-p", "."]);
  if (tsc.code !== 0) {
    console.log("typecheck failed");
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
}

const result = await run(bin("bun"), ["test", "--timeout", "120000", ...testArgs], { capture: true });
const count = (word) => {
  const match = result.stderr.match(new RegExp(`^\\s*(\\d+) ${word}\\s*$`, "m"));
  return match ? Number(match[1]) : 0;
};
const passed = count("pass");
const failed = count("fail");
const skipped = count("skip") + count("todo");
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
if (passed === 0) {
  console.error("test: no test ran");
  process.exit(1);
}
process.exit(result.code !== 0 || failed > 0 ? 1 : 0);
