import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { createHash } from "node:crypto";
import { ManualClock } from "../../src/shared/clock.ts";
import { createSequentialIdSource } from "../../src/shared/ids.ts";
import { readMeta, touchMeta, updateMeta, withHarnessSession, writeMeta, type SessionMeta } from "../../src/store/meta.ts";
import { ensureProject, projectKey, sanitizeBasename } from "../../src/store/project.ts";
import { createSessionStore } from "../../src/store/session-store.ts";
import type { StoreContext } from "../../src/store/sessions.ts";
import { thrownBatonError } from "../support/errors.ts";
import { brand } from "../support/ids.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const tempDir = tempDirs("baton-store-");

function setup(): { ctx: StoreContext; clock: ManualClock; home: string; work: string } {
  const home = tempDir("baton-home-");
  const work = tempDir("baton-work-");
  const clock = new ManualClock();
  return { ctx: { home, clock, ids: createSequentialIdSource() }, clock, home, work };
}

function mkdir(...parts: string[]): string {
  const dir = path.join(...parts);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}


const mode = (file: string): number => fs.statSync(file).mode & 0o777;

describe("project key", () => {
  test.each([
    ["my-app", "my-app"],
    ["with space & ümlaut", "with_space____mlaut"],
    ["", "root"],
    ["x".repeat(120), "x".repeat(80)],
  ])("basename %j sanitizes to %j", (input, expected) => {
    expect(sanitizeBasename(input)).toBe(expected);
  });

  test("key is <sanitized basename>-<first 12 hex of sha256(realpath)>", () => {
    const hash = createHash("sha256").update("/home/me/my app").digest("hex").slice(0, 12);
    expect(projectKey("/home/me/my app")).toBe(`my_app-${hash}`);
  });

  test("two cwds with the same basename get different projects and separate listings (STO-02)", () => {
    const { ctx, work } = setup();
    const a = mkdir(work, "a", "app");
    const b = mkdir(work, "b", "app");
    const store = createSessionStore(ctx);
    const inA = store.createSession({ cwd: a });
    const inB = store.createSession({ cwd: b });
    expect(inA.projectDir).not.toBe(inB.projectDir);
    expect(path.basename(inA.projectDir)).toStartWith("app-");
    expect(store.listSessions({ cwd: a }).sessions.map((s) => s.batonSessionId)).toEqual([inA.batonSessionId]);
    expect(store.listSessions({ cwd: b }).sessions.map((s) => s.batonSessionId)).toEqual([inB.batonSessionId]);
  });

  test("symlinked cwds resolve to the same project", () => {
    const { ctx, work } = setup();
    const real = mkdir(work, "real");
    const link = path.join(work, "link");
    fs.symlinkSync(real, link);
    expect(ensureProject(ctx.home, link).dir).toBe(ensureProject(ctx.home, real).dir);
  });

  test("a project.json recording another cwd is project_mismatch", () => {
    const { ctx, work } = setup();
    const project = ensureProject(ctx.home, work);
    fs.writeFileSync(path.join(project.dir, "project.json"), JSON.stringify({ cwd: "/somewhere/else" }));
    const error = thrownBatonError(() => ensureProject(ctx.home, work));
    expect(error.code).toBe("project_mismatch");
    expect(error.message).toContain("/somewhere/else");
  });

  test("a missing cwd is a usage error", () => {
    const { ctx, work } = setup();
    expect(thrownBatonError(() => ensureProject(ctx.home, path.join(work, "nope"))).code).toBe("usage");
  });
});

