/** The CLI end to end (in-process) against the fake harness: exec, repl, sessions, export, doctor. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fakeDefinition, type FakeScript } from "../support/fake-adapter.ts";
import { runCliOnce, ScriptedInput, startCli } from "../support/cli-runner.ts";
import { openTestSession, waitFor } from "../support/session-host.ts";
import { createSessionStore } from "../../src/store/index.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { createUlidSource } from "../../src/shared/ids.ts";
import { readSummaries } from "../support/summaries.ts";

let base: string;
let env: Record<string, string | undefined>;
let cwd: string;

beforeEach(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "baton-cli-"));
  cwd = path.join(base, "project");
  mkdirSync(cwd, { recursive: true });
  env = { HOME: base, BATON_HOME: path.join(base, "home"), PATH: process.env["PATH"], BATON_DEFAULT_AGENT: "fake" };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const cli = (argv: string[], script: FakeScript | (() => FakeScript), extra: { stdin?: string } = {}) =>
  runCliOnce(argv, { env, cwd, definitions: [fakeDefinition(script)], ...extra });

describe("baton exec", () => {
  test("completes a text turn: text on stdout, the closing line on stderr, exit 0", async () => {
    const result = await cli(["exec", "say hello"], { turns: [[{ type: "text", text: "Hello, world." }]] });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello, world.\n");
    expect(result.stderr).toMatch(/^baton: session bs_\w+ turn t_\w+ end_turn$/m);
  });

  test("--json prints every appended envelope exactly as stored", async () => {
    const result = await cli(["exec", "--json", "hi"], { turns: [[{ type: "text", text: "yo" }]] });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n").map((line) => JSON.parse(line) as { seq: number; kind: string; scope: { batonSessionId: string } });
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
    const ledger = readFileSync(
      path.join(env["BATON_HOME"]!, "projects", readdirOne(path.join(env["BATON_HOME"]!, "projects")), "sessions", lines[0]!.scope.batonSessionId, "session.jsonl"),
      "utf8",
    );
    expect(result.stdout).toBe(ledger);
  });

  test("--approve allow answers with the allow-once option; deny (default) with reject-once; the ledger says who answered", async () => {
    const allow = await cli(["exec", "--approve", "allow", "--json", "touch x"], { turns: [[{ type: "permission", title: "touch x" }]] });
    const resolvedAllow = allow.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.kind === "interaction.resolved");
    expect(resolvedAllow.payload.resolution).toEqual({ outcome: "selected", optionId: "allow", answeredBy: "cli-policy:allow" });
    const deny = await cli(["exec", "touch x"], { turns: [[{ type: "permission", title: "touch x" }]] });
    expect(deny.stderr).toContain("[tool:declined] touch x");
    expect(deny.stderr).toContain("[approval] chose deny by cli-policy:deny");
  });

  test("questions are cancelled as non-interactive", async () => {
    const result = await cli(["exec", "--json", "ask me"], { turns: [[{ type: "question", question: "which?" }]] });
    const resolved = result.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.kind === "interaction.resolved");
    expect(resolved.payload.resolution).toEqual({ outcome: "cancelled", reason: "non-interactive" });
  });

  test("a failing harness exits 1 with the error; the prompt '-' reads stdin", async () => {
    const result = await cli(["exec", "-"], { openError: "codex not found on PATH", turns: [] }, { stdin: "from stdin\n" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("codex not found on PATH");
    expect(result.stderr).toMatch(/turn t_\w+ error$/m);
  });

  test("SIGINT cancels the turn, waits for its terminal, exits 130", async () => {
    const run = startCli(["exec", "long job"], { env, cwd, definitions: [fakeDefinition({ turns: [[{ type: "text", text: "working" }, { type: "waitForCancel" }]] })] });
    await waitFor(() => run.stdout().includes("working"));
    run.interrupt();
    const result = await run.result;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/cancelled$/m);
  });

  test("usage errors exit 2: unknown target (listing the known ones), --session with --continue, no prompt", async () => {
    const unknown = await cli(["exec", "--agent", "gpt", "hi"], { turns: [] });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown target 'gpt'. Known targets: fake (fx)");
    expect((await cli(["exec", "--session", "bs_x", "--continue", "hi"], { turns: [] })).code).toBe(2);
    expect((await cli(["exec"], { turns: [] })).code).toBe(2);
    expect((await cli(["exec", "--approve", "maybe", "hi"], { turns: [] })).code).toBe(2);
  });

  test("--session continues the same session; seq continues", async () => {
    const first = await cli(["exec", "--json", "one"], { turns: [[{ type: "text", text: "1" }]] });
    const id = JSON.parse(first.stdout.split("\n")[0]!).scope.batonSessionId as string;
    const second = await cli(["exec", "--json", "--session", id, "two"], { turns: [[{ type: "text", text: "2" }]] });
    const firstSeqs = first.stdout.trim().split("\n").map((l) => JSON.parse(l).seq as number);
    const secondSeq = JSON.parse(second.stdout.split("\n")[0]!).seq as number;
    expect(secondSeq).toBe(Math.max(...firstSeqs) + 1);
  });
});

describe("baton repl", () => {
  test("prompt, streamed text, an approval answered by number, /exit", async () => {
    const input = new ScriptedInput();
    const definition = fakeDefinition({ turns: [[{ type: "permission", title: "rm tmp" }, { type: "text", text: "removed" }]] });
    const run = startCli(["repl"], { env, cwd, definitions: [definition], stdin: input });
    await waitFor(() => run.stdout().includes("you> "));
    input.push("clean up");
    await waitFor(() => run.stdout().includes("choose 1-2"));
    input.push("1");
    await waitFor(() => run.stdout().includes("— turn done (end_turn)"));
    input.push("/exit");
    const result = await run.result;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("[approval] rm tmp");
    expect(result.stdout).toContain("removed");
    expect(definition.adapters[0]?.record.answers).toEqual([{ outcome: "selected", optionId: "allow" }]);
  });

  test("/<target> switches; an ambiguous prefix sends nothing", async () => {
    const a = fakeDefinition({ turns: [[{ type: "text", text: "from alpha" }]] }, "alpha");
    const b = fakeDefinition({ turns: [[{ type: "text", text: "from alps" }]] }, "alps");
    const result = await runCliOnce(["repl", "--agent", "alpha"], { env, cwd, definitions: [a, b], stdin: "/al hi\n/alps hello\n/exit\n" });
    expect(result.stdout).toContain("'/al' matches alpha, alps; nothing was sent");
    expect(result.stdout).toContain("switched to alps");
    expect(result.stdout).toContain("from alps");
    expect(a.adapters.flatMap((adapter) => adapter.record.prompts)).toEqual([]);
  });
});

/** A session (in this test's BATON_HOME) whose process died with two follow-ups queued behind a running turn. */
async function sessionWithPausedQueue(): Promise<string> {
  const store = createSessionStore({ home: env["BATON_HOME"]!, clock: systemClock, ids: createUlidSource() });
  const home = { home: env["BATON_HOME"]!, cwd, store, cleanup: () => undefined };
  const hang = fakeDefinition({ turns: [[{ type: "text", text: "busy" }, { type: "waitForCancel" }]] });
  const s = await openTestSession(home, { definitions: [hang] });
  void s.controller.submit("fake", [{ type: "text", text: "the running turn" }]).catch(() => undefined);
  await waitFor(() => readFileSync(s.ref.paths.ledger, "utf8").includes("agent_message"));
  for (const text of ["first follow-up", "second follow-up"]) void s.controller.submit("fake", [{ type: "text", text }]).catch(() => undefined);
  await waitFor(() => readFileSync(s.ref.paths.ledger, "utf8").split('"kind":"_baton_input_queued"').length === 3);
  s.lock.release(); // kill -9: no shutdown
  return s.ref.batonSessionId;
}

