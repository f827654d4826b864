/**
 * Import directions (style.md), no console.* in src/ outside src/app, and a file-size limit that may
 * shrink but never grow. One line per bad edge, e.g. `src/tui/x.tsx → src/store/y.ts (tui may not import store)`.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dir, "../..");
const transpiler = new Bun.Transpiler({ loader: "tsx" });

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (/\.(ts|tsx)$/.test(name)) out.push(full);
  }
  return out;
}

const sourceFiles = [...walk(path.join(root, "src")), ...walk(path.join(root, "packages"))];

/** The layer of a file: `harness/codex` for concrete adapters, else the first folder under src/. */
function layerOf(file: string): string {
  const rel = path.relative(root, file).split(path.sep);
  if (rel[0] === "packages") return `packages/${rel[1] ?? ""}`;
  if (rel[0] !== "src") return "outside";
  if (rel[1] === "harness" && rel.length > 3) return `harness/${rel[2]}`;
  if (rel[1] === "plugin" && rel[2] === "runner" && rel.length > 3) return "plugin/runner";
  return rel[1] ?? "outside";
}

/** Workspace packages imported by name: tsconfig `paths` (which the Bun runtime honours too) → their room. */
const tsconfigPaths = (JSON.parse(readFileSync(path.join(root, "tsconfig.json"), "utf8")) as { compilerOptions: { paths?: Record<string, string[]> } }).compilerOptions.paths ?? {};
const BY_NAME: Record<string, string> = {};
for (const dir of readdirSync(path.join(root, "packages"))) {
  const manifest = path.join(root, "packages", dir, "package.json");
  let name: string;
  try {
    name = (JSON.parse(readFileSync(manifest, "utf8")) as { name: string }).name;
  } catch {
    continue;
  }
  if (tsconfigPaths[name] !== undefined) BY_NAME[name] = `packages/${dir}`;
}

/** The room a bare specifier names when it is a workspace package (`chat-tui`, `chat-tui/x`). */
function packageRoom(spec: string): string | undefined {
  for (const [name, room] of Object.entries(BY_NAME)) if (spec === name || spec.startsWith(`${name}/`)) return room;
  return undefined;
}

const NODE_IO = /^(node:)?(fs|fs\/promises|child_process|net|http|https|os|readline|worker_threads)$/;

/** What each layer may import from src/ (by layer) and from outside. */
const RULES: Record<string, { may: readonly string[]; io: boolean; ui: boolean }> = {
  shared: { may: ["shared"], io: false, ui: false },
  rpc: { may: ["shared", "rpc"], io: true, ui: false },
  event: { may: ["shared", "event"], io: false, ui: false },
  projection: { may: ["shared", "event", "projection"], io: false, ui: false },
  store: { may: ["shared", "event", "store"], io: true, ui: false },
  config: { may: ["shared", "config"], io: true, ui: false },
  input: { may: ["shared", "event", "input"], io: false, ui: false },
  interaction: { may: ["shared", "event", "interaction"], io: false, ui: false },
  context: { may: ["shared", "event", "projection", "store", "context"], io: false, ui: false },
  harness: { may: ["shared", "event", "harness"], io: false, ui: false },
  // The git checkpoint/restore domain: async git child processes and its own journal file; no session logic.
  rewind: { may: ["shared", "rewind"], io: true, ui: false },
  controller: { may: ["shared", "event", "store", "projection", "context", "input", "interaction", "harness", "controller"], io: false, ui: false },
  // The plugin host: never a harness, the TUI or controller internals (it reaches the Controller through a port).
  plugin: { may: ["shared", "event", "projection", "store", "rpc", "plugin", "packages/baton-plugin"], io: true, ui: false },
  // The runner (a child process entry): only the protocol table, rpc, shared and the SDK package.
  "plugin/runner": { may: ["shared", "rpc", "plugin/runner", "packages/baton-plugin"], io: true, ui: false },
  // Native-session adoption (inspect, verify the prefix, import): a room of its own, not wiring (#13).
  adopt: { may: ["shared", "event", "store", "projection", "harness", "adopt"], io: true, ui: false },
  tui: { may: ["shared", "projection", "controller", "tui", "packages/chat-tui", "event", "input", "harness"], io: false, ui: true },
  app: { may: ["*"], io: true, ui: true },
};

/** Single files a layer may import although their layer is not in its `may` list. */
const FILE_EXCEPTIONS: Record<string, readonly string[]> = {
  "plugin/runner": ["src/plugin/protocol.ts"],
  // An adopted owner left mid-turn is healed as opening it would be; its preview is the one a live turn gets.
  adopt: ["src/controller/recovery.ts", "src/controller/preview.ts"],
};

/** Packages that may do I/O (the SDK's exec helper spawns programs). */
const PACKAGE_IO = new Set(["packages/baton-plugin"]);

function concreteHarnessRule(layer: string): { may: readonly string[]; io: boolean; ui: boolean } {
  return { may: ["shared", "event", "harness", "rpc", layer], io: true, ui: false };
}