describe("sessions", () => {
  test("createSession lays out dirs 0700 and files 0600 with meta per §3.4", () => {
    const { ctx, work, home } = setup();
    const store = createSessionStore(ctx);
    const ref = store.createSession({ cwd: work, title: "T", preview: "hello" });
    expect(ref.batonSessionId as string).toBe("bs_00000000000000000000000001");
    expect(ref.paths.dir).toBe(path.join(ref.projectDir, "sessions", ref.batonSessionId));
    expect(ref.meta).toEqual({
      batonSessionId: ref.batonSessionId,
      title: "T",
      preview: "hello",
      cwd: work,
      createdAt: "2026-01-01T00:00:00.000Z",
      harnessSessions: {},
    });
    expect(readMeta(ref.paths.dir)).toEqual(ref.meta);
    expect(JSON.parse(fs.readFileSync(path.join(ref.projectDir, "project.json"), "utf8"))).toEqual({ cwd: work });
    for (const dir of [path.join(home, "projects"), ref.projectDir, path.dirname(ref.paths.dir), ref.paths.dir]) {
      expect(mode(dir)).toBe(0o700);
    }
    for (const file of [ref.paths.ledger, ref.paths.meta, path.join(ref.projectDir, "project.json")]) {
      expect(mode(file)).toBe(0o600);
    }
    expect(fs.statSync(ref.paths.ledger).size).toBe(0);
  });

  test("findSession: exact id, unique prefix (with or without bs_), across projects", () => {
    const { ctx, work } = setup();
    const store = createSessionStore({ ...ctx, ids: createSequentialIdSource(10) });
    const a = store.createSession({ cwd: mkdir(work, "one") });
    const b = store.createSession({ cwd: mkdir(work, "two") });
    expect(store.findSession(a.batonSessionId).paths.dir).toBe(a.paths.dir);
    expect(store.findSession(b.batonSessionId).batonSessionId).toBe(b.batonSessionId);
    expect(store.findSession("bs_00000000000000000000000011").batonSessionId).toBe(b.batonSessionId);
    const ambiguous = thrownBatonError(() => store.findSession("bs_0000"));
    expect(ambiguous.code).toBe("session_ambiguous");
    expect(ambiguous.message).toContain(a.batonSessionId);
    expect(ambiguous.message).toContain(b.batonSessionId);
    expect(store.findSession("00000000000000000000000010").batonSessionId).toBe(a.batonSessionId);
    expect(thrownBatonError(() => store.findSession("bs_ZZZ")).code).toBe("session_not_found");
  });

  test("listSessions sorts by updatedAt || createdAt desc; corrupt meta is skipped and reported", () => {
    const { ctx, clock, work } = setup();
    const store = createSessionStore(ctx);
    const old = store.createSession({ cwd: work });
    clock.advance(1000);
    const middle = store.createSession({ cwd: work });
    clock.advance(1000);
    const recent = store.createSession({ cwd: work });
    clock.advance(1000);
    store.touch(old); // old becomes the most recently active
    const broken = store.createSession({ cwd: work });
    fs.writeFileSync(broken.paths.meta, "{ not json");
    const other = store.createSession({ cwd: tempDir() });

    const listing = store.listSessions({ cwd: work });
    expect(listing.sessions.map((s) => s.batonSessionId)).toEqual([old.batonSessionId, recent.batonSessionId, middle.batonSessionId]);
    expect(listing.problems).toHaveLength(1);
    expect(listing.problems[0]?.path).toBe(broken.paths.dir);
    expect(listing.problems[0]?.message).toContain("not valid JSON");

    const all = store.listSessions({ all: true });
    expect(all.sessions.map((s) => s.batonSessionId)).toContain(other.batonSessionId);
    expect(all.sessions).toHaveLength(4);
  });

  test("a session whose meta.cwd differs from the project cwd is not listed for that cwd", () => {
    const { ctx, work } = setup();
    const store = createSessionStore(ctx);
    const ref = store.createSession({ cwd: work });
    store.updateMeta(ref, (meta) => ({ ...meta, cwd: "/elsewhere" }));
    expect(store.listSessions({ cwd: work }).sessions).toEqual([]);
  });

  test("listing a cwd that has no project creates nothing", () => {
    const { ctx, work, home } = setup();
    expect(createSessionStore(ctx).listSessions({ cwd: work })).toEqual({ sessions: [], problems: [], project: { cwd: work, from: work } });
    expect(createSessionStore(ctx).listSessions({ cwd: work, ancestors: {} }).sessions).toEqual([]);
    expect(fs.existsSync(path.join(home, "projects"))).toBe(false);
  });
});

