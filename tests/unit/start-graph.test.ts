/**
 * What Baton loads before the TUI's first frame (issue #18: first frame ≤ 300 ms): every module costs its
 * transpile and evaluation at each start, so code the first frame does not need loads on first use. A fresh Bun
 * imports exactly what `bun src/app/main.ts` loads before the screen (main's static imports and the TUI
 * command) and lists the modules it holds; the list must not contain the ones below. zod is one of them: its schemas
 * are built on first use (shared/lazy-schema.ts), and a second fresh Bun loads config and opens a real session
 * (with its checkpoint, as the TUI does before the frame) to show that the open does not use them either: config
 * values and meta.json have hand checks that leave only what they are unsure of to the schemas.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { turnDrafts } from "../../bench/_fixture.ts";
import { codexDefinition } from "../../src/harness/codex/definition.ts";
import { makeTestHome, openTestSession } from "../support/session-host.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
/** A package's files, in node_modules or (a linked install) in Bun's package cache. */
const pkg = (name: string): RegExp => new RegExp(`/(node_modules|\\.bun/install/cache)/${name.replace("/", "\\/")}[@/]`);

/** Loaded on first use, never before the first frame. */
const NOT_AT_START: readonly { readonly name: string; readonly module: RegExp; readonly why: string }[] = [
  { name: "the ACP adapter", module: /\/src\/harness\/acp\/(adapter|connection|session|mapper|establish|probe-executable)\.ts$/, why: "an ACP target's adapter loads when the target is first used" },
  { name: "the diff library", module: pkg("diff"), why: "the diff library is the ACP mapper's" },
  { name: "the ACP SDK", module: pkg("@agentclientprotocol/sdk"), why: "the ACP SDK loads when an ACP target starts" },
  { name: "the Codex adapter", module: /\/src\/harness\/codex\/(adapter|session|inspector)\.ts$/, why: "the Codex adapter loads at the first turn" },
  { name: "the Claude adapter", module: /\/src\/harness\/claude\/(adapter|session|inspector)\.ts$/, why: "the Claude adapter and the Agent SDK load at the first turn" },
  { name: "the Claude Agent SDK", module: pkg("@anthropic-ai/claude-agent-sdk"), why: "the Claude Agent SDK loads at the first turn" },
  { name: "zod", module: pkg("zod"), why: "schemas are built, and zod loaded, the first time one is used (≈ 30 ms of every start)" },
];

function startGraph(): string[] {
  const script = [
    `await import(${JSON.stringify(path.join(ROOT, "src/app/process-io.ts"))});`,
    `await import(${JSON.stringify(path.join(ROOT, "src/app/commands/shared.ts"))});`,
    `await import(${JSON.stringify(path.join(ROOT, "src/app/cli.ts"))});`,
    `await import(${JSON.stringify(path.join(ROOT, "src/app/commands/tui.ts"))});`,
    `process.stdout.write(JSON.stringify(Object.keys(require.cache)));`,
  ].join("\n");
  const child = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT, env: { ...process.env, NODE_ENV: "production" } });
  if (child.exitCode !== 0) throw new Error(`the start graph did not load: ${child.stderr.toString()}`);
  return JSON.parse(child.stdout.toString()) as string[];
}

describe("the TUI's start graph", () => {
  const loaded = startGraph().map((file) => file.split(path.sep).join("/"));

  test("holds the TUI and the core (the list is real)", () => {
    expect(loaded.some((file) => file.endsWith("/src/tui/start-tui.tsx"))).toBe(true);
    expect(loaded.some((file) => file.endsWith("/src/harness/acp/definition.ts"))).toBe(true);
    expect(loaded.some((file) => pkg("@opentui/core").test(file))).toBe(true);
  });

  for (const rule of NOT_AT_START) {
    test(`does not load ${rule.name}: ${rule.why}`, () => {
      expect(loaded.filter((file) => rule.module.test(file))).toEqual([]);
    });
  }
});

describe("baton exec before it starts its harness", () => {
  // exec prelaunches Codex (src/app/harnesses.ts) once it knows the target: the session's code loads after that, while
  // the app-server starts (issue #18: `baton exec` ≤ 1.3× `codex exec`), not before it as part of every command.
  test("loads neither the session's open, nor the controller, nor the projection", () => {
    const script = [
      `await import(${JSON.stringify(path.join(ROOT, "src/app/start.ts"))});`,
      `await import(${JSON.stringify(path.join(ROOT, "src/app/commands/exec.ts"))});`,
      `await import(${JSON.stringify(path.join(ROOT, "src/harness/codex/prelaunch.ts"))});`,
      `process.stdout.write(JSON.stringify(Object.keys(require.cache)));`,
    ].join("\n");
    const child = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT });
    if (child.exitCode !== 0) throw new Error(`exec's graph did not load: ${child.stderr.toString()}`);
    const loaded = (JSON.parse(child.stdout.toString()) as string[]).map((file) => file.split(path.sep).join("/"));
    expect(loaded.some((file) => file.endsWith("/src/app/commands/exec.ts"))).toBe(true); // the list is real
    expect(loaded.filter((file) => /\/src\/(app\/open-session|controller\/controller|projection\/index)\.ts$/.test(file))).toEqual([]);
  });
});

describe("opening a session before the first frame", () => {
  test("loads config and opens a real session (checkpoint, meta, tail) without loading zod", async () => {
    const home = makeTestHome();
    try {
      const session = await openTestSession(home, { definitions: [codexDefinition] });
      for (let turn = 0; turn < 2; turn++) for (const draft of turnDrafts(turn)) session.controller.pipeline.append(draft as never);
      const id = session.ref.batonSessionId;
      await session.close();
      // A config with a value of every kind the hand check decides (no harness sections: those are the harnesses' schemas').
      writeFileSync(path.join(home.home, "config.yaml"), "defaultAgent: codex\nshowThoughts: false\nlogLevel: warn\nnotify:\n  afterSeconds: 30\nfailover:\n  claude: off\n");
      const script = [
        `const { createAppContext, openSessionIn } = await import(${JSON.stringify(path.join(ROOT, "src/app/app-context.ts"))});`,
        `const { createProcessIo } = await import(${JSON.stringify(path.join(ROOT, "src/app/process-io.ts"))});`,
        `const { io } = createProcessIo();`,
        `const ctx = createAppContext({ ...io, env: { ...io.env, BATON_HOME: ${JSON.stringify(home.home)} } }, { cwd: ${JSON.stringify(home.cwd)} });`,
        `const opened = await openSessionIn(ctx, { kind: "id", id: ${JSON.stringify(id)} }, {}, "deferred");`,
        `const loaded = Object.keys(require.cache);`,
        `await opened.close();`,
        `process.stdout.write(JSON.stringify({ showThoughts: ctx.loaded.config.showThoughts, events: opened.controller.state.timeline.length, loaded }));`,
      ].join("\n");
      const child = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT, env: { ...process.env, HOME: home.home } });
      if (child.exitCode !== 0) throw new Error(`the open failed: ${child.stderr.toString()}`);
      const out = JSON.parse(child.stdout.toString()) as { showThoughts: boolean; events: number; loaded: string[] };
      expect(out.showThoughts).toBe(false); // the file was read
      expect(out.events).toBeGreaterThan(0); // the session was opened with its history
      expect(out.loaded.map((file) => file.split(path.sep).join("/")).filter((file) => pkg("zod").test(file))).toEqual([]);
    } finally {
      home.cleanup();
    }
  });
});
