/**
 * The prebuilt start (docs/start.md, src/app/start-bundle.ts, scripts/build-start.ts), through the real
 * `bin/baton.cjs` of a copy of the package: exactly the files package.json ships, node_modules linked. The copy is
 * built with `bun scripts/build-start.ts` as `npm run build`, `prepare` and `prepack` do; the checkout's own
 * dist/ is never touched. BATON_DEBUG_START=1 makes a start say which it ran; without it a start prints nothing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { EXIT_MARKER, Tmux } from "../support/tmux.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const BUN = process.execPath;
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) {
    spawn(["chmod", "-R", "u+w", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

function spawn(argv: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): { code: number; stdout: string; stderr: string } {
  const child = Bun.spawnSync([...argv], { cwd: options.cwd ?? ROOT, env: options.env ?? { PATH: process.env["PATH"] ?? "" }, stdout: "pipe", stderr: "pipe" });
  return { code: child.exitCode ?? 1, stdout: child.stdout.toString(), stderr: child.stderr.toString() };
}

/** A copy of the package as npm would ship it (package.json `files`), with this checkout's node_modules. */
function packageCopy(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-start-"));
  scratch.push(dir);
  chmodSync(dir, 0o755);
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { files: string[] };
  for (const entry of [...pkg.files, "package.json"]) {
    if (entry === "dist") continue;
    cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  }
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

function build(pkg: string, ...flags: string[]): { code: number; stdout: string; stderr: string } {
  return spawn([BUN, path.join(pkg, "scripts/build-start.ts"), ...flags], { cwd: pkg });
}

/** A home any user can write (the read-only cases run as nobody when the suite runs as root). */
function home(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-start-home-"));
  scratch.push(dir);
  chmodSync(dir, 0o777);
  return dir;
}

const asRoot = process.getuid?.() === 0;

/** `node bin/baton.cjs …` of the copy; `readOnly`: as a user who cannot write the copy (nobody under root). */
function baton(pkg: string, args: readonly string[], options: { debug?: boolean; readOnly?: boolean; env?: Record<string, string> } = {}) {
  const h = home();
  const env = { PATH: process.env["PATH"] ?? "", HOME: h, BATON_HOME: path.join(h, "baton"), ...(options.debug === true ? { BATON_DEBUG_START: "1" } : {}), ...options.env };
  const argv = ["node", path.join(pkg, "bin/baton.cjs"), ...args];
  return spawn(options.readOnly === true && asRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...argv] : argv, { cwd: h, env });
}

const started = (stderr: string): string => /baton: start: (bundle|sources)/.exec(stderr)?.[1] ?? `no start report in: ${stderr}`;

function makeReadOnly(pkg: string): void {
  if (!asRoot) spawn(["chmod", "-R", "a-w", pkg]);
}

const HELP_TS = "src/app/commands/help.ts";
const THEN = new Date("2020-01-01T00:00:00Z");
/** Gives help.ts an old mtime, as a checkout long ago would. */
function pinMtime(pkg: string): void {
  utimesSync(path.join(pkg, HELP_TS), THEN, THEN);
}
/** The same number of bytes and the same (old) mtime, so only the content tells: `--version` prints BATON. */
function editVersionLine(pkg: string): void {
  const file = path.join(pkg, HELP_TS);
  pinMtime(pkg);
  const before = statSync(file);
  const text = readFileSync(file, "utf8");
  const edited = text.replace("io.stdout.write(`baton ${packageVersion()}", "io.stdout.write(`BATON ${packageVersion()}");
  expect(edited).not.toBe(text);
  writeFileSync(file, edited);
  utimesSync(file, THEN, THEN);
  expect(statSync(file).size).toBe(before.size);
  expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
}