describe("a queue left by a dead process (paused)", () => {
  test("exec runs only its own prompt and says the two paused prompts were not sent and how to send or drop them", async () => {
    const id = await sessionWithPausedQueue();
    const definition = fakeDefinition({ turns: [[{ type: "text", text: "only this" }]] });
    const result = await runCliOnce(["exec", "--session", id, "a new prompt"], { env, cwd, definitions: [definition] });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`baton: 2 prompts queued before Baton stopped are paused and not sent; open the session to send or drop them: baton -s ${id}`);
    expect(definition.adapters.flatMap((a) => a.record.prompts.map((p) => p.blocks))).toEqual([[{ type: "text", text: "a new prompt" }]]);
  });

  test("repl lists them paused; /drop drops the latest, an empty line sends the rest, in order", async () => {
    const id = await sessionWithPausedQueue();
    const definition = fakeDefinition({ turns: [[{ type: "text", text: "answered the first" }]] });
    const result = await runCliOnce(["repl", "--session", id], { env, cwd, definitions: [definition], stdin: "/drop\n\n/exit\n" });
    expect(result.stdout).toContain("paused after recovery: 2 queued prompts were not sent\n  1) → fake: first follow-up\n  2) → fake: second follow-up\nan empty line sends them, /edit takes the latest back, /drop drops the latest");
    expect(result.stdout).toContain("dropped: second follow-up");
    expect(result.stdout).toContain("— paused prompts sent (completed)");
    expect(definition.adapters.flatMap((a) => a.record.prompts.map((p) => p.blocks))).toEqual([[{ type: "text", text: "first follow-up" }]]);
  });
});

