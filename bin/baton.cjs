#!/usr/bin/env node
// Baton's npm launcher: finds the package-local Bun runtime and runs the TypeScript entry with it,
// forwarding argv, environment, stdio, exit status and signals. Kept tiny on purpose.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const entry = path.join(root, "src", "app", "main.ts");

function isRealBinary(file) {
  try {
    return fs.statSync(file).size > 1024 * 1024;
  } catch {
    return false;
  }
}

function platformPackages() {
  const arch = process.arch;
  const os = process.platform;
  const musl = os === "linux" && process.env.OPENTUI_LIBC === "musl" ? "-musl" : "";
  return [`@oven/bun-${os}-${arch}${musl}`, `@oven/bun-${os}-${arch}${musl}-baseline`];
}

function findBun() {
  const override = process.env.BATON_BUN;
  if (override) return isRealBinary(override) ? override : null;
  const exe = process.platform === "win32" ? "bun.exe" : "bun";
  const searched = [];
  try {
    const bunPkg = path.dirname(require.resolve("bun/package.json", { paths: [root] }));
    const candidate = path.join(bunPkg, "bin", "bun.exe");
    searched.push(candidate);
    if (isRealBinary(candidate)) return candidate;
  } catch {
    // fall through to the platform package
  }
  for (const pkg of platformPackages()) {
    try {
      const dir = path.dirname(require.resolve(`${pkg}/package.json`, { paths: [root] }));
      const candidate = path.join(dir, "bin", exe);
      searched.push(candidate);
      if (isRealBinary(candidate)) return candidate;
    } catch {
      // not installed for this platform
    }
  }
  findBun.searched = searched;
  return null;
}

const bun = findBun();
if (!bun) {
  process.stderr.write(
    "baton: the Bun runtime that Baton runs on was not found.\n" +
      (findBun.searched && findBun.searched.length ? `  searched: ${findBun.searched.join(", ")}\n` : "") +
      "  Reinstall Baton (npm install) so its `bun` dependency is present, or set BATON_BUN to a bun binary.\n",
  );
  process.exit(1);
}

// BATON_LAUNCHER_PID lets Baton notice when this launcher is killed outright, so no Baton (and no agent) is left behind.
const child = spawn(bun, [entry, ...process.argv.slice(2)], { stdio: "inherit", env: { ...process.env, BATON_LAUNCHER_PID: String(process.pid) } });
for (const signal of ["SIGTERM", "SIGHUP", "SIGQUIT"]) {
  process.on(signal, () => {
    if (!child.killed) child.kill(signal);
  });
}
// Ctrl+C reaches the whole foreground process group; the child decides what it means.
process.on("SIGINT", () => {});
child.on("error", (error) => {
  process.stderr.write(`baton: could not start ${bun}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
