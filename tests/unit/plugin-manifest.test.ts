/** Package and marketplace manifests, settings, permissions: bad input is one clear line naming file and field. */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { checkEngines, parseMarketplaceManifest, parsePluginManifest } from "../../src/plugin/manifest.ts";
import { checkPackage } from "../../src/plugin/install/package.ts";
import { permissionGrowth, scrubEnvironment } from "../../src/plugin/permissions.ts";
import { parseSettings, SettingsStore } from "../../src/plugin/settings.ts";
import { pluginInstanceIdFor } from "../../src/shared/ids.ts";
import { thrownBatonError } from "../support/errors.ts";
import { fixtureVariant, tempDir } from "../support/plugin-rig.ts";

const FILE = "/p/.baton-plugin/plugin.json";
const base = {
  manifestVersion: 1,
  pluginId: "acme/hello",
  version: "0.1.0",
  entry: "index.js",
  engines: { baton: ">=0.1.0" },
  sdk: 1,
};

function messageOf(fn: () => unknown): string {
  return thrownBatonError(fn).message;
}

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

describe("plugin.json", () => {
  test("a minimal manifest gets defaults for permissions, contributes and limits", () => {
    const m = parsePluginManifest(JSON.stringify(base), FILE);
    expect(m.permissions).toEqual({ exec: [], env: [], network: false, fs: { write: false }, resourceTypes: [] });
    expect(m.contributes).toEqual({ commands: [], controllers: [], contextProviders: [] });
    expect(m.limits).toEqual({ reconcileTimeoutMs: 30_000, memoryMb: 1024 });
  });

  test.each([
    [{ ...base, pluginId: "hello" }, "/p/.baton-plugin/plugin.json: pluginId: owner/name"],
    [{ ...base, version: "1.0" }, "/p/.baton-plugin/plugin.json: version: a version like 1.2.3"],
    [{ ...base, entry: "../x.js" }, "/p/.baton-plugin/plugin.json: entry: must be a relative path inside the package"],
    [{ ...base, entry: "/etc/passwd" }, "/p/.baton-plugin/plugin.json: entry: must be a relative path inside the package"],
    [{ ...base, sdk: 2 }, "/p/.baton-plugin/plugin.json: sdk:"],
    [{ ...base, permissions: { execs: ["git"] } }, "/p/.baton-plugin/plugin.json: permissions: unknown field 'execs'"],
    [{ ...base, permissions: { exec: ["git log"] } }, "/p/.baton-plugin/plugin.json: permissions.exec[0]: a program name without spaces"],
    [{ ...base, contributes: { commands: [{ name: "Hello", description: "x" }] } }, "/p/.baton-plugin/plugin.json: contributes.commands[0].name: lowercase letters"],
    [{ ...base, contributes: { commands: [{ name: "a", description: "x" }, { name: "a", description: "y" }] } }, "contributes.commands[1].name: 'a' is listed twice"],
    [{ ...base, permissions: { resourceTypes: ["Foo/v1/Task"] } }, "/p/.baton-plugin/plugin.json: permissions.resourceTypes[0]: resource type 'Foo/v1/Task': apiVersion 'Foo/v1' must look like"],
    [{ ...base, permissions: { resourceTypes: ["example.dev/v1/task"] } }, "permissions.resourceTypes[0]: resource type 'example.dev/v1/task': kind 'task'"],
    [{ ...base, permissions: { resourceTypes: ["baton.dev/v1alpha1/Turn"] } }, "permissions.resourceTypes[0]: baton.dev/v1alpha1/Turn is Baton's read-only type; it cannot be owned"],
    [{ ...base, contributes: { controllers: [{ resourceType: "Task" }] } }, "contributes.controllers[0].resourceType: resource type 'Task' must be <apiVersion>/<Kind>"],
  ])("rejects %j", (manifest, expected) => {
    expect(messageOf(() => parsePluginManifest(JSON.stringify(manifest), FILE))).toContain(expected);
  });

  test("malformed JSON names the file", () => {
    expect(messageOf(() => parsePluginManifest("{", FILE))).toStartWith(`${FILE}: not valid JSON`);
  });

  test("engines.baton is checked against this Baton", () => {
    const m = parsePluginManifest(JSON.stringify({ ...base, engines: { baton: ">=2.0.0" } }), FILE);
    expect(messageOf(() => checkEngines(m, "0.1.0", FILE))).toBe(`${FILE}: engines.baton: acme/hello 0.1.0 needs Baton >=2.0.0; this is Baton 0.1.0`);
    expect(() => checkEngines(parsePluginManifest(JSON.stringify(base), FILE), "0.1.0", FILE)).not.toThrow();
  });
});

