/**
 * The hand checks that let a start skip zod (#18): config values (config/fast-config.ts) and meta.json's shape
 * (store/meta-shape.ts). Each answers only where the schema agrees: the config check gives the schema's exact
 * output (keys, order, defaults) or nothing; the meta check says yes only to metas the schema accepts. Both are
 * generated around valid seeds (near misses per field) and from arbitrary JSON.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { fastConfig } from "../../src/config/fast-config.ts";
import { CONFIG_KEYS, configSchema } from "../../src/config/schema.ts";
import { isMetaShape } from "../../src/store/meta-shape.ts";
import { checkMeta, sessionMetaSchema } from "../../src/store/meta.ts";

const scalar = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom("", "codex", "claude", "bad id", "-x", "debug", "warn", "ask", "off", "bs_1", "bs_", "x"),
  fc.integer({ min: -3, max: 100_000 }),
  fc.constantFrom(0, 0.5, 1, 10, 20, 90, 600, 601, 86_400, 86_401, 4096, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
);
/** Values one level deep: records with plausible keys, arrays. */
const nested = fc.oneof(
  scalar,
  fc.dictionary(fc.constantFrom("codex", "claude", "bad id", "", "enabled", "afterSeconds", "other", "env", "harness"), scalar, { maxKeys: 3 }),
  fc.array(scalar, { maxLength: 2 }),
);

/** A valid value with some fields replaced (one of them perhaps removed): near misses. */
function nearMiss(seed: Record<string, unknown>, value: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(seed);
  return fc.tuple(fc.subarray(keys), fc.array(value, { minLength: keys.length, maxLength: keys.length }), fc.boolean()).map(([changed, values, drop]) => {
    const out: Record<string, unknown> = { ...seed };
    changed.forEach((key, i) => {
      if (drop && i === 0) delete out[key];
      else out[key] = values[i];
    });
    return out;
  });
}

/** A valid value with exactly one field replaced or removed: every field's edge cases, the rest still valid. */
function oneChange(seed: Record<string, unknown>, value: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(fc.constantFrom(...Object.keys(seed)), fc.option(value, { nil: undefined, freq: 8 })).map(([key, next]) => {
    const out: Record<string, unknown> = { ...seed };
    if (next === undefined) delete out[key];
    else out[key] = next;
    return out;
  });
}

describe("config values without zod", () => {
  test("CONFIG_KEYS are the schema's keys, in its order", () => {
    expect<readonly string[]>([...CONFIG_KEYS]).toEqual(Object.keys(configSchema.shape));
  });

  const CONFIG_SEED = {
    defaultAgent: "claude",
    mentionBudgetChars: 2000,
    showThoughts: false,
    logLevel: "debug",
    stallNoticeSeconds: 30,
    cancelGraceSeconds: 5,
    textgenPrefer: "codex",
    textgenModels: { codex: "gpt-5" },
    notify: { enabled: false, afterSeconds: 60 },
    failover: { codex: "off", claude: "ask" },
    harnesses: {},
    targets: {},
  };

  test("where the hand check answers, it is the schema's output exactly (keys, order, defaults); it answers for valid values", () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.oneof(nearMiss(CONFIG_SEED, nested), oneChange(CONFIG_SEED, nested), oneChange({ notify: { enabled: true, afterSeconds: 5 } }, fc.dictionary(fc.constantFrom("enabled", "afterSeconds", "x"), scalar, { maxKeys: 2 })), fc.subarray(Object.keys(CONFIG_SEED)).map((keys) => Object.fromEntries(keys.map((k) => [k, CONFIG_SEED[k as keyof typeof CONFIG_SEED]]))), fc.dictionary(fc.constantFrom(...CONFIG_KEYS, "other"), nested, { maxKeys: 4 })), (values) => {
        const fast = fastConfig(values);
        const parsed = configSchema.safeParse(values);
        if (fast === undefined) return;
        answered++;
        expect(parsed.success).toBe(true);
        expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data));
        expect(fast).toStrictEqual(parsed.data as typeof fast);
      }),
      { numRuns: 4000 },
    );
    expect(answered).toBeGreaterThan(100); // it is not a check that always defers
  });

  test("the common starts answer without the schema: no file, the seed, an env override", () => {
    expect(fastConfig({})).toStrictEqual(configSchema.parse({}));
    expect(fastConfig(CONFIG_SEED)).toStrictEqual(configSchema.parse(CONFIG_SEED));
    expect(fastConfig({ showThoughts: true, stallNoticeSeconds: 12 })).toStrictEqual(configSchema.parse({ showThoughts: true, stallNoticeSeconds: 12 }));
  });

  test("null is not absent: a key given as null gets the schema's error, not the default", () => {
    for (const key of ["defaultAgent", "showThoughts", "notify", "failover"]) {
      expect(fastConfig({ [key]: null })).toBeUndefined();
      expect(configSchema.safeParse({ [key]: null }).success).toBe(false);
    }
    expect(fastConfig({ notify: { enabled: null } })).toBeUndefined();
  });
});

