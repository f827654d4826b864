/**
 * meta.json's write-behind checks a change only where it changed something (#18: every turn end bumps `updatedAt`,
 * and the whole zod check of the meta cost ~0.7 ms of it): for any valid meta and any copy-made change, the
 * incremental check accepts exactly what the whole check accepts, with the same message for one broken field.
 */
import { expect, test } from "bun:test";
import fc from "fast-check";
import { checkMeta, checkMetaChange, type SessionMeta } from "../../src/store/meta.ts";

const entry = (key: string, extra: Record<string, unknown> = {}) => ({ harnessTargetId: key, harness: "codex", ...extra });

const base: SessionMeta = {
  batonSessionId: "bs_00000000000000000000000001" as never,
  cwd: "/work/project",
  createdAt: "2026-01-01T00:00:00.000Z",
  harnessSessions: { codex: entry("codex", { harnessSessionId: "019a" }) as never, claude: entry("claude") as never },
  title: "a title",
};

type Change = (meta: Record<string, unknown>) => Record<string, unknown>;
const field = (key: string, values: readonly unknown[]): fc.Arbitrary<Change> =>
  fc.constantFrom(...values).map((value) => (meta) => {
    const next = { ...meta };
    if (value === DELETE) delete next[key];
    else next[key] = value;
    return next;
  });
const DELETE = Symbol("delete");
const session = (values: readonly unknown[]): fc.Arbitrary<Change> =>
  fc.tuple(fc.constantFrom("codex", "claude", "gemini"), fc.constantFrom(...values)).map(([key, value]) => (meta) => {
    const sessions = { ...(meta["harnessSessions"] as Record<string, unknown>) };
    if (value === DELETE) delete sessions[key];
    else sessions[key] = typeof value === "function" ? (value as (key: string) => unknown)(key) : value;
    return { ...meta, harnessSessions: sessions };
  });

const change: fc.Arbitrary<Change> = fc.oneof(
  field("updatedAt", ["2026-12-02T05:00:00.000Z", 5, DELETE, null]),
  field("title", ["new", "", 12, DELETE]),
  field("preview", ["typed", [], DELETE]),
  field("cwd", ["/elsewhere", "", DELETE, 3]),
  field("createdAt", ["2026-02-02", "", DELETE]),
  field("batonSessionId", ["bs_other", "nope", DELETE]),
  field("forkedFrom", [{ batonSessionId: "bs_x", throughSeq: 3 }, { batonSessionId: "bs_x", throughSeq: -1 }, { batonSessionId: "x", throughSeq: 1 }, "fork", DELETE]),
  field("attention", [{ anything: true }, 7, DELETE]),
  field("somethingNewer", [{ kept: 1 }, "x", DELETE]),
  field("harnessSessions", [{}, { codex: entry("codex") }, { codex: entry("claude") }, [], "sessions", DELETE]),
  session([
    (key: string) => entry(key, { model: "m" }),
    (key: string) => entry(key, { syncedSeq: "3" }),
    (key: string) => entry(key, { harness: "" }),
    (key: string) => entry(key === "codex" ? "claude" : "codex"),
    (key: string) => entry(key, { launchSnapshot: { harnessTargetId: key } }),
    "not an entry",
    DELETE,
  ]),
);

test("checkMetaChange accepts exactly what checkMeta accepts, for any copy-made change of a valid meta", () => {
  expect(checkMeta(base)).toBeUndefined();
  fc.assert(
    fc.property(fc.array(change, { minLength: 1, maxLength: 4 }), (changes) => {
      const next = changes.reduce((meta, one) => one(meta), base as unknown as Record<string, unknown>) as unknown as SessionMeta;
      const whole = checkMeta(next);
      const incremental = checkMetaChange(base, next);
      expect(incremental === undefined).toBe(whole === undefined);
      if (changes.length === 1) expect(incremental).toEqual(whole);
    }),
    { numRuns: 2000 },
  );
});

test("a change that touches nothing is accepted; a broken field or a misplaced session entry is named as the whole check names it", () => {
  expect(checkMetaChange(base, { ...base })).toBeUndefined();
  expect(checkMetaChange(base, { ...base, cwd: "" })).toBe(checkMeta({ ...base, cwd: "" }));
  expect(checkMetaChange(base, { ...base, harnessSessions: { ...base.harnessSessions, gemini: entry("codex") as never } })).toBe("harness session for target codex is stored under key gemini");
});