describe("meta.json (EV-10)", () => {
  function fresh(): { dir: string; meta: SessionMeta } {
    const { ctx, work } = setup();
    const ref = createSessionStore(ctx).createSession({ cwd: work });
    return { dir: ref.paths.dir, meta: ref.meta };
  }

  test("a harness session stored under another target's key throws and leaves the file intact", () => {
    const { dir, meta } = fresh();
    const bad: SessionMeta = { ...meta, harnessSessions: { claude: { harnessTargetId: brand.target("codex"), harness: "codex" } } };
    const error = thrownBatonError(() => writeMeta(dir, bad));
    expect(error.code).toBe("meta_invalid");
    expect(error.message).toContain("stored under key claude");
    expect(readMeta(dir)).toEqual(meta);
  });

  test("withHarnessSession stores the entry under its own target id; updateMeta persists it", () => {
    const { dir } = fresh();
    const next = updateMeta(dir, (meta) =>
      withHarnessSession(meta, { harnessTargetId: brand.target("codex-work"), harness: "codex", harnessSessionId: "thr_1", syncedSeq: 4 }),
    );
    expect(readMeta(dir).harnessSessions["codex-work"]?.harnessSessionId).toBe("thr_1");
    expect(next).toEqual(readMeta(dir));
  });

  test("writes are atomic: no temp files remain and unknown fields survive", () => {
    const { dir, meta } = fresh();
    fs.writeFileSync(path.join(dir, "meta.json"), JSON.stringify({ ...meta, futureField: { x: 1 } }));
    updateMeta(dir, (current) => ({ ...current, title: "renamed" }));
    const raw = JSON.parse(fs.readFileSync(path.join(dir, "meta.json"), "utf8")) as Record<string, unknown>;
    expect(raw["futureField"]).toEqual({ x: 1 });
    expect(raw["title"]).toBe("renamed");
    expect(fs.readdirSync(dir).filter((name) => name.includes(".tmp-"))).toEqual([]);
    expect(mode(path.join(dir, "meta.json"))).toBe(0o600);
  });

  test("a reader racing a writer in another process always sees a complete meta", async () => {
    const { dir, meta } = fresh();
    const metaModule = path.resolve(import.meta.dir, "../../src/store/meta.ts");
    const script = `
      const { writeMeta } = await import(${JSON.stringify(metaModule)});
      const meta = ${JSON.stringify(meta)};
      for (let i = 0; i < 150; i++) writeMeta(${JSON.stringify(dir)}, { ...meta, title: "t" + i, description: "x".repeat(((i * 7919) % 64) * 16384) });
    `;
    const writer = Bun.spawn([path.resolve("node_modules/.bin/bun"), "-e", script], { stdout: "ignore", stderr: "inherit" });
    let reads = 0;
    let done = false;
    void writer.exited.then(() => {
      done = true;
    });
    while (!done) {
      expect(readMeta(dir).batonSessionId).toBe(meta.batonSessionId);
      reads++;
      if (reads % 50 === 0) await Bun.sleep(0);
    }
    expect(await writer.exited).toBe(0);
    expect(reads).toBeGreaterThan(10);
    expect(readMeta(dir).title).toBe("t149");
  });

  test("touchMeta bumps updatedAt but never moves it backwards", () => {
    const { dir } = fresh();
    touchMeta(dir, "2026-02-01T00:00:00.000Z");
    touchMeta(dir, "2026-01-15T00:00:00.000Z");
    expect(readMeta(dir).updatedAt).toBe("2026-02-01T00:00:00.000Z");
  });

  test.each([
    ["missing cwd", { batonSessionId: "bs_1", createdAt: "x", harnessSessions: {} }, /at cwd/],
    ["bad id", { batonSessionId: "nope", cwd: "/", createdAt: "x", harnessSessions: {} }, /batonSessionId/],
    ["bad forkedFrom", { batonSessionId: "bs_1", cwd: "/", createdAt: "x", harnessSessions: {}, forkedFrom: { batonSessionId: "bs_2", throughSeq: -1 } }, /forkedFrom/],
  ])("reading meta with %s is meta_invalid naming the file", (_name, value, message) => {
    const { dir } = fresh();
    fs.writeFileSync(path.join(dir, "meta.json"), JSON.stringify(value));
    const error = thrownBatonError(() => readMeta(dir));
    expect(error.code).toBe("meta_invalid");
    expect(error.message).toContain(path.join(dir, "meta.json"));
    expect(error.message).toMatch(message);
  });
});

