/**
 * The install pipeline with the real npm, offline: pack → stage install (no lifecycle scripts) → check →
 * sha512 tree digest → atomic move + receipt; "already installed"; tampering refused; escapes refused;
 * marketplaces referenced in place.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { treeDigest } from "../../src/plugin/install/digest.ts";
import { PluginCatalog } from "../../src/plugin/catalog.ts";
import { runChild } from "../../src/rpc/run-child.ts";
import { BATON_VERSION, FIXTURE_DIR, FIXTURE_ID, fixtureVariant, npmEnv, tempDir } from "../support/plugin-rig.ts";

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  roots = [];
});

function setup(): { root: string; catalog: PluginCatalog } {
  const root = tempDir("baton-install-");
  roots.push(root);
  mkdirSync(path.join(root, "home"));
  return { root, catalog: new PluginCatalog({ home: path.join(root, "home"), batonVersion: BATON_VERSION, npm: { env: npmEnv(root) } }) };
}

async function packTo(root: string, dir: string): Promise<string> {
  const out = path.join(root, "tarballs");
  mkdirSync(out, { recursive: true });
  const result = await runChild({ label: "npm pack", file: "npm", args: ["pack", "--ignore-scripts", "--pack-destination", out, dir], cwd: root, env: npmEnv(root), timeoutMs: 60_000 });
  expect(result.ok).toBe(true);
  return path.join(out, result.stdout.trim().split("\n").pop() ?? "");
}

describe("install", () => {
  test("from a directory: receipt with the tree digest, lifecycle scripts never run, already installed keeps the old files", async () => {
    const { root, catalog } = setup();
    const source = fixtureVariant(path.join(root, "src"));
    const result = await catalog.install(source);
    expect(result.receipt).toMatchObject({ receiptVersion: 1, marketplace: "local", pluginId: FIXTURE_ID, version: "0.1.0", source: { kind: "directory" }, packageRoot: "node_modules/baton-fixture-plugin" });
    expect(result.dir).toBe(path.join(root, "home", "plugins", "packages", "local", "baton-test%2Ffixture", "0.1.0"));
    expect(await treeDigest(result.dir)).toBe(result.receipt.treeDigest);
    expect(result.receipt.treeDigest).toMatch(/^sha512-[A-Za-z0-9+/]+=*$/);
    expect(existsSync(path.join(result.dir, "node_modules", "baton-fixture-plugin", "postinstall-ran"))).toBe(false);
    expect(existsSync(path.join(source, "prepack-ran"))).toBe(false);
    expect(readdirSync(path.join(root, "home", "plugins", "staging"))).toEqual([]);

    writeFileSync(path.join(source, "index.js"), `${readFileSync(path.join(source, "index.js"), "utf8")}\n// changed\n`);
    const again = await catalog.install(source).catch((e: unknown) => e);
    expect((again as Error).message).toStartWith(`${FIXTURE_ID} 0.1.0 is already installed from local`);
    expect(readFileSync(path.join(result.dir, "node_modules", "baton-fixture-plugin", "index.js"), "utf8")).not.toContain("// changed");
    expect(await treeDigest(result.dir)).toBe(result.receipt.treeDigest);
  });

  test("from an npm tarball; a tampered install refuses to load", async () => {
    const { root, catalog } = setup();
    const tgz = await packTo(root, FIXTURE_DIR);
    const result = await catalog.install(tgz);
    expect(result.receipt.source).toEqual({ kind: "tarball", path: tgz });
    const loaded = await catalog.load("local", FIXTURE_ID, "0.1.0");
    expect(loaded.checked.entryPath).toBe(path.join(result.dir, "node_modules", "baton-fixture-plugin", "index.js"));

    writeFileSync(loaded.checked.entryPath, `${readFileSync(loaded.checked.entryPath, "utf8")}\nprocess.exit(9);\n`);
    const error = await catalog.load("local", FIXTURE_ID, "0.1.0").catch((e: unknown) => e);
    expect((error as Error).message).toContain("changed since it was installed (tree digest differs); refused to run it");
  });

  test("escape attempts are refused and leave nothing installed", async () => {
    const { root, catalog } = setup();
    const outside = path.join(root, "outside.js");
    writeFileSync(outside, "export default {}");
    const linked = fixtureVariant(path.join(root, "linked"), { manifest: (m) => (m["entry"] = "entry.js") });
    symlinkSync(outside, path.join(linked, "entry.js"));
    const pkg = JSON.parse(readFileSync(path.join(linked, "package.json"), "utf8")) as { files: string[] };
    pkg.files.push("entry.js");
    writeFileSync(path.join(linked, "package.json"), JSON.stringify(pkg));
    const linkError = (await catalog.install(linked).catch((e: unknown) => e)) as Error;
    expect(linkError.message).toMatch(/entry 'entry\.js' does not exist|resolves outside the package|symlink out of the package/);

    const dotdot = fixtureVariant(path.join(root, "dotdot"), { manifest: (m) => (m["entry"] = "../outside.js") });
    expect(((await catalog.install(dotdot).catch((e: unknown) => e)) as Error).message).toContain("entry: must be a relative path inside the package");

    const engines = fixtureVariant(path.join(root, "engines"), { manifest: (m) => (m["engines"] = { baton: ">=9.0.0" }) });
    expect(((await catalog.install(engines).catch((e: unknown) => e)) as Error).message).toContain("engines.baton: baton-test/fixture 0.1.0 needs Baton >=9.0.0; this is Baton 0.1.0");
    expect(await catalog.installed()).toEqual([]);
  });

  test("marketplaces: added in place, re-adding is a no-op, a taken name is an error, install by id and version", async () => {
    const { root, catalog } = setup();
    const market = path.join(root, "market");
    mkdirSync(path.join(market, ".baton-plugin"), { recursive: true });
    fixtureVariant(path.join(market, "fixture"));
    writeFileSync(path.join(market, ".baton-plugin", "marketplace.json"), JSON.stringify({ name: "acme", plugins: [{ pluginId: FIXTURE_ID, source: "fixture" }] }));
    const first = await catalog.marketplaces.add(market);
    expect(first.added).toBe(true);
    expect((await catalog.marketplaces.add(market)).added).toBe(false);
    const other = path.join(root, "other");
    mkdirSync(path.join(other, ".baton-plugin"), { recursive: true });
    writeFileSync(path.join(other, ".baton-plugin", "marketplace.json"), JSON.stringify({ name: "acme", plugins: [] }));
    expect(((await catalog.marketplaces.add(other).catch((e: unknown) => e)) as Error).message).toContain("a marketplace named 'acme' is already registered");

    expect(((await catalog.install(`${FIXTURE_ID}@0.2.0`).catch((e: unknown) => e)) as Error).message).toContain("0.1.0 is what this source offers, not 0.2.0");
    const installed = await catalog.install(`${FIXTURE_ID}@0.1.0`);
    expect(installed.receipt.marketplace).toBe("acme");
    await catalog.marketplaces.remove("acme");
    expect(existsSync(market)).toBe(true);
    expect((await catalog.installed()).map((v) => `${v.pluginId}@${v.marketplace} ${v.version}`)).toEqual([`${FIXTURE_ID}@acme 0.1.0`]);
  });
});