describe("sessions, export, doctor", () => {
  test("sessions lists this project's sessions newest first; --json has the documented fields", async () => {
    await cli(["exec", "first prompt"], { turns: [] });
    await cli(["exec", "second prompt"], { turns: [] });
    const listed = await cli(["sessions"], { turns: [] });
    const lines = listed.stdout.split("\n").filter((l) => l.startsWith("@bs_"));
    expect(lines.length).toBe(2);
    expect(lines[0]).toContain("second prompt");
    const json = JSON.parse((await cli(["sessions", "--json"], { turns: [] })).stdout) as Record<string, unknown>[];
    expect(Object.keys(json[0]!)).toEqual(expect.arrayContaining(["id", "title", "preview", "cwd", "createdAt", "updatedAt", "targets"]));
    expect(json[0]!["targets"]).toEqual(["fake"]);
    const elsewhere = path.join(base, "other");
    mkdirSync(elsewhere);
    const other = await runCliOnce(["sessions"], { env, cwd: elsewhere, definitions: [] });
    expect(other.stdout).toContain("No sessions");
  });

  test("export renders the transcript as Markdown and the projection as JSON", async () => {
    const run = await cli(["exec", "--json", "explain"], { turns: [[{ type: "thought", text: "hmm" }, { type: "tool", id: "t1", title: "ls -la", output: "a\nb" }, { type: "text", text: "Here it is." }]] });
    const id = JSON.parse(run.stdout.split("\n")[0]!).scope.batonSessionId as string;
    const md = await cli(["export", id], { turns: [] });
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("## User\n\n> explain");
    expect(md.stdout).toContain("<details><summary>fake thought</summary>");
    expect(md.stdout).toContain("`ls -la` — completed");
    expect(md.stdout).toContain("Here it is.");
    const json = JSON.parse((await cli(["export", id, "--format", "json"], { turns: [] })).stdout);
    expect(json.projection.turnSummaries.length).toBe(1);
    expect((await cli(["export", "bs_nope"], { turns: [] })).code).toBe(2);
  });

  test("doctor reports a corrupt ledger line with file and line, and exits 1", async () => {
    const run = await cli(["exec", "--json", "x"], { turns: [[{ type: "text", text: "y" }]] });
    const first = JSON.parse(run.stdout.split("\n")[0]!);
    const project = readdirOne(path.join(env["BATON_HOME"]!, "projects"));
    const ledger = path.join(env["BATON_HOME"]!, "projects", project, "sessions", first.scope.batonSessionId, "session.jsonl");
    const lines = readFileSync(ledger, "utf8").split("\n");
    lines[1] = "{not json";
    writeFileSync(ledger, lines.join("\n"));
    const doctor = await cli(["doctor"], { turns: [] });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`${ledger}:2:`);
    const clean = await runCliOnce(["doctor"], { env: { ...env, BATON_HOME: path.join(base, "fresh") }, cwd, definitions: [fakeDefinition({ turns: [] })] });
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("fake: fake  (built-in, fake 1.0)");
  });

  test("doctor prints what a harness reports beyond its executable, one line each", async () => {
    const fake = fakeDefinition({ turns: [] });
    const detailed = { ...fake, probeExecutable: async () => ({ ok: true as const, argv: ["fake"], source: "built-in", version: "fake 1.0", details: ["capabilities: load, resume", "auth: none"] }) };
    const result = await runCliOnce(["doctor"], { env: { ...env, BATON_HOME: path.join(base, "detailed") }, cwd, definitions: [detailed] });
    expect(result.stdout).toContain("fake: fake  (built-in, fake 1.0)\n        capabilities: load, resume\n        auth: none\n");
  });

  test("a malformed config is reported with file, line and key; nothing runs", async () => {
    mkdirSync(env["BATON_HOME"]!, { recursive: true });
    writeFileSync(path.join(env["BATON_HOME"]!, "config.yaml"), "showThoughts: true\nmentionBudgetChars: lots\n");
    const result = await cli(["exec", "hi"], { turns: [] });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("config.yaml:2: mentionBudgetChars:");
    writeFileSync(path.join(env["BATON_HOME"]!, "config.yaml"), "showThoughts: [unclosed\n");
    expect((await cli(["exec", "hi"], { turns: [] })).stderr).toContain("malformed YAML");
  });

  test("unknown command prints help and exits 2; --version", async () => {
    const unknown = await cli(["frobnicate"], { turns: [] });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Usage: baton");
    expect((await cli(["--version"], { turns: [] })).stdout).toMatch(/^baton \d+\.\d+\.\d+\n$/);
  });

  test("a word that names an Object property (constructor, toString) is an unknown command, not a crash", async () => {
    for (const word of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      const result = await cli([word], { turns: [] });
      expect({ word, code: result.code }).toEqual({ word, code: 2 });
      expect(result.stderr).toContain(`unknown command '${word}'`);
    }
  });
});