describe("the prebuilt start", () => {
  test("a build is used by bin/baton.cjs and prints what the sources print; without a build the sources run", () => {
    const pkg = packageCopy();
    const bare = baton(pkg, ["--version"], { debug: true });
    expect(started(bare.stderr)).toBe("sources");
    const built = build(pkg);
    expect(built.code).toBe(0);
    expect(built.stdout).toMatch(/^build-start: dist\/start-\w+ from \d+ files in \d+ ms\n$/);
    const fast = baton(pkg, ["--version"], { debug: true });
    expect(started(fast.stderr)).toBe("bundle");
    expect(fast.stdout).toBe(bare.stdout);
    expect(baton(pkg, ["--version"])).toEqual({ code: 0, stdout: bare.stdout, stderr: "" });
    // A lazily imported command's chunk, and its usage error, as from the sources.
    const unknown = baton(pkg, ["exec", "--no-such-flag"], { debug: true });
    expect(started(unknown.stderr)).toBe("bundle");
    const fromSources = baton(pkg, ["exec", "--no-such-flag"], { env: { BATON_START: "sources" } });
    expect(unknown.code).toBe(fromSources.code);
    expect(unknown.stderr.replace(/^baton: start: .*\n/m, "")).toBe(fromSources.stderr);
  });

  test("an edit to a source takes effect on the next run, even one that keeps the file's size and mtime; a rebuild uses the bundle again", () => {
    const pkg = packageCopy();
    pinMtime(pkg);
    expect(build(pkg).code).toBe(0);
    expect(baton(pkg, ["--version"]).stdout).toMatch(/^baton /);
    editVersionLine(pkg);
    const next = baton(pkg, ["--version"], { debug: true });
    expect(next.stdout).toMatch(/^BATON /);
    expect(next.stderr).toContain(`baton: start: sources (${HELP_TS} changed)`);
    expect(build(pkg).code).toBe(0);
    const rebuilt = baton(pkg, ["--version"], { debug: true });
    expect(started(rebuilt.stderr)).toBe("bundle");
    expect(rebuilt.stdout).toMatch(/^BATON /);
    // A file of the bundle's graph removed: the sources run (and fail to import it, as they would).
    unlinkSync(path.join(pkg, "src/app/start.ts"));
    expect(baton(pkg, ["--version"], { debug: true }).stderr).toContain("baton: start: sources (src/app/start.ts is gone)");
  });

  test("npm's install resets every mtime: the bundle still matches; its bytecode removed or a damaged manifest runs the sources, silently", () => {
    const pkg = packageCopy();
    expect(build(pkg).code).toBe(0);
    const npmTime = new Date("1985-10-26T08:15:00Z");
    const touchAll = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (name === "node_modules") continue;
        if (statSync(full).isDirectory()) touchAll(full);
        utimesSync(full, npmTime, npmTime);
      }
    };
    touchAll(pkg);
    expect(started(baton(pkg, ["--version"], { debug: true }).stderr)).toBe("bundle");

    const manifest = JSON.parse(readFileSync(path.join(pkg, "dist/start.json"), "utf8")) as { dir: string; outputs: [string, number][] };
    expect(manifest.outputs.map(([file]) => file)).toEqual(["start.js", "start.js.jsc"]);
    unlinkSync(path.join(pkg, "dist", manifest.dir, "start.js.jsc"));
    const noBytecode = baton(pkg, ["--version"]);
    expect(noBytecode).toEqual({ code: 0, stdout: expect.stringMatching(/^baton \d/), stderr: "" });
    expect(baton(pkg, ["--version"], { debug: true }).stderr).toContain(`dist/${manifest.dir}/start.js.jsc is missing or changed`);

    expect(build(pkg).code).toBe(0);
    writeFileSync(path.join(pkg, "dist/start.json"), readFileSync(path.join(pkg, "dist/start.json"), "utf8").slice(0, 100));
    expect(baton(pkg, ["--version"])).toEqual({ code: 0, stdout: expect.stringMatching(/^baton \d/), stderr: "" });
  });

  test("the bundle is bytecode: a build refuses a source Bun cannot compile to bytecode, and --if-possible leaves the sources in use", () => {
    const pkg = packageCopy();
    const file = path.join(pkg, HELP_TS);
    writeFileSync(file, `${readFileSync(file, "utf8")}\nexport const zodEntry = import.meta.resolve("zod");\n`);
    const refused = build(pkg);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Bun.build wrote no bytecode for the start");
    expect(refused.stderr).toContain("import.meta.resolve");
    expect(existsSync(path.join(pkg, "dist/start.json"))).toBe(false);
    expect(build(pkg, "--if-possible").code).toBe(0);
    expect(started(baton(pkg, ["--version"], { debug: true }).stderr)).toBe("sources");
  });

  test("a read-only install runs from its bundle, or from its sources when they changed, without a word; a build there fails plainly", () => {
    const pkg = packageCopy();
    expect(build(pkg).code).toBe(0);
    makeReadOnly(pkg);
    const fresh = baton(pkg, ["--version"], { readOnly: true, debug: true });
    expect(fresh.code).toBe(0);
    expect(started(fresh.stderr)).toBe("bundle");
    expect(baton(pkg, ["--version"], { readOnly: true })).toEqual({ code: 0, stdout: expect.stringMatching(/^baton \d/), stderr: "" });
    expect(baton(pkg, ["sessions"], { readOnly: true })).toMatchObject({ code: 0, stderr: "" });

    spawn(["chmod", "-R", "u+w", pkg]);
    editVersionLine(pkg);
    makeReadOnly(pkg);
    expect(baton(pkg, ["--version"], { readOnly: true })).toEqual({ code: 0, stdout: expect.stringMatching(/^BATON \d/), stderr: "" });

    const asUser = (flags: string[]) => {
      const argv = [BUN, path.join(pkg, "scripts/build-start.ts"), ...flags];
      return spawn(asRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...argv] : argv, { cwd: pkg, env: { PATH: process.env["PATH"] ?? "", HOME: home() } });
    };
    const prepare = asUser(["--if-possible"]);
    expect(prepare.code).toBe(0);
    expect(prepare.stderr).toMatch(/^build-start: no prebuilt start \(Baton runs from its sources\): .+\n$/);
    expect(asUser([]).code).toBe(1);
    expect(baton(pkg, ["--version"], { readOnly: true })).toEqual({ code: 0, stdout: expect.stringMatching(/^BATON \d/), stderr: "" });
  });

  test("builds and starts at once: every start runs, the manifest names a complete bundle, no temporary is left", async () => {
    const pkg = packageCopy();
    const env = { PATH: process.env["PATH"] ?? "" };
    const builds = [0, 1, 2].map(() => Bun.spawn([BUN, path.join(pkg, "scripts/build-start.ts")], { cwd: pkg, env, stdout: "pipe", stderr: "pipe" }));
    const h = home();
    const starts = [0, 1, 2, 3].map(() => Bun.spawn(["node", path.join(pkg, "bin/baton.cjs"), "--version"], { cwd: h, env: { ...env, HOME: h, BATON_HOME: path.join(h, "baton") }, stdout: "pipe", stderr: "pipe" }));
    for (const child of [...builds, ...starts]) expect(await child.exited).toBe(0);
    for (const child of starts) {
      expect(await new Response(child.stdout).text()).toMatch(/^baton \d/);
      expect(await new Response(child.stderr).text()).toBe("");
    }
    const manifest = JSON.parse(readFileSync(path.join(pkg, "dist/start.json"), "utf8")) as { dir: string; outputs: [string, number][] };
    for (const [file, size] of manifest.outputs) expect(statSync(path.join(pkg, "dist", manifest.dir, file)).size).toBe(size);
    expect(readdirSync(path.join(pkg, "dist")).filter((name) => name.includes("tmp"))).toEqual([]);
    expect(started(baton(pkg, ["--version"], { debug: true }).stderr)).toBe("bundle");
  });

  test("the TUI draws its first frame and exits cleanly from the bundle", async () => {
    const pkg = packageCopy();
    expect(build(pkg).code).toBe(0);
    const h = home();
    const log = path.join(h, "start.log");
    const tmux = Tmux.start({
      command: ["sh", "-c", `node ${JSON.stringify(path.join(pkg, "bin/baton.cjs"))} 2>${JSON.stringify(log)}`],
      env: { PATH: process.env["PATH"] ?? "", HOME: h, BATON_HOME: path.join(h, "baton"), BATON_DEBUG_START: "1", TERM: "screen-256color", LANG: "C.UTF-8" },
      cwd: h,
    });
    try {
      await tmux.waitFor("queue:", 20_000);
      tmux.keys("C-d");
      await tmux.waitFor(`${EXIT_MARKER}0]`, 20_000);
      expect(existsSync(log) ? started(readFileSync(log, "utf8")) : "no log").toBe("bundle");
    } finally {
      tmux.kill();
    }
  });
});
