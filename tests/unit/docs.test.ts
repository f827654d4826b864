/**
 * The README and docs/ stay true: the sample config copied as it is changes nothing, every example line in it
 * is valid once uncommented, and the docs cite only files that are in this repository.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig as loadWith } from "../../src/config/load.ts";
import { builtinDefinitions } from "../../src/app/harnesses.ts";

const loadConfig = (home: string, env: Record<string, string>) => loadWith(home, env, builtinDefinitions());
const root = path.resolve(import.meta.dir, "../..");
const readme = readFileSync(path.join(root, "README.md"), "utf8");

function sampleConfig(): string {
  const section = readme.slice(readme.indexOf("## Configure"));
  const match = section.match(/```yaml\n([\s\S]*?)```/);
  if (!match?.[1]) throw new Error("README has no yaml block under ## Configure");
  return match[1];
}

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), "baton-docs-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("README sample config", () => {
  test("copied as it is, it loads with no warning and equals the defaults", () => {
    writeFileSync(path.join(home, "config.yaml"), sampleConfig());
    const loaded = loadConfig(home, {});
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config).toEqual(loadConfig(mkdtempSync(path.join(os.tmpdir(), "baton-docs-empty-")), {}).config);
  });

  test("with every example uncommented, it is a valid config", () => {
    const uncommented = sampleConfig().replace(/^# ?/gm, "");
    writeFileSync(path.join(home, "config.yaml"), uncommented);
    const loaded = loadConfig(home, {});
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config.targets["codex-work"]).toMatchObject({ harness: "codex" });
  });
});

describe("docs cite what is in the repository", () => {
  const docs = readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md"));
  test.each(docs)("docs/%s", (name) => {
    const text = readFileSync(path.join(root, "docs", name), "utf8");
    const missing = [...text.matchAll(/`((?:\.\.\/)*(?:src|tests|bench|scripts|packages|docs|bin|shared|bundled-plugins|examples)\/[^`\s*]+?)`/g)]
      .map((m) => m[1] as string)
      .filter((cited) => !/[<{]/.test(cited) && !existsSync(path.resolve(root, cited.replace(/:\d+$/, ""))));
    expect(missing).toEqual([]);
  });
});

describe("pictures in the READMEs", () => {
  const readmes = ["README.md", ...readdirSync(path.join(root, "bundled-plugins"))
    .filter((name) => existsSync(path.join(root, "bundled-plugins", name, "package.json")))
    .map((name) => `bundled-plugins/${name}/README.md`)];
  test.each(readmes)("%s: every image it shows is a PNG in the repository", (file) => {
    const text = readFileSync(path.join(root, file), "utf8");
    const images = [...text.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1] as string);
    expect(images.length).toBeGreaterThan(0);
    const broken = images.filter((image) => {
      const resolved = path.resolve(root, path.dirname(file), image);
      return !image.endsWith(".png") || !existsSync(resolved) || !readFileSync(resolved).subarray(1, 4).equals(Buffer.from("PNG"));
    });
    expect(broken).toEqual([]);
  });

  test("the README's Loops section shows the test-watch card and the Board", () => {
    const loops = readme.slice(readme.indexOf("### Loops"), readme.indexOf("## Configure"));
    expect(loops).toContain("](docs/images/loops-test-watch.png)");
  });
});