function readdirOne(dir: string): string {
  const entries = require("node:fs").readdirSync(dir) as string[];
  if (entries.length !== 1) throw new Error(`expected one entry in ${dir}, found ${entries.length}`);
  return entries[0]!;
}

describe("fork, logs, tree", () => {
  test("fork copies the session under the invoking directory's project; sessions --tree shows the lineage", async () => {
    const run = await cli(["exec", "--json", "original work"], { turns: [[{ type: "text", text: "done" }]] });
    const id = JSON.parse(run.stdout.split("\n")[0]!).scope.batonSessionId as string;
    const elsewhere = path.join(base, "elsewhere");
    mkdirSync(elsewhere);
    const fork = await runCliOnce(["fork", id], { env, cwd: elsewhere, definitions: [] });
    expect(fork.code).toBe(0);
    const child = /→ (bs_\w+)/.exec(fork.stdout)?.[1];
    expect(child).toBeDefined();
    const listed = JSON.parse((await runCliOnce(["sessions", "--json"], { env, cwd: elsewhere, definitions: [] })).stdout) as { id: string; title: string }[];
    expect(listed.map((s) => s.id)).toEqual([child!]);
    expect(listed[0]!.title).toBe('fork of "original work"');
    // the child continues with the copied history delivered to a fresh native session
    const definition = fakeDefinition({ turns: [[{ type: "text", text: "continuing" }]] });
    const next = await runCliOnce(["exec", "--session", child!, "go on"], { env: { ...env }, cwd: elsewhere, definitions: [definition] });
    expect(next.code).toBe(0);
    expect(definition.adapters[0]?.record.synced[0]).toContain("original work");
    const tree = await runCliOnce(["sessions", "--all", "--tree"], { env, cwd, definitions: [] });
    const lines = tree.stdout.split("\n").filter((l) => l.includes("@bs_"));
    expect(lines.length).toBe(2);
    expect(lines[1]).toStartWith(`└ @${child}`);
    expect((await runCliOnce(["fork"], { env, cwd, definitions: [] })).code).toBe(2);
  });

  test("logs: oldest first, --level and --tail filters, bad values are usage errors", async () => {
    await cli(["exec", "hello"], { turns: [[{ type: "text", text: "x" }]] });
    const all = await cli(["logs"], { turns: [] });
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("Session created");
    expect(all.stdout.indexOf("Session created")).toBeLessThan(all.stdout.indexOf("Session closed"));
    const tail = await cli(["logs", "--tail", "1", "--json"], { turns: [] });
    expect(JSON.parse(tail.stdout.trim()).message).toBe("Session closed");
    expect((await cli(["logs", "--level", "error"], { turns: [] })).stdout).toBe("");
    expect((await cli(["logs", "--level", "loud"], { turns: [] })).code).toBe(2);
    expect((await cli(["logs", "--tail", "-1"], { turns: [] })).code).toBe(2);
  });
});