describe("enclosing project (#11.8)", () => {
  test("the nearest of cwd and its parents with sessions; not past the git root; never the user's home or above", () => {
    const { ctx, work } = setup();
    const store = createSessionStore(ctx);
    const userHome = mkdir(work, "home");
    const repo = mkdir(userHome, "repo");
    const deep = mkdir(repo, "src", "deep");
    const ancestors = { userHome };
    expect(store.listSessions({ cwd: deep, ancestors }).sessions).toEqual([]);
    const root = store.createSession({ cwd: repo });
    const fromDeep = store.listSessions({ cwd: deep, ancestors });
    expect(fromDeep.sessions.map((r) => r.batonSessionId)).toEqual([root.batonSessionId]);
    expect(fromDeep.project).toEqual({ cwd: repo, from: deep });
    // Without `ancestors` only the directory itself counts.
    expect(store.listSessions({ cwd: deep }).sessions).toEqual([]);
    // The nearest wins: a subdirectory with sessions of its own lists those.
    const own = store.createSession({ cwd: path.join(repo, "src") });
    expect(store.listSessions({ cwd: deep, ancestors }).sessions.map((r) => r.batonSessionId)).toEqual([own.batonSessionId]);
    // A git root stops the climb.
    const nested = mkdir(repo, "vendor", "lib");
    mkdir(nested, ".git");
    expect(store.listSessions({ cwd: mkdir(nested, "x"), ancestors }).sessions).toEqual([]);
    // The user's home is never climbed into: a session started at ~ does not claim ~/elsewhere.
    store.createSession({ cwd: userHome });
    expect(store.listSessions({ cwd: mkdir(userHome, "elsewhere"), ancestors }).sessions).toEqual([]);
    expect(store.listSessions({ cwd: userHome, ancestors }).sessions).toHaveLength(1);
  });
});

describe("session ids (#11.12)", () => {
  test("only bs_ + 26 Crockford base32 characters is an id; a prefix is folded to upper case and must be able to start one", async () => {
    const { isBatonSessionId, sessionIdPrefix } = await import("../../src/shared/ids.ts");
    expect(isBatonSessionId("bs_01KDVDNA00FVX227AG5T1V5S3H")).toBe(true);
    for (const bad of ["bs_01KDVDNA00FVX227AG5T1V5S3", "bs_01KDVDNA00FVX227AG5T1V5S3HX", "bs_01kdvdna00fvx227ag5t1v5s3h", "bs_01KDVDNA00FVX227AG5T1V5S3I", "bs_/../../elsewhere", "../bs_01KDVDNA00FVX227AG5T1V5S3H"]) {
      expect(isBatonSessionId(bad)).toBe(false);
    }
    expect(sessionIdPrefix("01kd")).toBe("bs_01KD");
    expect(sessionIdPrefix("BS_01kd")).toBe("bs_01KD");
    expect(sessionIdPrefix("bs_")).toBe("bs_");
    for (const bad of ["", "bs_/../x", "bs_01KD/..", "0f6c-uuid", "bs_nope", "x".repeat(27)]) expect(sessionIdPrefix(bad)).toBeUndefined();
  });

  test("findSession refuses a path-like id before touching a file; a symlinked session directory is not a session", () => {
    const { ctx, home, work } = setup();
    const store = createSessionStore(ctx);
    const ref = store.createSession({ cwd: work });
    const outside = mkdir(work, "elsewhere");
    const evil = `bs_/${path.relative(path.join(path.dirname(ref.paths.dir), "bs_"), outside)}`;
    fs.writeFileSync(path.join(outside, "meta.json"), JSON.stringify({ batonSessionId: evil, cwd: work, createdAt: "2026-01-01T00:00:00.000Z", harnessSessions: {} }));
    expect(thrownBatonError(() => store.findSession(evil))?.code).toBe("session_id_invalid");
    const linkedId = "bs_00000000000000000000000099";
    fs.symlinkSync(outside, path.join(path.dirname(ref.paths.dir), linkedId));
    fs.writeFileSync(path.join(outside, "meta.json"), JSON.stringify({ batonSessionId: linkedId, cwd: work, createdAt: "2026-01-01T00:00:00.000Z", harnessSessions: {} }));
    expect(thrownBatonError(() => store.findSession(linkedId))?.code).toBe("meta_invalid");
    expect(store.listSessions({ cwd: work }).sessions.map((r) => r.batonSessionId)).toEqual([ref.batonSessionId]);
    expect(fs.existsSync(path.join(home, "projects"))).toBe(true);
  });
});
