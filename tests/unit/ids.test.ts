/**
 * Minted ids (src/shared/ids.ts) come from the ulid package's build without node:crypto (issue #18: importing
 * node:crypto costs a Bun start ≈ 10–13 ms), and no module of src/ imports node:crypto (src/shared/digest.ts has
 * what Baton needs of it).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { createUlidSource, isBatonSessionId, ulidLibrary } from "../../src/shared/ids.ts";
import { randomHex, sha256Hex } from "../../src/shared/digest.ts";

const ROOT = path.resolve(import.meta.dir, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(entry.name) ? [full] : [];
  });
}

describe("ids", () => {
  test("session ids are bs_ + 26 Crockford characters, and ids minted in one millisecond still sort in mint order", () => {
    const source = createUlidSource(() => 1_700_000_000_000);
    const ids = Array.from({ length: 2000 }, () => source.mint("session"));
    expect(ids.every(isBatonSessionId)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]!.slice(3, 13)).toBe("01HF7YAT00"); // the time part is the ULID encoding of the clock's ms
  });

  test("prepare() loads the library the first mint would load, once; a source never prepared loads it at its first mint", () => {
    let loads = 0;
    const counted = () => {
      loads++;
      return ulidLibrary();
    };
    const prepared = createUlidSource(() => 1_700_000_000_000, counted);
    expect(loads).toBe(0); // creating a source loads nothing (a start that mints nothing never pays it)
    prepared.prepare?.();
    expect(loads).toBe(1);
    prepared.prepare?.();
    const ids = [prepared.mint("event"), prepared.mint("event")];
    expect(loads).toBe(1);
    expect(ids[0]! < ids[1]!).toBe(true); // still one monotonic factory
    const lazy = createUlidSource(() => 1_700_000_000_000, counted);
    expect(lazy.mint("turn")).toMatch(/^t_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(loads).toBe(2);
  });

  test("random characters come from Web Crypto a pool at a time, each byte once", () => {
    const real = crypto.getRandomValues.bind(crypto);
    const drawn: number[] = [];
    const spy = (array: Uint8Array) => {
      drawn.push(array.length);
      return real(array);
    };
    const original = crypto.getRandomValues;
    Object.defineProperty(crypto, "getRandomValues", { value: spy, configurable: true, writable: true });
    let now = 1_700_000_000_000;
    let ids: string[];
    try {
      // A new millisecond for each id: the library draws 16 random characters for every one.
      const source = createUlidSource(() => now++);
      ids = Array.from({ length: 1000 }, () => source.mint("event"));
    } finally {
      Object.defineProperty(crypto, "getRandomValues", { value: original, configurable: true, writable: true });
    }
    expect(new Set(ids).size).toBe(1000);
    // 16,000 characters: at most one pool (256 bytes) per 16 ids, plus the one the process may have begun.
    expect(drawn.length).toBeLessThanOrEqual(1000 / 16 + 1);
    expect(drawn.every((length) => length === 256)).toBe(true);
    // The random parts are not repeated from a reused byte (a pool handed out twice would repeat 16-character runs).
    expect(new Set(ids.map((id) => id.slice(13))).size).toBe(1000);
  });

  test("the ulid package is loaded from its build without node:crypto, minting loads no other, and a window without crypto does not matter", () => {
    const browserBuild = path.join(path.dirname(createRequire(import.meta.url).resolve("ulid")), "..", "browser", "index.cjs");
    expect(readFileSync(browserBuild, "utf8")).not.toMatch(/require\(["'](node:)?crypto["']\)|from ["'](node:)?crypto["']/);
    expect(typeof ulidLibrary().monotonicFactory).toBe("function");
    const script = [
      // A DOM stand-in without crypto (as the TUI tests have): the library would look there for its random source.
      `globalThis.window = {};`,
      `const { createUlidSource } = await import(${JSON.stringify(path.join(ROOT, "src/shared/ids.ts"))});`,
      `const id = createUlidSource().mint("event");`,
      `process.stdout.write(JSON.stringify({ id, loaded: Object.keys(require.cache).filter((file) => file.includes("/ulid/")) }));`,
    ].join("\n");
    const child = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT });
    if (child.exitCode !== 0) throw new Error(child.stderr.toString());
    const out = JSON.parse(child.stdout.toString()) as { id: string; loaded: string[] };
    expect(out.id).toMatch(/^ev_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(out.loaded.map((file) => file.split(path.sep).join("/").replace(/^.*\/node_modules\//, ""))).toEqual(["ulid/dist/browser/index.cjs"]);
  });

  test("no module of src/ imports node:crypto", () => {
    const offenders = sourceFiles(path.join(ROOT, "src")).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, index) => (/\bfrom\s+["'](node:)?crypto["']|require\(["'](node:)?crypto["']\)|import\(["'](node:)?crypto["']\)/.test(line) ? [`${path.relative(ROOT, file)}:${index + 1}`] : [])),
    );
    expect(offenders).toEqual([]);
  });

  test("digest.ts gives node:crypto's answers", async () => {
    const { createHash } = await import("node:crypto");
    for (const text of ["", "abc", "é ✓ 𝄞", "x".repeat(100_000)]) expect(sha256Hex(text)).toBe(createHash("sha256").update(text).digest("hex"));
    const bytes = new Uint8Array([0, 1, 2, 255]);
    expect(sha256Hex(bytes)).toBe(createHash("sha256").update(bytes).digest("hex"));
    const tokens = Array.from({ length: 100 }, () => randomHex(12));
    expect(tokens.every((token) => /^[0-9a-f]{24}$/.test(token))).toBe(true);
    expect(new Set(tokens).size).toBe(100);
  });
});