describe("meta.json without zod", () => {
  const META_SEED = {
    batonSessionId: "bs_01ABC",
    title: "t",
    preview: "p",
    cwd: "/work",
    createdAt: "2026-12-02T00:00:00.000Z",
    updatedAt: "2026-12-02T00:01:00.000Z",
    harnessSessions: {
      codex: {
        harnessTargetId: "codex",
        harness: "codex",
        harnessSessionId: "019a",
        launchSnapshot: { harnessTargetId: "codex", harness: "codex", harnessSessionKey: "k", cwd: "/work", model: "m" },
        resumeState: { version: 1, data: { any: "thing" } },
        syncedSeq: 4,
      },
    },
    forkedFrom: { batonSessionId: "bs_01DEF", throughSeq: 3 },
    adoptedFrom: { session: { harnessTargetId: "claude", harness: "claude", identity: { id: "x" } }, importedThrough: { line: 2 } },
    attention: { anything: true },
  };
  const ENTRY_SEED = META_SEED.harnessSessions.codex;

  const metas = fc.oneof(
    nearMiss(META_SEED, nested),
    oneChange(META_SEED, nested),
    oneChange(ENTRY_SEED, nested).map((entry) => ({ ...META_SEED, harnessSessions: { codex: entry } })),
    oneChange(ENTRY_SEED.launchSnapshot, scalar).map((launchSnapshot) => ({ ...META_SEED, harnessSessions: { codex: { ...ENTRY_SEED, launchSnapshot } } })),
    oneChange(META_SEED.forkedFrom, scalar).map((forkedFrom) => ({ ...META_SEED, forkedFrom })),
    oneChange(META_SEED.adoptedFrom.session, nested).map((session) => ({ ...META_SEED, adoptedFrom: { ...META_SEED.adoptedFrom, session } })),
    nearMiss(ENTRY_SEED, nested).map((entry) => ({ ...META_SEED, harnessSessions: { codex: entry } })),
    nearMiss(ENTRY_SEED.launchSnapshot, scalar).map((launchSnapshot) => ({ ...META_SEED, harnessSessions: { codex: { ...ENTRY_SEED, launchSnapshot } } })),
    nearMiss(META_SEED.forkedFrom, scalar).map((forkedFrom) => ({ ...META_SEED, forkedFrom })),
    nearMiss(META_SEED.adoptedFrom, nested).map((adoptedFrom) => ({ ...META_SEED, adoptedFrom })),
    fc.jsonValue(),
  );

  test("the hand check says yes only to metas the schema accepts, and checkMeta's answer is the schema's", () => {
    let sure = 0;
    fc.assert(
      fc.property(metas, (meta) => {
        const accepted = sessionMetaSchema.safeParse(meta).success;
        if (isMetaShape(meta)) {
          sure++;
          expect(accepted).toBe(true);
        }
        expect(checkMeta(meta) === undefined || !accepted || checkMeta(meta)!.includes("is stored under key")).toBe(true);
        if (!accepted) expect(checkMeta(meta)).toMatch(/^invalid session meta/);
      }),
      { numRuns: 4000 },
    );
    expect(sure).toBeGreaterThan(100);
  });

  test("the key check (EV-10) runs on the fast path too", () => {
    const misfiled = { ...META_SEED, harnessSessions: { claude: ENTRY_SEED } };
    expect(isMetaShape(misfiled)).toBe(true);
    expect(checkMeta(misfiled)).toBe("harness session for target codex is stored under key claude");
  });
});
