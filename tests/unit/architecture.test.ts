/**
 * The fence matches the drawing (style.md "Import directions"): every import edge of src/ and packages/,
 * `import type` included, is checked against the rooms table; nothing in src/ reaches outside src/ and
 * packages/ (no src → tests); packages import nothing of src/; an SDK is imported only by its harness; no
 * cycle between rooms. Plus: no console.* in src/ outside src/app, file sizes, `node:fs` as a default
 * import, no harness names in the core. One line per problem, e.g.
 * `src/tui/x.tsx → src/store/y.ts (tui may not import store)`.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
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
const relOf = (file: string): string => path.relative(root, file).split(path.sep).join("/");

/** The room of a file: `harness/<name>` for concrete adapters, `plugin/runner`, `packages/<name>`, else the first folder under src/. */
function roomOf(file: string): string {
  const rel = relOf(file).split("/");
  if (rel[0] === "packages") return `packages/${rel[1] ?? ""}`;
  if (rel[0] !== "src") return "outside";
  if (rel[1] === "harness" && rel.length > 3) return `harness/${rel[2]}`;
  if (rel[1] === "plugin" && rel[2] === "runner" && rel.length > 3) return "plugin/runner";
  return rel[1] ?? "outside";
}

/** Workspace packages by their package.json name, so `import … from "<name>"` is an edge to that room. */
const PACKAGES: ReadonlyMap<string, string> = new Map(
  readdirSync(path.join(root, "packages"))
    .filter((dir) => existsSync(path.join(root, "packages", dir, "package.json")))
    .map((dir) => [(JSON.parse(readFileSync(path.join(root, "packages", dir, "package.json"), "utf8")) as { name: string }).name, `packages/${dir}`] as const),
);

/** tsconfig `paths` (which the Bun runtime honours too): the workspace packages src/ imports by name. */
const tsconfigPaths = (JSON.parse(readFileSync(path.join(root, "tsconfig.json"), "utf8")) as { compilerOptions: { paths?: Record<string, string[]> } }).compilerOptions.paths ?? {};
const BY_NAME = new Map([...PACKAGES].filter(([name]) => tsconfigPaths[name] !== undefined));
const NAMED_ROOMS = new Set(BY_NAME.values());

/**
 * `Bun.Transpiler#scanImports` drops type-only imports (they are erased at runtime), yet `import type` edges
 * count like any other: turn them into value imports first. Unused value imports are kept by the scanner.
 */