describe("marketplace.json", () => {
  const MFILE = "/m/.baton-plugin/marketplace.json";
  test("duplicate plugin ids are rejected (MKT-01)", () => {
    const text = JSON.stringify({ name: "acme", plugins: [{ pluginId: "acme/a", source: "a" }, { pluginId: "acme/a", source: "b" }] });
    expect(messageOf(() => parseMarketplaceManifest(text, MFILE))).toBe(`${MFILE}: plugins[1].pluginId: 'acme/a' is listed twice`);
  });
  test("a source may not leave the marketplace, a reserved name is refused", () => {
    expect(messageOf(() => parseMarketplaceManifest(JSON.stringify({ name: "acme", plugins: [{ pluginId: "acme/a", source: "../a" }] }), MFILE))).toContain("plugins[0].source: must be a relative path");
    expect(messageOf(() => parseMarketplaceManifest(JSON.stringify({ name: "local", plugins: [] }), MFILE))).toContain("name: 'local' is reserved");
  });
});

describe("package containment (realpath)", () => {
  test("an entry that is a symlink out of the package is refused", async () => {
    const dir = tempDir("baton-pkg-");
    dirs.push(dir);
    const pkg = fixtureVariant(path.join(dir, "pkg"), { manifest: (m) => (m["entry"] = "link.js") });
    writeFileSync(path.join(dir, "outside.js"), "export default {}");
    symlinkSync(path.join(dir, "outside.js"), path.join(pkg, "link.js"));
    const error = await checkPackage(pkg, { batonVersion: "0.1.0" }).catch((e: unknown) => e);
    expect((error as Error).message).toContain("entry: 'link.js' resolves outside the package");
  });

  test("any symlink out of the tree is refused, a dangling one too", async () => {
    const dir = tempDir("baton-pkg-");
    dirs.push(dir);
    const pkg = fixtureVariant(path.join(dir, "pkg"));
    symlinkSync("/etc", path.join(pkg, "etc"));
    expect(((await checkPackage(pkg, { batonVersion: "0.1.0" }).catch((e: unknown) => e)) as Error).message).toContain("a symlink out of the package (to /etc)");
    rmSync(path.join(pkg, "etc"));
    symlinkSync(path.join(pkg, "nothing-here"), path.join(pkg, "dangling"));
    expect(((await checkPackage(pkg, { batonVersion: "0.1.0" }).catch((e: unknown) => e)) as Error).message).toContain("a symlink to nothing");
  });

  test("the default export's identity is the manifest's; package.json version must agree", async () => {
    const dir = tempDir("baton-pkg-");
    dirs.push(dir);
    const pkg = fixtureVariant(path.join(dir, "pkg"));
    const pj = path.join(pkg, "package.json");
    writeFileSync(pj, readFileSync(pj, "utf8").replace('"version": "0.1.0"', '"version": "0.9.0"'));
    expect(((await checkPackage(pkg, { batonVersion: "0.1.0" }).catch((e: unknown) => e)) as Error).message).toBe(
      `${realpathSync(pj)}: version: '0.9.0' differs from .baton-plugin/plugin.json version '0.1.0'; make them equal`,
    );
    expect(((await checkPackage(fixtureVariant(path.join(dir, "ok")), { batonVersion: "0.1.0", expect: { pluginId: "other/id" } }).catch((e: unknown) => e)) as Error).message).toContain(
      "pluginId: the marketplace lists 'other/id' but the package says 'baton-test/fixture'",
    );
  });
});

