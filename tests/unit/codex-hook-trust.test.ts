/**
 * Saved hook trust (IX-11, CFG-03) and the Codex hook-trust preflight logic (COD-05) without a process:
 * the fingerprint store (shape, preserved fields, atomic write, fail-closed load, lock), the argv
 * helpers, candidate selection, fingerprints, and every preflight outcome against a scripted host.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HookTrustStore } from "../../src/harness/codex/hook-trust-store.ts";
import {
  HOOK_BYPASS_FLAG,
  hookCandidates,
  hookFingerprint,
  hookTrustEntry,
  needsHookPreflight,
  preflightHookTrust,
  summariseOwners,
  verifyHookTrust,
  withHookBypass,
  type HookPreflightDeps,
} from "../../src/harness/codex/hook-trust.ts";
import type { HookMetadata } from "../../src/harness/codex/protocol/v2/HookMetadata";
import type { HooksListResponse } from "../../src/harness/codex/protocol/v2/HooksListResponse";
import { isBatonError } from "../../src/shared/errors.ts";
import type { TurnId } from "../../src/shared/ids.ts";
import { silentLogger } from "../../src/shared/log.ts";
import { ScriptedInteractions } from "../support/recording-host.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-hook-trust-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function hook(overrides: Partial<Record<string, unknown>> = {}): HookMetadata {
  return {
    key: "/home/u/.codex/hooks.json:session_start:0:0",
    eventName: "sessionStart",
    handlerType: "command",
    command: "echo hi",
    async: false,
    matcher: null,
    timeoutSec: 600,
    statusMessage: null,
    additionalContextLimit: null,
    sourcePath: "/home/u/.codex/hooks.json",
    source: "user",
    pluginId: null,
    environmentId: null,
    displayOrder: 0,
    enabled: true,
    isManaged: false,
    currentHash: "sha256:aaa",
    trustStatus: "untrusted",
    ...overrides,
  } as unknown as HookMetadata;
}

function listing(...hooks: HookMetadata[]): HooksListResponse {
  return { data: [{ cwd: "/work", hooks, warnings: [], errors: [] }] };
}

describe("HookTrustStore", () => {
  test("a missing file loads empty; trust writes {trust:{targets:{id:{key:fp}}}} 0600 and merges", async () => {
    const file = path.join(tempDir(), "state", "hook.json");
    const store = new HookTrustStore(file);
    expect(store.load()).toEqual({ ok: true, targets: {} });
    await store.trust("codex", { k1: "sha256:1" });
    await store.trust("codex", { k2: "sha256:2" });
    await store.trust("codex-work", { k1: "sha256:9" });
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
      trust: { targets: { codex: { k1: "sha256:1", k2: "sha256:2" }, "codex-work": { k1: "sha256:9" } } },
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(store.load()).toEqual({ ok: true, targets: { codex: { k1: "sha256:1", k2: "sha256:2" }, "codex-work": { k1: "sha256:9" } } });
    await store.trust("codex", { k1: "sha256:changed" });
    expect(store.load()).toMatchObject({ ok: true, targets: { codex: { k1: "sha256:changed", k2: "sha256:2" } } });
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(["hook.json"]);
  });

  test("other fields of the file and of `trust` are preserved", async () => {
    const file = path.join(tempDir(), "hook.json");
    fs.writeFileSync(file, JSON.stringify({ version: 7, other: { a: 1 }, trust: { note: "keep", targets: { claude: { x: "y" } } } }));
    await new HookTrustStore(file).trust("codex", { k: "fp" });
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
      version: 7,
      other: { a: 1 },
      trust: { note: "keep", targets: { claude: { x: "y" }, codex: { k: "fp" } } },
    });
  });

  test.each([
    ["not JSON", "{oops"],
    ["an array", "[]"],
    ["trust not an object", JSON.stringify({ trust: 3 })],
    ["targets not an object", JSON.stringify({ trust: { targets: [] } })],
    ["a target not an object", JSON.stringify({ trust: { targets: { codex: "fp" } } })],
  ])("a malformed file (%s) fails closed on load", (_name, content) => {
    const file = path.join(tempDir(), "hook.json");
    fs.writeFileSync(file, content);
    const loaded = new HookTrustStore(file).load();
    expect(loaded.ok).toBe(false);
  });

  test("an unreadable path (a directory) fails closed on load", () => {
    const file = path.join(tempDir(), "hook.json");
    fs.mkdirSync(file);
    expect(new HookTrustStore(file).load().ok).toBe(false);
  });

  test("a non-string fingerprint is simply not trusted", () => {
    const file = path.join(tempDir(), "hook.json");
    fs.writeFileSync(file, JSON.stringify({ trust: { targets: { codex: { a: 1, b: "fp", c: "" } } } }));
    expect(new HookTrustStore(file).load()).toEqual({ ok: true, targets: { codex: { b: "fp" } } });
  });

  test("saving over a corrupt file moves it aside instead of losing it", async () => {
    const dir = tempDir();
    const file = path.join(dir, "hook.json");
    fs.writeFileSync(file, "{garbage");
    await new HookTrustStore(file).trust("codex", { k: "fp" });
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ trust: { targets: { codex: { k: "fp" } } } });
    const aside = fs.readdirSync(dir).filter((name) => name.startsWith("hook.json.corrupt-"));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, aside[0] as string), "utf8")).toBe("{garbage");
  });

  test("a lock left by a dead process is taken over", async () => {
    const file = path.join(tempDir(), "hook.json");
    const store = new HookTrustStore(file);
    const dead = Bun.spawnSync(["true"]).pid;
    fs.writeFileSync(store.lockFile, `${dead} deadbeef`);
    await store.trust("codex", { k: "fp" });
    expect(store.load()).toEqual({ ok: true, targets: { codex: { k: "fp" } } });
    expect(fs.existsSync(store.lockFile)).toBe(false);
  });

  test("a live lock makes the writer wait, then give up with `busy`; an old one is stale", async () => {
    const file = path.join(tempDir(), "hook.json");
    const store = new HookTrustStore(file, { lockTimeoutMs: 100, staleLockMs: 60_000 });
    fs.writeFileSync(store.lockFile, `${process.pid} someone-else`);
    const error = await store.trust("codex", { k: "fp" }).catch((e: unknown) => e);
    expect(isBatonError(error, "busy")).toBe(true);
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.readFileSync(store.lockFile, "utf8")).toBe(`${process.pid} someone-else`);
    const old = (Date.now() - 120_000) / 1000;
    fs.utimesSync(store.lockFile, old, old);
    await store.trust("codex", { k: "fp" });
    expect(store.load()).toEqual({ ok: true, targets: { codex: { k: "fp" } } });
  });

  test("writers in several processes at once all land (cross-process lock)", async () => {
    const dir = tempDir();
    const file = path.join(dir, "hook.json");
    const script = path.join(dir, "writer.ts");
    const storeModule = path.resolve(import.meta.dir, "../../src/harness/codex/hook-trust-store.ts");
    fs.writeFileSync(
      script,
      `import { HookTrustStore } from ${JSON.stringify(storeModule)};\n` +
        `const [file, who] = process.argv.slice(2);\n` +
        `const store = new HookTrustStore(file);\n` +
        `for (let i = 0; i < 15; i++) await store.trust("codex", { [who + ":" + i]: "fp-" + who + "-" + i });\n`,
    );
    const writers = ["a", "b", "c"].map((who) => Bun.spawn([process.execPath, script, file, who], { stdout: "ignore", stderr: "pipe" }));
    const codes = await Promise.all(writers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0]);
    const loaded = new HookTrustStore(file).load();
    if (!loaded.ok) throw new Error(loaded.error);
    expect(Object.keys(loaded.targets["codex"] ?? {})).toHaveLength(45);
    expect(loaded.targets["codex"]?.["b:14"]).toBe("fp-b-14");
  });
});

describe("argv helpers", () => {
  test("the preflight runs only for app-server launches without the bypass flag", () => {
    expect(needsHookPreflight(["/bin/codex", "app-server"])).toBe(true);
    expect(needsHookPreflight(["/bin/codex", HOOK_BYPASS_FLAG, "app-server"])).toBe(false);
    expect(needsHookPreflight(["/bin/fake-codex-server"])).toBe(false);
  });

  test("the bypass flag goes right before app-server, after wrapper tokens and global args", () => {
    expect(withHookBypass(["/bin/codex", "app-server"])).toEqual(["/bin/codex", HOOK_BYPASS_FLAG, "app-server"]);
    expect(withHookBypass(["env", "X=1", "codex", "-c", "a=b", "app-server", "--listen", "stdio://"])).toEqual([
      "env", "X=1", "codex", "-c", "a=b", HOOK_BYPASS_FLAG, "app-server", "--listen", "stdio://",
    ]);
    expect(withHookBypass(["codex", HOOK_BYPASS_FLAG, "app-server"])).toEqual(["codex", HOOK_BYPASS_FLAG, "app-server"]);
  });
});

describe("candidates and fingerprints", () => {
  test("enabled untrusted|modified hooks, deduplicated by key", () => {
    const candidates = hookCandidates({
      data: [
        { cwd: "/a", hooks: [hook({ key: "u" }), hook({ key: "m", trustStatus: "modified" }), hook({ key: "t", trustStatus: "trusted" }), hook({ key: "g", trustStatus: "managed" }), hook({ key: "off", enabled: false })], warnings: [], errors: [] },
        { cwd: "/b", hooks: [hook({ key: "u" }), hook({ key: "p", source: "project" })], warnings: [], errors: [] },
      ],
    });
    expect(candidates.map((h) => h.key)).toEqual(["u", "m", "p"]);
  });

  test("Codex's currentHash is the fingerprint; without it a baton-sha256 digest of stable fields", () => {
    expect(hookFingerprint(hook())).toBe("sha256:aaa");
    const a = hookFingerprint(hook({ currentHash: "" }));
    expect(a).toMatch(/^baton-sha256:[0-9a-f]{64}$/);
    expect(hookFingerprint(hook({ currentHash: "", displayOrder: 5 }))).toBe(a);
    expect(hookFingerprint(hook({ currentHash: "", command: "echo changed" }))).not.toBe(a);
    expect(hookFingerprint(hook({ currentHash: "", matcher: "startup" }))).not.toBe(a);
    expect(hookFingerprint(hook({ currentHash: "", handlerType: "mcpTool", server: "s", tool: "t" }))).not.toBe(a);
  });

  test("the card entry carries what the user needs to judge the hook", () => {
    const [candidate] = hookCandidates(listing(hook({ matcher: "startup", pluginId: "acme", statusMessage: "checking" })));
    expect(hookTrustEntry(candidate as Parameters<typeof hookTrustEntry>[0])).toEqual({
      key: "/home/u/.codex/hooks.json:session_start:0:0",
      source: "user",
      sourcePath: "/home/u/.codex/hooks.json",
      trustStatus: "untrusted",
      command: "echo hi",
      eventName: "sessionStart",
      handlerType: "command",
      timeoutSec: 600,
      matcher: "startup",
      currentHash: "sha256:aaa",
      pluginId: "acme",
      statusMessage: "checking",
    });
    expect(summariseOwners([hook(), hook(), hook({ pluginId: "acme", source: "plugin" }), hook({ source: "project" })])).toBe("user ×2, plugin acme, project");
  });
});

describe("preflightHookTrust", () => {
  const turnId = "t_01TESTTURN0000000000000000" as TurnId;
  interface Run {
    notices: { level: string; title: string; detail?: string | undefined }[];
    interactions: ScriptedInteractions;
    deps: HookPreflightDeps;
  }
  function setup(options: { hooks?: HookMetadata[]; answer?: "trusted" | "skipped" | "cancelled"; store?: HookTrustStore; turnId?: TurnId | undefined; list?: () => Promise<HooksListResponse> } = {}): Run {
    const notices: Run["notices"] = [];
    const answer = options.answer ?? "trusted";
    const interactions = new ScriptedInteractions([], () => (answer === "cancelled" ? { outcome: "cancelled", reason: "user" } : { outcome: answer }));
    const deps: HookPreflightDeps = {
      targetId: "codex",
      turnId: "turnId" in options ? options.turnId : turnId,
      store: options.store,
      interactions,
      listHooks: options.list ?? (async () => listing(...(options.hooks ?? [hook()]))),
      notice: (level, title, detail) => notices.push({ level, title, detail }),
      log: silentLogger,
    };
    return { notices, interactions, deps };
  }

  test("nothing to trust → none, no card", async () => {
    const run = setup({ hooks: [hook({ trustStatus: "trusted" })] });
    expect(await preflightHookTrust(run.deps)).toEqual({ kind: "none" });
    expect(run.interactions.requests).toHaveLength(0);
  });

  test("trusted → one card with the turn id, fingerprints saved per target and key; then no card, an info notice", async () => {
    const store = new HookTrustStore(path.join(tempDir(), "hook.json"));
    const hooks = [hook(), hook({ key: "k2", command: "echo two", currentHash: "sha256:bbb", trustStatus: "modified" })];
    const first = setup({ hooks, store });
    expect(await preflightHookTrust(first.deps)).toEqual({ kind: "trusted", fingerprints: { [hooks[0]!.key]: "sha256:aaa", k2: "sha256:bbb" } });
    expect(first.interactions.requests).toHaveLength(1);
    const request = first.interactions.requests[0]!;
    expect(request.context.turnId).toBe(turnId);
    expect(request.draft).toMatchObject({ type: "hook_trust", harnessName: "Codex", hooks: [{ command: "echo hi", trustStatus: "untrusted" }, { key: "k2", trustStatus: "modified" }] });
    expect(store.load()).toEqual({ ok: true, targets: { codex: { [hooks[0]!.key]: "sha256:aaa", k2: "sha256:bbb" } } });

    const second = setup({ hooks, store });
    expect((await preflightHookTrust(second.deps)).kind).toBe("trusted");
    expect(second.interactions.requests).toHaveLength(0);
    expect(second.notices).toEqual([{ level: "info", title: "Enabled 2 previously trusted Codex hook(s)", detail: "user ×2" }]);

    const changed = setup({ hooks: [hooks[0]!, hook({ key: "k2", command: "echo TWO", currentHash: "sha256:ccc" })], store });
    expect((await preflightHookTrust(changed.deps)).kind).toBe("trusted");
    expect(changed.interactions.requests).toHaveLength(1);
    expect(changed.interactions.requests[0]!.draft).toMatchObject({ hooks: [{ key: "k2", command: "echo TWO" }] });

    const otherTarget = setup({ hooks, store });
    const deps = { ...otherTarget.deps, targetId: "codex-work" };
    await preflightHookTrust(deps);
    expect(otherTarget.interactions.requests).toHaveLength(1);
  });

  test("skipped → continue without bypass, nothing saved", async () => {
    const store = new HookTrustStore(path.join(tempDir(), "hook.json"));
    const run = setup({ answer: "skipped", store });
    expect(await preflightHookTrust(run.deps)).toEqual({ kind: "skipped" });
    expect(store.load()).toEqual({ ok: true, targets: {} });
  });

  test("cancelled → the open fails (harness_start_failed)", async () => {
    const run = setup({ answer: "cancelled" });
    const error = await preflightHookTrust(run.deps).catch((e: unknown) => e);
    expect(isBatonError(error, "harness_start_failed")).toBe(true);
    expect(String((error as Error).message)).toContain("hook trust");
  });

  test("a corrupt store → a visible warning and every hook asked again (fail closed)", async () => {
    const file = path.join(tempDir(), "hook.json");
    fs.writeFileSync(file, JSON.stringify({ trust: { targets: { codex: { [hook().key]: "sha256:aaa" } } } }).slice(0, -3));
    const run = setup({ store: new HookTrustStore(file) });
    await preflightHookTrust(run.deps);
    expect(run.notices[0]).toMatchObject({ level: "warning", title: "Could not load saved hook trust" });
    expect(run.interactions.requests).toHaveLength(1);
  });

  test("a trust that cannot be saved fails the open", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "state"), "a file where the state directory should be");
    const run = setup({ store: new HookTrustStore(path.join(dir, "state", "hook.json")) });
    const error = await preflightHookTrust(run.deps).catch((e: unknown) => e);
    expect(isBatonError(error, "harness_start_failed")).toBe(true);
    expect(String((error as Error).message)).toContain("Could not save hook trust");
  });

  test("without a turn no card can be raised: a warning, and the hooks stay off", async () => {
    const run = setup({ turnId: undefined });
    expect(await preflightHookTrust(run.deps)).toEqual({ kind: "skipped" });
    expect(run.interactions.requests).toHaveLength(0);
    expect(run.notices).toEqual([{ level: "warning", title: "1 Codex hook not trusted; continuing without it", detail: "echo hi" }]);
  });

  test("hooks/list failing bypasses nothing", async () => {
    const run = setup({ list: async () => Promise.reject(new Error("unknown method")) });
    expect(await preflightHookTrust(run.deps)).toEqual({ kind: "none" });
  });

  test("verifyHookTrust: a hook changed or added after the question is refused", async () => {
    const trusted = { [hook().key]: "sha256:aaa" };
    expect(await verifyHookTrust(async () => listing(hook()), trusted)).toEqual({ ok: true });
    expect((await verifyHookTrust(async () => listing(hook({ currentHash: "sha256:zzz", command: "rm -rf /" })), trusted)).ok).toBe(false);
    expect((await verifyHookTrust(async () => listing(hook(), hook({ key: "new" })), trusted)).ok).toBe(false);
    expect((await verifyHookTrust(async () => Promise.reject(new Error("x")), trusted)).ok).toBe(false);
  });
});