export function importsOf(code: string): string[] {
  const valued = code
    .replace(/\bimport\s+type\s+(?=[\w$*{])/g, "import ")
    .replace(/\bexport\s+type\s+(?=[*{])/g, "export ")
    .replace(/\b(import|export)(\s*)\{([^}]*)\}(\s*from\b)/g, (_all, keyword: string, space: string, names: string, from: string) => `${keyword}${space}{${names.replace(/(^|,)\s*type\s+(?=[\w$])/g, "$1 ")}}${from}`);
  return transpiler.scanImports(valued).map((entry) => entry.path);
}

const NODE_IO = /^(node:)?(fs|fs\/promises|child_process|net|http|https|os|readline|worker_threads)$/;

interface Rule {
  /** Rooms this room may import (its own room is always allowed). */
  readonly may: readonly string[];
  /** May use node I/O modules (fs, child_process, net, os, …). */
  readonly io: boolean;
  /** May import react / @opentui. */
  readonly ui: boolean;
}

/** style.md's table, row by row. `app` is the composition root; `packages/*` are checked separately. */
const RULES: Record<string, Rule> = {
  shared: { may: [], io: false, ui: false },
  rpc: { may: ["shared"], io: true, ui: false },
  event: { may: ["shared"], io: false, ui: false },
  projection: { may: ["event", "shared"], io: false, ui: false },
  store: { may: ["event", "shared"], io: true, ui: false },
  // The broker, approval rules, policies, answers. Interaction payload schemas stay in event/ (the registry owns
  // every payload schema; event may not import interaction): see src/event/interaction-types.ts.
  interaction: { may: ["event", "shared"], io: false, ui: false },
  input: { may: ["event", "shared"], io: false, ui: false },
  config: { may: ["shared"], io: true, ui: false },
  context: { may: ["event", "projection", "store", "shared"], io: false, ui: false },
  // The harness contract (src/harness/*.ts): what every adapter implements and the host calls.
  harness: { may: ["event", "shared"], io: false, ui: false },
  // Not in style.md's table yet (no docs page mirrors it), the row to add there:
  // | `rewind` | `shared`, git children, fs | every other layer |
  // The git checkpoint/restore domain (async git children, its own journal file): shared only, does I/O.
  rewind: { may: ["shared"], io: true, ui: false },
  controller: { may: ["event", "store", "projection", "context", "input", "interaction", "harness", "shared"], io: false, ui: false },
  plugin: { may: ["event", "interaction", "projection", "store", "rpc", "shared", "packages/baton-plugin"], io: true, ui: false },
  "plugin/runner": { may: ["rpc", "shared", "packages/baton-plugin"], io: true, ui: false },
  tui: { may: ["projection", "controller", "packages/chat-tui", "shared"], io: false, ui: true },
  // Not in style.md's table yet (#13 gave it its own room; no docs page mirrors the table), the row to add:
  // | `adopt` | `event`, `store`, `projection`, harness contract, `controller`, `shared`, fs | tui, concrete harnesses, plugin (only `app` imports it) |
  // Native-session adoption inspects a harness's history through the inspector contract, writes a ledger and
  // heals it as opening would (controller's recovery and preview): above controller, does I/O.
  adopt: { may: ["event", "store", "projection", "harness", "controller", "shared"], io: true, ui: false },
};

/** A concrete harness: the contract, event drafts, rpc, shared and its own SDK; never another harness. */
const CONCRETE_HARNESS: Rule = { may: ["harness", "event", "rpc", "shared"], io: true, ui: false };

/** Single files a room may import although their room is not in its `may` list. */
const FILE_EXCEPTIONS: Record<string, readonly string[]> = {
  // The runner speaks the host⇄runner method table, which lives with the host.
  "plugin/runner": ["src/plugin/protocol.ts"],
};

/** Packages that may do I/O (the SDK's exec helper spawns programs). */
const PACKAGE_IO = new Set(["packages/baton-plugin"]);

/** An agent SDK belongs to its harness (and the composition root, which may name everything). */
const SDK_OWNERS: Record<string, readonly string[]> = {
  "@anthropic-ai/claude-agent-sdk": ["harness/claude", "app"],
  "@agentclientprotocol/sdk": ["harness/acp", "app"],
};

function ruleOf(room: string): Rule | "any" | undefined {
  if (room === "app") return "any";
  if (room.startsWith("packages/")) return { may: [], io: PACKAGE_IO.has(room), ui: true };
  if (room.startsWith("harness/")) return CONCRETE_HARNESS;
  return RULES[room];
}

interface Edge {
  readonly from: string;
  readonly to: string;
  readonly fromRoom: string;
  readonly toRoom: string;
}

/** Every edge to a file of src/ or packages/ (relative or by package name), and the problems found on the way. */
function scan(files: readonly string[] = sourceFiles, read: (file: string) => string = (file) => readFileSync(file, "utf8")): { edges: Edge[]; problems: string[] } {
  const edges: Edge[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const rel = relOf(file);
    const fromRoom = roomOf(file);
    const rule = ruleOf(fromRoom);
    if (rule === undefined) {
      problems.push(`${rel}: unknown room '${fromRoom}' (add it to style.md's table and to RULES)`);
      continue;
    }
    let specs: string[];
    try {
      specs = importsOf(read(file));
    } catch (error) {
      problems.push(`${rel}: cannot scan imports (${(error as Error).message})`);
      continue;
    }
    for (const spec of specs) {
      const bare = spec.startsWith(".") ? undefined : spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
      if (bare === undefined || PACKAGES.has(bare)) {
        const target = bare === undefined ? relOf(path.resolve(path.dirname(file), spec)) : `${PACKAGES.get(bare)}/${spec.slice(bare.length + 1) || "(package)"}`;
        const toRoom = bare === undefined ? roomOf(path.join(root, target)) : (PACKAGES.get(bare) as string);
        if (toRoom === "outside") {
          problems.push(`${rel} → ${target} (${fromRoom} may not import outside src/ and packages/)`);
          continue;
        }
        if (toRoom === fromRoom) continue;
        if (bare === undefined && NAMED_ROOMS.has(toRoom) && !fromRoom.startsWith("packages/")) {
          problems.push(`${rel} → ${target} (import ${toRoom} by its name, not by path)`);
          continue;
        }
        edges.push({ from: rel, to: target, fromRoom, toRoom });
        if (fromRoom.startsWith("packages/")) {
          problems.push(`${rel} → ${target} (${fromRoom} may not import ${toRoom})`);
          continue;
        }
        if (rule === "any" || rule.may.includes(toRoom) || FILE_EXCEPTIONS[fromRoom]?.includes(target)) continue;
        problems.push(`${rel} → ${target} (${fromRoom} may not import ${toRoom})`);
        continue;
      }
      if (rule === "any") continue;
      if (NODE_IO.test(spec) && !rule.io) problems.push(`${rel} → ${spec} (${fromRoom} may not do I/O)`);
      if (/^(react|@opentui\/)/.test(spec) && !rule.ui) problems.push(`${rel} → ${spec} (${fromRoom} may not import UI libraries)`);
      const owners = SDK_OWNERS[bare];
      if (owners !== undefined && !owners.includes(fromRoom)) problems.push(`${rel} → ${spec} (only ${owners.join(", ")} may import ${bare})`);
    }
  }
  return { edges, problems };
}

/** Strongly connected components of size > 1 (Tarjan), each sorted; the graph's nodes in first-seen order. */
export function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      onStack.delete(top);
      component.push(top);
      if (top === node) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function graphOf(pairs: Iterable<readonly [string, string]>): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of pairs) {
    if (!graph.has(from)) graph.set(from, new Set());
    if (!graph.has(to)) graph.set(to, new Set());
    graph.get(from)?.add(to);
  }
  return graph;
}