describe("@session references", () => {
  test("a referenced session's turns reach the harness; the transcript, preview and summary show what was typed", async () => {
    const first = await cli(["exec", "--json", "design the cache layer"], { turns: [[{ type: "text", text: "Use an LRU with 512 entries." }]] });
    const source = JSON.parse(first.stdout.split("\n")[0]!).scope.batonSessionId as string;
    const definition = fakeDefinition({ turns: [[{ type: "text", text: "ok" }]] });
    const typed = `implement what we decided in @session:${source}`;
    const second = await runCliOnce(["exec", "--json", typed], { env, cwd, definitions: [definition] });
    const sent = definition.adapters[0]?.record.prompts[0]?.blocks[0];
    const text = sent?.type === "text" ? sent.text : "";
    expect(text).toStartWith("<baton-context>");
    expect(text).toContain("Use an LRU with 512 entries.");
    expect(text).toEndWith(typed);
    const events = second.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(readSummaries(events)[0]?.userText).toBe(typed);
    const id = events[0].scope.batonSessionId as string;
    const listed = JSON.parse((await cli(["sessions", "--json"], { turns: [] })).stdout) as { id: string; preview: string }[];
    expect(listed.find((s) => s.id === id)?.preview).toBe(typed);
    const md = await cli(["export", id], { turns: [] });
    expect(md.stdout).not.toContain("baton-context");
  });
});

describe("per-target preferences", () => {
  test("--model persists for the target, applies to new sessions; 'default' removes only that target's entry", async () => {
    const a = () => fakeDefinition({ turns: [[{ type: "text", text: "x" }]] }, "alpha");
    const b = () => fakeDefinition({ turns: [[{ type: "text", text: "y" }]] }, "beta");
    const run = (args: string[]) => runCliOnce(["exec", "--json", ...args], { env, cwd, definitions: [a(), b()] });
    const launchModel = (stdout: string) =>
      stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.kind === "_baton_delivery_attempt_update" && e.payload.phase === "prepared")?.payload.launchSnapshot.model;
    await run(["--agent", "alpha", "--model", "fake-2", "first"]);
    await run(["--agent", "beta", "--model", "Fake 1", "second"]);
    const file = path.join(env["BATON_HOME"]!, "state", "model.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ models: { alpha: "fake-2", beta: "fake-1" } });
    expect(launchModel((await run(["--agent", "alpha", "a new session"])).stdout)).toBe("fake-2");
    await run(["--agent", "alpha", "--model", "default", "reset"]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ models: { beta: "fake-1" } });
    expect(launchModel((await run(["--agent", "alpha", "after reset"])).stdout)).toBeUndefined();
  });
});

