/**
 * Which command runs the project's tests: the `command` setting, else the `test` script of the project's
 * package.json (run with the package manager its lockfile names), else what the user answered when asked
 * once (kept for the project: `project-answer.ts`). `suggestions` are the options of that question, from
 * what the project looks like.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";

export type CommandSource = "settings" | "package.json" | "answer";

export interface ResolvedCommand {
  readonly command: string;
  readonly source: CommandSource;
}

/** npm's placeholder when `npm init` wrote no test. */
const NPM_PLACEHOLDER = /no test specified/;

type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

/** The package manager the project's lockfile names (npm without one). */
function packageManager(cwd: string): PackageManager {
  if (existsSync(path.join(cwd, "bun.lock")) || existsSync(path.join(cwd, "bun.lockb"))) return "bun";
  if (existsSync(path.join(cwd, "pnpm-lock.yaml"))) return "pnpm";
  if (existsSync(path.join(cwd, "yarn.lock"))) return "yarn";
  return "npm";
}

/** `npm test`, `pnpm test`, `yarn test`, `bun run test` (`bun test` is Bun's own runner, not the script). */
function testScriptCommand(pm: PackageManager): string {
  return pm === "bun" ? "bun run test" : `${pm} test`;
}

async function packageScripts(cwd: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(cwd, "package.json"), "utf8");
  } catch {
    return undefined;
  }
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
    return typeof scripts === "object" && scripts !== null && !Array.isArray(scripts) ? (scripts as Record<string, unknown>) : {};
  } catch {
    return undefined;
  }
}

/** The package.json `test` script as a command, or undefined (none, npm's placeholder, unreadable). */
export async function packageJsonCommand(cwd: string): Promise<string | undefined> {
  const test = (await packageScripts(cwd))?.["test"];
  if (typeof test !== "string" || test.trim() === "" || NPM_PLACEHOLDER.test(test)) return undefined;
  return testScriptCommand(packageManager(cwd));
}

export async function resolveCommand(cwd: string, fromSettings: string | undefined, answered: string | undefined): Promise<ResolvedCommand | undefined> {
  if (fromSettings !== undefined) return { command: fromSettings, source: "settings" };
  const fromPackage = await packageJsonCommand(cwd);
  if (fromPackage !== undefined) return { command: fromPackage, source: "package.json" };
  if (answered !== undefined) return { command: answered, source: "answer" };
  return undefined;
}

/**
 * Likely test commands for the question, from the files in the project's directory. It is only asked when
 * package.json has no usable `test` script, so that script is never offered; scripts with "test" in their
 * name (`test:unit`) are.
 */
export async function suggestions(cwd: string): Promise<string[]> {
  const has = (name: string): boolean => existsSync(path.join(cwd, name));
  const out: string[] = [];
  const scripts = await packageScripts(cwd);
  if (scripts !== undefined) {
    const pm = packageManager(cwd);
    for (const [name, body] of Object.entries(scripts)) {
      if (name !== "test" && /test/i.test(name) && typeof body === "string" && !NPM_PLACEHOLDER.test(body)) out.push(`${pm} run ${name}`);
    }
  }
  if (has("Cargo.toml")) out.push("cargo test");
  if (has("go.mod")) out.push("go test ./...");
  if (has("pyproject.toml") || has("pytest.ini") || has("setup.cfg") || has("tox.ini")) out.push("pytest -q");
  if (has("Makefile")) out.push("make test");
  if (has("Gemfile")) out.push("bundle exec rake test");
  return out.slice(0, 4);
}