/**
 * Import cycles inside one room that exist today (allowed, but they should be rare): a cycle found must lie
 * within one of these file sets. The list may shrink, never grow; an entry that no longer exists is harmless.
 */
const KNOWN_ROOM_CYCLES: readonly (readonly string[])[] = [
  // The contract and its capability guards name each other's types.
  ["src/harness/capabilities.ts", "src/harness/contract.ts"],
  ["src/harness/history-boundary.ts", "src/harness/inspector.ts"],
  // The host hands itself to the command runner and the plugin views; they call back into it.
  ["src/tui/plugins-view.ts", "src/tui/slash-commands.ts", "src/tui/tui-host.ts", "src/tui/view-composer.ts"],
];

/** Files allowed over the soft limit, with their current size; the list may shrink but never grow. */
const SIZE_ALLOWLIST: Record<string, number> = {
  // One cohesive class (append, batching, sync, reads, tail repair) plus its opener.
  "src/store/ledger.ts": 416,
};
const HARD_LIMIT = 800;
const SOFT_LIMIT = 400;

/** Rooms the core consists of: no harness names there (packages/chat-tui is a view library of the core). */
const CORE_ROOMS = ["store", "projection", "controller", "tui", "event", "input", "context", "interaction", "adopt", "packages/chat-tui"];