describe("plugin.yaml", () => {
  test("a hand-written minimal file loads; pi_ ids are the same for the same key (PLG-02)", () => {
    const settings = parseSettings("plugins:\n  acme/hello@acme:\n    enabled: true\n    version: 0.1.0\n", "/h/plugin.yaml", "2026-01-01T00:00:00.000Z");
    const [only] = settings.instances;
    expect(only).toMatchObject({ key: "acme/hello@acme", pluginId: "acme/hello", marketplace: "acme", enabled: true, version: "0.1.0", createdAt: "2026-01-01T00:00:00.000Z" });
    expect(only?.pluginInstanceId).toBe(pluginInstanceIdFor("acme/hello@acme"));
    expect(only?.pluginInstanceId).toMatch(/^pi_[0-9a-f]{16}$/);
  });

  test("malformed YAML names the line; a corrupt file is never overwritten", async () => {
    const dir = tempDir("baton-settings-");
    dirs.push(dir);
    const file = path.join(dir, "plugin.yaml");
    const corrupt = "plugins:\n  acme/hello@acme:\n    enabled: [\n";
    writeFileSync(file, corrupt);
    const store = new SettingsStore(file);
    const error = await store.load().catch((e: unknown) => e);
    expect((error as Error).message).toMatch(new RegExp(`^${file}:\\d+: malformed YAML`));
    await expect(store.upsert("acme/hello@acme", { enabled: false })).rejects.toThrow(/malformed YAML/);
    expect(readFileSync(file, "utf8")).toBe(corrupt);
  });

  test("writes are atomic, keep other instances, and config must be plain JSON", async () => {
    const dir = tempDir("baton-settings-");
    dirs.push(dir);
    const store = new SettingsStore(path.join(dir, "plugin.yaml"));
    await store.upsert("a/b@m", { enabled: false, version: "1.0.0" });
    await store.upsert("c/d@m", { enabled: true, version: "2.0.0", config: { n: 1 } });
    await Promise.all([store.upsert("a/b@m", { enabled: true }), store.upsert("c/d@m", { enabled: false })]);
    const loaded = await store.load();
    expect(loaded.instances.map((i) => [i.key, i.enabled, i.version])).toEqual([
      ["a/b@m", true, "1.0.0"],
      ["c/d@m", false, "2.0.0"],
    ]);
    await expect(store.upsert("a/b@m", { config: { when: new Date() } })).rejects.toThrow(/plain JSON/);
  });
});

describe("permissions", () => {
  test("the runner environment is scrubbed: secrets only when declared", () => {
    const env = scrubEnvironment(
      { PATH: "/bin", HOME: "/h", LANG: "C", LC_ALL: "C", OPENAI_API_KEY: "k", GITHUB_TOKEN: "t", AWS_REGION: "x", RANDOM_THING: "r", BATON_PLUGIN_X: "1", MY_TOKEN: "declared" },
      ["MY_TOKEN"],
    );
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", LANG: "C", LC_ALL: "C", BATON_PLUGIN_X: "1", MY_TOKEN: "declared" });
    expect(scrubEnvironment({ GITHUB_TOKEN: "t", GITHUB_HOST: "h" }, ["GITHUB_*"])).toEqual({ GITHUB_TOKEN: "t", GITHUB_HOST: "h" });
  });

  test("consent is asked again only for what grew", () => {
    const before = { exec: ["git"], env: [], network: false, fs: { write: false }, resourceTypes: [] };
    expect(permissionGrowth(before, { ...before, exec: ["git"] })).toEqual([]);
    expect(permissionGrowth(before, { ...before, exec: ["git", "gh"], network: true })).toEqual(["may now run: gh", "now uses the network"]);
    expect(permissionGrowth(undefined, before)).toEqual(["may run: git"]);
  });
});
