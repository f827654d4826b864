/**
 * Only the commands that render bind React's jsx runtimes while loading (src/app/cli.ts loadCommand and
 * RENDERING_COMMANDS, src/app/react-build.ts): every other command starts without them. Each command's modules load in a fresh Bun,
 * as the CLI loads them; the ones that bring React must be exactly the listed ones (a command that renders but is
 * not listed would fail to link its JSX; a listed one that does not render pays for runtimes it never uses).
 */
import { describe, expect, test } from "bun:test";
import path from "node:path";
import { COMMANDS, RENDERING_COMMANDS } from "../../src/app/cli.ts";

const ROOT = path.resolve(import.meta.dir, "../..");

function loadsReact(command: string): { react: boolean; jsxRuntime: boolean } {
  const script = [
    `const { COMMANDS, loadCommand } = await import(${JSON.stringify(path.join(ROOT, "src/app/cli.ts"))});`,
    `await loadCommand(${JSON.stringify(command)}, COMMANDS[${JSON.stringify(command)}]);`,
    `const files = Object.keys(require.cache);`,
    `process.stdout.write(JSON.stringify({ react: files.some((f) => /[\\\\/]react[\\\\/]cjs[\\\\/]react\\./.test(f)), jsxRuntime: files.some((f) => /[\\\\/]react[\\\\/]cjs[\\\\/]react-jsx-(dev-)?runtime\\./.test(f)) }));`,
  ].join("\n");
  const env: Record<string, string | undefined> = { ...process.env };
  delete env["BATON_REACT_DEVELOPMENT"];
  delete env["NODE_ENV"];
  const child = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT, env });
  if (child.exitCode !== 0) throw new Error(`${command} did not load: ${child.stderr.toString()}`);
  return JSON.parse(child.stdout.toString()) as { react: boolean; jsxRuntime: boolean };
}

describe("which commands bind React's jsx runtimes", () => {
  for (const command of Object.keys(COMMANDS)) {
    const renders = RENDERING_COMMANDS.has(command);
    test(`${command} ${renders ? "renders: React and its jsx runtimes load" : "does not render: neither React nor its jsx runtimes load"}`, () => {
      expect(loadsReact(command)).toEqual({ react: renders, jsxRuntime: renders });
    });
  }
});
