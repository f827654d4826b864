/**
 * Which command runs the project's tests: the `command` setting, else the `test` script of the project's
 * package.json (run with the package manager its lockfile names), else what the user answered when asked
 * once. `suggestions` are the options of that question, from what the project looks like.
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

function packageManager(cwd: string): string {
  if (existsSync(path.join(cwd, "bun.lock")) || existsSync(path.join(cwd, "bun.lockb"))) return "bun run test";
  if (existsSync(path.join(cwd, "pnpm-lock.yaml"))) return "pnpm test";
  if (existsSync(path.join(cwd, "yarn.lock"))) return "yarn test";
  return "npm test";
}

/** The package.json `test` script as a command, or undefined (none, npm's placeholder, unreadable). */
export async function packageJsonCommand(cwd: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(cwd, "package.json"), "utf8");
  } catch {
    return undefined;
  }
  try {
    const scripts = (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts;
    const test = scripts?.["test"];
    if (typeof test !== "string" || test.trim() === "" || NPM_PLACEHOLDER.test(test)) return undefined;
    return packageManager(cwd);
  } catch {
    return undefined;
  }
}

export async function resolveCommand(cwd: string, fromSettings: string | undefined, answered: string | undefined): Promise<ResolvedCommand | undefined> {
  if (fromSettings !== undefined) return { command: fromSettings, source: "settings" };
  const fromPackage = await packageJsonCommand(cwd);
  if (fromPackage !== undefined) return { command: fromPackage, source: "package.json" };
  if (answered !== undefined) return { command: answered, source: "answer" };
  return undefined;
}

/** Likely test commands for the question, from the files in the project's directory. */
export function suggestions(cwd: string): string[] {
  const has = (name: string): boolean => existsSync(path.join(cwd, name));
  const out: string[] = [];
  if (has("Cargo.toml")) out.push("cargo test");
  if (has("go.mod")) out.push("go test ./...");
  if (has("pyproject.toml") || has("pytest.ini") || has("setup.cfg") || has("tox.ini")) out.push("pytest -q");
  if (has("Makefile")) out.push("make test");
  if (has("package.json")) out.push(packageManager(cwd));
  if (has("Gemfile")) out.push("bundle exec rake test");
  return out.slice(0, 4);
}
