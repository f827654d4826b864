/**
 * What `baton exec` loads before its turn (issue #18): the process imports its command's static import graph
 * on every run, so the TUI (React, OpenTUI, chat-tui) and the plugin host (YAML, cron, the catalog) must not be
 * in it — exec loads the plugin host only when there is a plugin to start or a binding to close.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { mayHavePlugins, startCliPlugins } from "../../src/app/cli-plugins.ts";
import type { AppContext } from "../../src/app/app-context.ts";
import { BATON_SOURCE } from "../../src/event/envelope.ts";
import { pluginInstanceIdFor } from "../../src/shared/ids.ts";
import { fakeDefinition } from "../support/fake-adapter.ts";
import { testSessions } from "../support/session-host.ts";
import type { CliIo } from "../../src/app/io.ts";

const root = path.resolve(import.meta.dir, "../..");
const transpiler = new Bun.Transpiler({ loader: "tsx" });

/** Files and packages reached from `entry` by static value imports (what loading it loads; type-only imports are erased). */
function staticGraph(entry: string): { files: Map<string, string>; packages: Map<string, string> } {
  const files = new Map<string, string>([[entry, ""]]);
  const packages = new Map<string, string>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const found of transpiler.scanImports(readFileSync(file, "utf8"))) {
      if (found.kind !== "import-statement") continue; // a require() or import() inside a function loads on use
      const spec = found.path;
      if (!spec.startsWith(".")) {
        const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : (spec.split("/")[0] as string);
        if (!packages.has(name)) packages.set(name, file);
        continue;
      }
      const resolved = path.resolve(path.dirname(file), spec);
      if (!files.has(resolved) && existsSync(resolved)) {
        files.set(resolved, file);
        queue.push(resolved);
      }
    }
  }
  return { files, packages };
}

function chain(files: Map<string, string>, from: string): string {
  const out: string[] = [];
  for (let at: string | undefined = from; at !== undefined && at !== ""; at = files.get(at)) out.unshift(path.relative(root, at));
  return out.join(" → ");
}

describe("exec's start path", () => {
  test("baton exec statically imports no TUI, React, OpenTUI, chat-tui, YAML, cron or plugin host", () => {
    const entries = ["src/app/main.ts", "src/app/start.ts", "src/app/cli.ts", "src/app/commands/exec.ts"].map((file) => path.join(root, file));
    const offenders: string[] = [];
    for (const entry of entries) {
      const { files, packages } = staticGraph(entry);
      for (const name of ["react", "react-reconciler", "@opentui/core", "@opentui/react", "chat-tui", "yaml", "croner"]) {
        const by = packages.get(name);
        if (by !== undefined) offenders.push(`${name} via ${chain(files, by)}`);
      }
      for (const file of files.keys()) {
        const rel = path.relative(root, file);
        if (rel === "src/tui/index.ts" || rel === "src/plugin/manager.ts" || rel === "src/plugin/catalog.ts") offenders.push(chain(files, file));
      }
    }
    expect([...new Set(offenders)]).toEqual([]);
  });
});

describe("plugins in exec", () => {
  const sessions = testSessions();
  const silentIo = { stderr: { isTTY: false, write: () => undefined } } as unknown as CliIo;
  const ctxOf = (home: string) => ({ home, childEnv: {} }) as unknown as AppContext;

  test("without plugin.yaml nothing is started, yet a binding a dead process left active is closed (recovery)", async () => {
    const opened = await sessions.open({ definitions: [fakeDefinition({ turns: [] })] });
    const home = sessions.home.home;
    expect(mayHavePlugins(home, opened)).toBe(false);
    const pluginInstanceId = pluginInstanceIdFor("baton-test/left@local");
    opened.controller.pipeline.append({
      kind: "_baton_plugin_binding_update",
      payload: { pluginInstanceId, pluginId: "baton-test/left", packageVersion: "0.1.0", treeDigest: "sha512-x", state: "active", registrations: [] },
      source: BATON_SOURCE,
    });
    expect(mayHavePlugins(home, opened)).toBe(true);
    const plugins = await startCliPlugins(ctxOf(home), opened, silentIo);
    await plugins.settle(1_000);
    expect(opened.controller.state.plugins[pluginInstanceId]).toMatchObject({ state: "closed", reason: { code: "recovery" } });
  });

  test("a plugin.yaml means the plugin host starts (it reads the file: a malformed one is reported)", async () => {
    const opened = await sessions.open({ definitions: [fakeDefinition({ turns: [] })] });
    const home = sessions.home.home;
    writeFileSync(path.join(home, "plugin.yaml"), "plugins: [unclosed\n");
    expect(mayHavePlugins(home, opened)).toBe(true);
    const lines: string[] = [];
    const io = { stderr: { isTTY: false, write: (text: string) => void lines.push(text) } } as unknown as CliIo;
    await startCliPlugins(ctxOf(home), opened, io);
    expect(lines.join("")).toContain("plugin.yaml");
  });
});