function violations(): string[] {
  const problems: string[] = [];
  for (const file of sourceFiles) {
    const from = layerOf(file);
    const rel = path.relative(root, file);
    const code = readFileSync(file, "utf8");
    let imports: { path: string }[];
    try {
      imports = transpiler.scanImports(code);
    } catch (error) {
      problems.push(`${rel}: cannot scan imports (${(error as Error).message})`);
      continue;
    }
    const rule = from.startsWith("harness/") ? concreteHarnessRule(from) : from.startsWith("packages/") ? { may: [from], io: PACKAGE_IO.has(from), ui: true } : RULES[from];
    if (!rule) {
      problems.push(`${rel}: unknown layer '${from}' (add it to the import rules)`);
      continue;
    }
    for (const { path: spec } of imports) {
      if (spec.startsWith(".")) {
        const target = path.resolve(path.dirname(file), spec);
        const to = layerOf(target);
        const relTarget = path.relative(root, target);
        if (to === "outside") continue;
        if (from.startsWith("packages/") && !to.startsWith(from)) {
          problems.push(`${rel} → ${relTarget} (${from} may not import ${to})`);
          continue;
        }
        if (to !== from && Object.values(BY_NAME).includes(to)) {
          problems.push(`${rel} → ${relTarget} (import ${to} by its name, not by path)`);
          continue;
        }
        if (rule.may.includes("*") || rule.may.includes(to)) continue;
        if (FILE_EXCEPTIONS[from]?.includes(relTarget.split(path.sep).join("/"))) continue;
        problems.push(`${rel} → ${relTarget} (${from} may not import ${to})`);
        continue;
      }
      const room = packageRoom(spec);
      if (room !== undefined) {
        if (room !== from && !rule.may.includes("*") && !rule.may.includes(room)) problems.push(`${rel} → ${spec} (${from} may not import ${room})`);
        continue;
      }
      if (NODE_IO.test(spec) && !rule.io) problems.push(`${rel} → ${spec} (${from} may not do I/O)`);
      if (/^(react|@opentui\/)/.test(spec) && !rule.ui) problems.push(`${rel} → ${spec} (${from} may not import UI libraries)`);
    }
  }
  return problems;
}

/** Files allowed over the soft limit, with their current size; the list may shrink but never grow. */
const SIZE_ALLOWLIST: Record<string, number> = {
  // One cohesive class (append, batching, sync, reads, tail repair) plus its opener.
  "src/store/ledger.ts": 433,
};
const HARD_LIMIT = 800;
const SOFT_LIMIT = 400;

describe("architecture", () => {
  test("imports follow the layer directions", () => {
    expect(violations()).toEqual([]);
  });

  test("a workspace package imported by name resolves to its package's exports", () => {
    expect(BY_NAME).toEqual({ "chat-tui": "packages/chat-tui" });
    const mismatched: string[] = [];
    for (const [name, room] of Object.entries(BY_NAME)) {
      const manifest = JSON.parse(readFileSync(path.join(root, room, "package.json"), "utf8")) as { exports?: Record<string, string> };
      const entry = manifest.exports?.["."];
      const mapped = tsconfigPaths[name] ?? [];
      if (entry === undefined || mapped.length !== 1 || path.resolve(root, mapped[0] as string) !== path.resolve(root, room, entry)) {
        mismatched.push(`${name}: tsconfig paths ${JSON.stringify(mapped)} but ${room}/package.json exports "." = ${String(entry)}`);
      }
    }
    expect(mismatched).toEqual([]);
  });

  test("no console.* in src/ outside src/app", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles) {
      const rel = path.relative(root, file);
      if (rel.startsWith(`src${path.sep}app${path.sep}`) || rel.startsWith("packages")) continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (/\bconsole\.(log|error|warn|info|debug|trace)\(/.test(line)) offenders.push(`${rel}:${index + 1}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  test("files stay small (soft 400 lines unless allow-listed, hard 800)", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles) {
      const rel = path.relative(root, file);
      if (rel.endsWith(".gen.ts") || rel.includes(`${path.sep}protocol${path.sep}`)) continue;
      const lines = readFileSync(file, "utf8").split("\n").length;
      const allowed = SIZE_ALLOWLIST[rel];
      if (lines > HARD_LIMIT) offenders.push(`${rel}: ${lines} lines (hard limit ${HARD_LIMIT})`);
      else if (lines > (allowed ?? SOFT_LIMIT)) offenders.push(`${rel}: ${lines} lines (limit ${allowed ?? SOFT_LIMIT}; split it by concern)`);
    }
    expect(offenders).toEqual([]);
  });

  // tests/tui/sync-io-guard.ts wraps the functions of the `node:fs` default export to catch synchronous
  // I/O on key paths (PROC-01); a namespace or named import binds a copy it cannot see.
  test("src/ imports node:fs only as its default export", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles) {
      const rel = path.relative(root, file);
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (/^\s*import\s+(\*\s+as\s+\w+|\{[^}]*\}|\w+\s*,\s*\{[^}]*\})\s+from\s+["'](node:)?fs(\/promises)?["']/.test(line)) offenders.push(`${rel}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  test("no harness names in the core", () => {
    const core = ["store", "projection", "controller", "tui", "event", "input", "context", "adopt"];
    const offenders: string[] = [];
    for (const file of sourceFiles) {
      if (!core.includes(layerOf(file))) continue;
      const rel = path.relative(root, file);
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          const code = line.replace(/\/\/.*$/, "").replace(/^\s*\*.*$/, "");
          if (/["'`](codex|claude|claude-code|cx|cc)["'`]/i.test(code)) offenders.push(`${rel}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});