describe("architecture", () => {
  const { edges, problems } = scan();

  test("imports follow style.md's table (import type included; no src → tests; packages import nothing of src/)", () => {
    expect(problems).toEqual([]);
  });

  test("a workspace package imported by name resolves to its package's exports", () => {
    expect(Object.fromEntries(BY_NAME)).toEqual({ "baton-plugin": "packages/baton-plugin", "chat-tui": "packages/chat-tui" });
    const mismatched: string[] = [];
    for (const [name, room] of BY_NAME) {
      const manifest = JSON.parse(readFileSync(path.join(root, room, "package.json"), "utf8")) as { exports?: Record<string, string> };
      const entry = manifest.exports?.["."];
      const mapped = tsconfigPaths[name] ?? [];
      if (entry === undefined || mapped.length !== 1 || path.resolve(root, mapped[0] as string) !== path.resolve(root, room, entry)) {
        mismatched.push(`${name}: tsconfig paths ${JSON.stringify(mapped)} but ${room}/package.json exports "." = ${String(entry)}`);
      }
    }
    expect(mismatched).toEqual([]);
  });

  test("no cycle between rooms (an edge of each is named)", () => {
    const cycles = cyclesOf(graphOf(edges.map((edge) => [edge.fromRoom, edge.toRoom] as const)));
    const described = cycles.map((rooms) => {
      const byPair = new Map<string, Edge[]>();
      for (const edge of edges) {
        if (!rooms.includes(edge.fromRoom) || !rooms.includes(edge.toRoom)) continue;
        const pair = `${edge.fromRoom} → ${edge.toRoom}`;
        byPair.set(pair, [...(byPair.get(pair) ?? []), edge]);
      }
      const named = [...byPair].map(([pair, [first, ...rest]]) => `${pair} (${first?.from} → ${first?.to}${rest.length > 0 ? ` and ${rest.length} more` : ""})`);
      return `${rooms.join(" ⇄ ")}: ${named.sort().join("; ")}`;
    });
    expect(described).toEqual([]);
  });

  test("the table itself has no cycle (a room may never, through others, import itself)", () => {
    const pairs = Object.entries(RULES).flatMap(([room, rule]) => rule.may.map((to) => [room, to] as const));
    expect(cyclesOf(graphOf(pairs))).toEqual([]);
  });

  test("cycles inside a room stay within the known ones (the list may shrink, never grow)", () => {
    const fileEdges: Array<readonly [string, string]> = [];
    for (const file of sourceFiles) {
      const rel = relOf(file);
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        if (!spec.startsWith(".")) continue;
        const target = path.resolve(path.dirname(file), spec);
        if (roomOf(target) === roomOf(file)) fileEdges.push([rel, relOf(target)]);
      }
    }
    const unknown = cyclesOf(graphOf(fileEdges)).filter((cycle) => !KNOWN_ROOM_CYCLES.some((known) => cycle.every((file) => known.includes(file))));
    expect(unknown.map((cycle) => cycle.join(" ⇄ "))).toEqual([]);
  });

  test("the fence can fail: a bad edge of each kind is one line naming both files and the rule", () => {
    const code: Record<string, string> = {
      "src/tui/x.tsx": `import type { Ledger } from "../store/ledger.ts"; import fs from "node:fs"; import { projection } from "../projection/index.ts";`,
      "src/shared/y.ts": `import { rig } from "../../tests/support/ids.ts";`,
      "src/controller/z.ts": `import { query } from "@anthropic-ai/claude-agent-sdk"; import { CodexSession } from "../harness/codex/session.ts";`,
      "src/interaction/w.ts": `import { reduce } from "../projection/reduce.ts";`,
      "src/tui/v.ts": `import { ChatApp } from "../../packages/chat-tui/src/index.ts";`,
      "packages/chat-tui/src/u.ts": `import { ids } from "../../../src/shared/ids.ts";`,
      "src/nowhere/t.ts": ``,
    };
    const { problems } = scan(Object.keys(code).map((rel) => path.join(root, rel)), (file) => code[relOf(file)] ?? "");
    expect(problems).toEqual([
      "src/tui/x.tsx → src/store/ledger.ts (tui may not import store)",
      "src/tui/x.tsx → node:fs (tui may not do I/O)",
      "src/shared/y.ts → tests/support/ids.ts (shared may not import outside src/ and packages/)",
      "src/controller/z.ts → @anthropic-ai/claude-agent-sdk (only harness/claude, app may import @anthropic-ai/claude-agent-sdk)",
      "src/controller/z.ts → src/harness/codex/session.ts (controller may not import harness/codex)",
      "src/interaction/w.ts → src/projection/reduce.ts (interaction may not import projection)",
      "src/tui/v.ts → packages/chat-tui/src/index.ts (import packages/chat-tui by its name, not by path)",
      "packages/chat-tui/src/u.ts → src/shared/ids.ts (packages/chat-tui may not import shared)",
      "src/nowhere/t.ts: unknown room 'nowhere' (add it to style.md's table and to RULES)",
    ]);
  });

  test("the scanner sees type-only imports and exports (they are edges too)", () => {
    const code = `import type { A } from "./a.ts"; import { type B, C } from "./b.ts"; import type * as D from "./d.ts";
      export type { E } from "./e.ts"; export type F = { type: "x" }; const g = await import("./g.ts");`;
    expect(importsOf(code).sort()).toEqual(["./a.ts", "./b.ts", "./d.ts", "./e.ts", "./g.ts"]);
  });

  test("the cycle finder names every strongly connected group", () => {
    const graph = graphOf([["a", "b"], ["b", "c"], ["c", "a"], ["c", "d"], ["d", "e"], ["e", "d"], ["f", "a"]]);
    expect(cyclesOf(graph)).toEqual([["d", "e"], ["a", "b", "c"]]);
  });

  test("no console.* in src/ outside src/app, nor in packages/chat-tui (it would corrupt the screen)", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles) {
      const rel = relOf(file);
      if (rel.startsWith("src/app/") || rel.startsWith("packages/baton-plugin/")) continue;
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
      const rel = relOf(file);
      if (rel.endsWith(".gen.ts") || rel.includes("/protocol/")) continue;
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
      const rel = relOf(file);
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (/^\s*import\s+(\*\s+as\s+\w+|\{[^}]*\}|\w+\s*,\s*\{[^}]*\})\s+from\s+["'](node:)?fs(\/promises)?["']/.test(line)) offenders.push(`${rel}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  test("no harness names in the core", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles) {
      if (!CORE_ROOMS.includes(roomOf(file))) continue;
      const rel = relOf(file);
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          const code = line.replace(/\/\*.*?\*\//g, "").replace(/\/\/.*$/, "").replace(/^\s*\*.*$/, "");
          if (/["'`](codex|claude|claude-code|cx|cc)["'`]/i.test(code)) offenders.push(`${rel}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});
