/**
 * The TUI runs React's production build (react-build.ts): each case loads the CLI in a fresh Bun process (React
 * is loaded once per process), runs a command whose modules import React, and reports the build React loaded and
 * what `NODE_ENV` reads afterwards — the variable the agents and tools Baton starts inherit.
 */
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(import.meta.dir, "../..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-react-build-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const PROBE = `
import { runCli } from ${JSON.stringify(path.join(ROOT, "src/app/cli.ts"))};
import { loadedReactBuild } from ${JSON.stringify(path.join(ROOT, "src/app/react-build.ts"))};
const sink = { write: () => undefined, isTTY: false };
const io = {
  stdout: sink, stderr: sink, stdin: (async function* () {})(), stdinIsTTY: false, env: process.env, cwd: process.cwd(),
  onInterrupt: () => () => undefined, onTerminate: () => () => undefined,
};
await runCli(JSON.parse(process.argv[2]), io);
// JSX compiled now (from a working directory outside the repository, as a user runs Baton) must still work.
const { probeElement } = await import(${JSON.stringify(path.join(ROOT, "tests/fixtures/react-build/element.tsx"))});
const element = probeElement();
process.stdout.write(JSON.stringify({ build: loadedReactBuild(), nodeEnv: process.env.NODE_ENV ?? null, has: Object.hasOwn(process.env, "NODE_ENV"), element: element.props.id }));
`;
const probeFile = path.join(dir, "probe.ts");
fs.writeFileSync(probeFile, PROBE);

interface Probe {
  readonly build: string | null;
  readonly nodeEnv: string | null;
  readonly has: boolean;
  readonly element: string;
}

function probe(argv: readonly string[], env: Record<string, string | undefined>): Omit<Probe, "element"> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== "NODE_ENV" && key !== "BATON_REACT_DEVELOPMENT") base[key] = value;
  for (const [key, value] of Object.entries(env)) if (value !== undefined) base[key] = value;
  base["HOME"] = dir;
  base["BATON_HOME"] = path.join(dir, "baton");
  const run = Bun.spawnSync([process.execPath, probeFile, JSON.stringify(argv)], { cwd: dir, env: base, stdout: "pipe", stderr: "pipe" });
  const out = run.stdout.toString();
  if (run.exitCode !== 0 || out === "") throw new Error(`probe failed (${run.exitCode}): ${run.stderr.toString()}`);
  const result = JSON.parse(out) as Probe;
  expect(result.element).toBe("react-build-probe");
  const { element: _, ...rest } = result;
  return rest;
}

describe("React's build in the CLI", () => {
  test("the TUI's modules (no command word) load React's production build, and NODE_ENV stays unset", () => {
    // An unknown flag goes to the TUI command, which imports the whole TUI and then rejects the flag.
    expect(probe(["--no-such-flag"], {})).toEqual({ build: "production", nodeEnv: null, has: false });
  });

  test("a command that imports the TUI (plugins) loads the production build too", () => {
    expect(probe(["plugins", "--help"], {})).toEqual({ build: "production", nodeEnv: null, has: false });
  });

  test("from a working directory outside the repository Bun emits jsxDEV; the production runtime still builds elements", () => {
    // probe() runs in a temp directory and renders one JSX element after the command loaded React.
    expect(probe(["--no-such-flag"], { NODE_ENV: "test" })).toEqual({ build: "production", nodeEnv: "test", has: true });
  });

  test("a user's own NODE_ENV is put back exactly for the processes Baton starts", () => {
    expect(probe(["--no-such-flag"], { NODE_ENV: "development" })).toEqual({ build: "production", nodeEnv: "development", has: true });
    expect(probe(["--no-such-flag"], { NODE_ENV: "" })).toEqual({ build: "production", nodeEnv: "", has: true });
  });

  test("BATON_REACT_DEVELOPMENT=1 keeps the development build", () => {
    expect(probe(["--no-such-flag"], { BATON_REACT_DEVELOPMENT: "1" })).toEqual({ build: "development", nodeEnv: null, has: false });
  });
});
