/**
 * config.yaml's parse cache (src/config/parse-cache.ts): a start whose config.yaml is the text last parsed loads no
 * YAML library, and gets exactly what a parse gives — values, origins and lines, warnings, every problem's wording.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { isJsonExact, parseCachePath, YAML_VERSION } from "../../src/config/parse-cache.ts";
import { builtinDefinitions } from "../../src/app/harnesses.ts";
import { describeError } from "../../src/shared/errors.ts";

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), "baton-config-cache-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const definitions = builtinDefinitions();
const write = (text: string) => writeFileSync(path.join(home, "config.yaml"), text);
const cacheFile = () => parseCachePath(home);
/** What a load gives: the loaded config (and where each value came from, and the warnings), or the error's words. */
function outcome(env: Record<string, string> = {}): unknown {
  try {
    const { config, origins, warnings, exists } = loadConfig(home, env, definitions);
    return { config, origins, warnings, exists };
  } catch (error) {
    return { error: describeError(error), hint: (error as { hint?: string }).hint };
  }
}

const SAMPLES: Record<string, string> = {
  "one key": "logLevel: debug\n",
  "comments, blank lines, an unknown key (warned with its line)": "# mine\n\nlogLevel: info\nshowThoughts: false\nmystery: 1\n",
  "a harness section": "harnesses:\n  codex:\n    command: [\"/opt/codex/bin/codex\"]\n",
  "a target with env": "targets:\n  fast:\n    harness: codex\n    env:\n      FOO: bar\n",
  "a bad value deep in a harness section (line 3)": "harnesses:\n  codex:\n    command: 5\n",
  "a bad top-level value": "logLevel: [1, 2]\ncancelGraceSeconds: -3\n",
  "an unknown key inside a harness section": "harnesses:\n  codex:\n    colour: blue\n",
  "an empty file": "",
  "a null document": "~\n",
  "aliases": "base: &b debug\nlogLevel: *b\n",
};

describe("config.yaml's parse cache", () => {
  for (const [name, text] of Object.entries(SAMPLES)) {
    test(`${name}: the cached load gives exactly what the parse gave`, () => {
      write(text);
      const parsed = outcome({ BATON_LOG_LEVEL: "" });
      expect(existsSync(cacheFile())).toBe(true);
      const cached = outcome({ BATON_LOG_LEVEL: "" });
      expect(cached).toEqual(parsed);
    });
  }

  test("a start whose file is the text last parsed loads no YAML library (its own process)", () => {
    write("logLevel: debug\nshowThoughts: false\n");
    const script = path.join(home, "probe.ts");
    writeFileSync(
      script,
      `import { loadConfig } from ${JSON.stringify(path.resolve(import.meta.dir, "../../src/config/load.ts"))};\n` +
        `const loaded = loadConfig(process.argv[2], {}, []);\n` +
        `console.log(JSON.stringify({ logLevel: loaded.config.logLevel, yaml: Object.keys(require.cache).some((key) => key.includes("/node_modules/yaml/")) }));\n`,
    );
    const run = () => JSON.parse(Bun.spawnSync([process.execPath, script, home], { stderr: "inherit" }).stdout.toString()) as { logLevel: string; yaml: boolean };
    expect(run()).toEqual({ logLevel: "debug", yaml: true });
    expect(run()).toEqual({ logLevel: "debug", yaml: false });
    write("logLevel: warn\nshowThoughts: false\n");
    expect(run()).toEqual({ logLevel: "warn", yaml: true });
  });

  test("an edited file is parsed again, never served from the cache", () => {
    write("logLevel: debug\n");
    outcome();
    write("logLevel: error\n");
    expect((outcome() as { config: { logLevel: string } }).config.logLevel).toBe("error");
  });

  test("malformed YAML is not cached: the same error, with its line, at every load", () => {
    write("logLevel: debug\nharnesses: [\n");
    const first = outcome();
    expect(existsSync(cacheFile())).toBe(false);
    expect(outcome()).toEqual(first);
    expect((first as { error: string }).error).toContain("malformed YAML");
  });

  test("a value JSON cannot carry exactly (.inf) is parsed at every load", () => {
    write("cancelGraceSeconds: .inf\n");
    const first = outcome();
    expect(existsSync(cacheFile())).toBe(false);
    expect(outcome()).toEqual(first);
    expect(isJsonExact({ a: [1, "x", null, true, { b: 2.5 }] })).toBe(true);
    for (const value of [Number.POSITIVE_INFINITY, Number.NaN, -0, new Date(0), JSON.parse(`{"__proto__": 1}`) as unknown, undefined]) expect(isJsonExact(value)).toBe(false);
  });

  test("a cache that is torn, foreign or of another text is ignored and replaced", () => {
    write("logLevel: debug\n");
    const parsed = outcome();
    mkdirSync(path.dirname(cacheFile()), { recursive: true });
    const good = readFileSync(cacheFile(), "utf8");
    const variants = [
      "{torn",
      JSON.stringify({ ...JSON.parse(good), format: 99 }),
      JSON.stringify({ ...JSON.parse(good), yaml: "0.0.1" }),
      JSON.stringify({ ...JSON.parse(good), digest: "0".repeat(64), raw: { logLevel: "error" } }),
      JSON.stringify({ ...JSON.parse(good), lines: { logLevel: "one" } }),
      JSON.stringify({ ...JSON.parse(good), raw: [1, 2] }),
    ];
    for (const variant of variants) {
      writeFileSync(cacheFile(), variant);
      expect(outcome()).toEqual(parsed);
      expect(readFileSync(cacheFile(), "utf8")).toBe(good);
    }
  });

  test("the cached parses are the installed yaml's", () => {
    const installed = createRequire(import.meta.url)("yaml/package.json") as { version: string };
    expect(YAML_VERSION).toBe(installed.version);
  });
});