describe("bad input: one line that says what to do, and no file modified", () => {
  const hashTree = (dir: string): string => {
    const crypto = require("node:crypto") as typeof import("node:crypto");
    const fs = require("node:fs") as typeof import("node:fs");
    const hash = crypto.createHash("sha256");
    const walk = (d: string) => {
      for (const entry of fs.readdirSync(d).sort()) {
        const full = path.join(d, entry);
        if (fs.statSync(full).isDirectory()) walk(full);
        else hash.update(`${full}\0`).update(fs.readFileSync(full));
      }
    };
    walk(dir);
    return hash.digest("hex");
  };

  test("unknown, ambiguous, another project's, locked and corrupt sessions", async () => {
    const one = JSON.parse((await cli(["exec", "--json", "first"], { turns: [] })).stdout.split("\n")[0]!).scope.batonSessionId as string;
    await cli(["exec", "second"], { turns: [] });
    const home = env["BATON_HOME"]!;
    const before = hashTree(home);

    const unknown = await cli(["exec", "--session", "bs_nope", "hi"], { turns: [] });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split("\n")[0]).toMatch(/^baton: .*bs_nope/);

    const ambiguous = await cli(["exec", "--session", "bs_", "hi"], { turns: [] });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/more than one|ambiguous|matches/i);

    const elsewhere = path.join(base, "elsewhere");
    mkdirSync(elsewhere);
    const foreign = await runCliOnce(["exec", "--session", one, "hi"], { env, cwd: elsewhere, definitions: [fakeDefinition({ turns: [] })] });
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain(`belongs to`);
    expect(foreign.stderr).toContain(`baton fork ${one}`);
    expect(hashTree(home)).toBe(before);

    // a live owner holds the lock: refused, exit 1, naming the pid
    const dir = path.join(home, "projects", readdirOne(path.join(home, "projects")), "sessions", one);
    const holder = Bun.spawn([process.execPath, "-e", `
      const { acquireLock } = await import(${JSON.stringify(path.resolve(import.meta.dir, "../../src/store/lock.ts"))});
      acquireLock(${JSON.stringify(path.join(dir, "lock"))});
      console.log("held"); await new Promise((r) => setTimeout(r, 60000));`], { stdout: "pipe" });
    const reader = holder.stdout.getReader();
    await reader.read();
    try {
      const locked = await cli(["exec", "--session", one, "hi"], { turns: [] });
      expect(locked.code).toBe(1);
      expect(locked.stderr).toContain(`pid ${holder.pid}`);
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }

    // a corrupt middle line: refused with file and line, nothing written
    const ledger = path.join(dir, "session.jsonl");
    const lines = readFileSync(ledger, "utf8").split("\n");
    lines[1] = "{garbage";
    writeFileSync(ledger, lines.join("\n"));
    const corruptBefore = readFileSync(ledger, "utf8");
    const corrupt = await cli(["exec", "--session", one, "hi"], { turns: [] });
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toContain(`${ledger}:2`);
    expect(readFileSync(ledger, "utf8")).toBe(corruptBefore);
  });
});

test("an unknown config key is warned about with its line, and the command still runs", async () => {
  mkdirSync(env["BATON_HOME"]!, { recursive: true });
  writeFileSync(path.join(env["BATON_HOME"]!, "config.yaml"), "showThoughts: true\nfancyMode: on\n");
  const result = await cli(["exec", "hi"], { turns: [[{ type: "text", text: "fine" }]] });
  expect(result.code).toBe(0);
  expect(result.stderr).toContain("config.yaml:2: fancyMode: unknown key (ignored)");
});
