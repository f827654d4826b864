/**
 * Temp directories of one test file, removed after each test. `tempDirs()` registers the file's afterEach and
 * returns the maker: each call is a fresh directory under the OS temp dir, by its real path (what the store
 * resolves a cwd to, so paths compare equal where the temp dir is behind a link).
 */
import { afterEach } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export function tempDirs(defaultPrefix = "baton-test-"): (prefix?: string) => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return (prefix = defaultPrefix) => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    dirs.push(dir);
    return dir;
  };
}
