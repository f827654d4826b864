import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import type { AnyEvent, EventDraft } from "../../src/event/envelope.ts";
import { SessionPipeline } from "../../src/controller/pipeline.ts";
import { ManualClock } from "../../src/shared/clock.ts";
import { silentLogger } from "../../src/shared/log.ts";
import { createSequentialIdSource, type BatonSessionId } from "../../src/shared/ids.ts";
import { checkpointPathFor, loadState, writeCheckpoint, type StateFold } from "../../src/store/checkpoint.ts";
import { openLedger, type Ledger } from "../../src/store/ledger.ts";
import { stringifySliced } from "../../src/store/sliced-json.ts";

const SESSION = "bs_00000000000000000000000001" as BatonSessionId;
const dirs: string[] = [];
let idBlock = 0;

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function newLedger(file?: string): Ledger {
  let target = file;
  if (target === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-ckpt-"));
    dirs.push(dir);
    target = path.join(dir, "session.jsonl");
  }
  idBlock += 100_000;
  return openLedger({ path: target, batonSessionId: SESSION, clock: new ManualClock(), ids: createSequentialIdSource(idBlock) });
}

interface Totals {
  readonly count: number;
  readonly text: string;
  readonly byKind: Readonly<Record<string, number>>;
  readonly lastSeq: number;
}

/** A simple, order-sensitive fold. */
const totals: StateFold<Totals> = {
  version: "totals/1",
  initial: () => ({ count: 0, text: "", byKind: {}, lastSeq: 0 }),
  fold: (state, event) => ({
    count: state.count + 1,
    text: `${state.text}|${(event.payload as { title?: string }).title ?? ""}`,
    byKind: { ...state.byKind, [event.kind]: (state.byKind[event.kind] ?? 0) + 1 },
    lastSeq: event.seq,
  }),
};

function notice(title: string): EventDraft {
  return { kind: "_baton_notice", source: { type: "baton" }, payload: { level: "info", title } };
}

function fullReplay(ledger: Ledger): Totals {
  let state = totals.initial();
  for (const { event } of ledger.readEvents()) state = totals.fold(state, event);
  return state;
}

describe("checkpoint + tail replay", () => {
  test("property: loading from a checkpoint at any point equals a full replay", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 30 }), { minLength: 1, maxLength: 40 }),
        fc.nat(),
        async (titles, pick) => {
          const ledger = newLedger();
          let state = totals.initial();
          const snapshots: Array<{ state: Totals; position: Ledger["position"] }> = [];
          // The session's broadcaster: each listener call sees the event just written (the ledger's position is its end).
          const pipeline = new SessionPipeline(ledger, totals.initial(), totals.fold, silentLogger);
          pipeline.subscribe((_event: AnyEvent, folded) => {
            state = folded;
            snapshots.push({ state, position: ledger.position });
          });
          for (const title of titles) pipeline.append(notice(title));
          const chosen = snapshots[pick % snapshots.length];
          if (chosen === undefined) throw new Error("no snapshot");
          expect(await writeCheckpoint(ledger, totals, chosen.state, chosen.position)).toBe(true);
          const loaded = loadState(ledger, totals);
          expect(loaded.fromCheckpoint).toBe(true);
          expect(loaded.replayed).toBe(titles.length - chosen.position.seq);
          expect(loaded.state).toEqual(fullReplay(ledger));
          expect(loaded.state).toEqual(state);
          expect(loaded.position).toEqual(ledger.position);
          await ledger.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  test("the checkpoint file is private and replaces the previous one", async () => {
    const ledger = newLedger();
    ledger.append(notice("a"));
    await writeCheckpoint(ledger, totals, totals.initial(), ledger.position);
    ledger.append(notice("b"));
    await writeCheckpoint(ledger, totals, totals.initial(), ledger.position);
    const file = checkpointPathFor(ledger.path);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(["checkpoint.jsonl", "session.jsonl"]);
  });

  test("an empty ledger writes no checkpoint", async () => {
    const ledger = newLedger();
    expect(await writeCheckpoint(ledger, totals, totals.initial(), ledger.position)).toBe(false);
    expect(fs.existsSync(checkpointPathFor(ledger.path))).toBe(false);
  });

  test("a superseded request is skipped; the newest wins", async () => {
    const ledger = newLedger();
    ledger.append(notice("a"));
    const first = ledger.position;
    ledger.append(notice("b"));
    const second = ledger.position;
    const results = await Promise.all([
      writeCheckpoint(ledger, totals, fullReplay(ledger), first),
      writeCheckpoint(ledger, totals, fullReplay(ledger), second),
      writeCheckpoint(ledger, totals, fullReplay(ledger), first),
    ]);
    expect(results).toEqual([false, true, false]);
    const header = JSON.parse(fs.readFileSync(checkpointPathFor(ledger.path), "utf8").split("\n")[0] ?? "") as { seq: number };
    expect(header.seq).toBe(2);
  });

  test("encode/decode let states with Maps round-trip", async () => {
    type Seen = Map<string, number>;
    const fold: StateFold<Seen> = {
      version: "seen/1",
      initial: () => new Map(),
      fold: (state, event) => new Map(state).set(event.eventId, event.seq),
      encode: (state) => [...state],
      decode: (value) => new Map(value as Array<[string, number]>),
    };
    const ledger = newLedger();
    let state = fold.initial();
    for (const title of ["a", "b", "c"]) state = fold.fold(state, ledger.append(notice(title)));
    await writeCheckpoint(ledger, fold, state, ledger.position);
    const loaded = loadState(ledger, fold);
    expect(loaded.fromCheckpoint).toBe(true);
    expect(loaded.state).toEqual(state);
  });
});

describe("unusable checkpoints fall back to a full replay (never an error)", () => {
  async function prepared(): Promise<{ ledger: Ledger; file: string }> {
    const ledger = newLedger();
    for (const title of ["one", "two", "three"]) ledger.append(notice(title));
    await writeCheckpoint(ledger, totals, fullReplay(ledger), ledger.position);
    ledger.append(notice("four"));
    return { ledger, file: checkpointPathFor(ledger.path) };
  }

  function expectFallback(ledger: Ledger, fold: StateFold<Totals>, problem: RegExp | undefined): void {
    const loaded = loadState(ledger, fold);
    expect(loaded.fromCheckpoint).toBe(false);
    expect(loaded.replayed).toBe(ledger.lastSeq);
    expect(loaded.state).toEqual(fullReplay(ledger));
    if (problem === undefined) expect(loaded.checkpointProblem).toBeUndefined();
    else expect(loaded.checkpointProblem).toMatch(problem);
  }

  test("sanity: the prepared checkpoint is used", async () => {
    const { ledger } = await prepared();
    const loaded = loadState(ledger, totals);
    expect(loaded.fromCheckpoint).toBe(true);
    expect(loaded.replayed).toBe(1);
  });

  test("missing", async () => {
    const { ledger, file } = await prepared();
    fs.unlinkSync(file);
    expectFallback(ledger, totals, undefined);
  });

  test("fold version changed", async () => {
    const { ledger } = await prepared();
    expectFallback(ledger, { ...totals, version: "totals/2" }, /fold version totals\/1, expected totals\/2/);
  });

  test("corrupt state JSON", async () => {
    const { ledger, file } = await prepared();
    const [header] = fs.readFileSync(file, "utf8").split("\n");
    fs.writeFileSync(file, `${header}\n{"count":3,\n`);
    expectFallback(ledger, totals, /unusable/);
  });

  test("truncated file", async () => {
    const { ledger, file } = await prepared();
    fs.truncateSync(file, fs.statSync(file).size - 5);
    expectFallback(ledger, totals, /truncated/);
  });

  test("garbage header", async () => {
    const { ledger, file } = await prepared();
    fs.writeFileSync(file, "hello\nworld\n");
    expectFallback(ledger, totals, /unusable/);
  });

  test("the ledger was rewritten: same offset, different event", async () => {
    const { ledger, file } = await prepared();
    const header = fs.readFileSync(file, "utf8").split("\n")[0] ?? "";
    const stale = newLedger(path.join(path.dirname(ledger.path), "other.jsonl"));
    for (const title of ["one", "two", "three", "four"]) stale.append(notice(title));
    fs.copyFileSync(stale.path, ledger.path);
    const reopened = newLedger(ledger.path);
    expect(fs.readFileSync(file, "utf8").split("\n")[0]).toBe(header);
    expectFallback(reopened, totals, /is stale: the line at offset/);
  });

  test("the ledger is shorter than the checkpoint (restored from backup)", async () => {
    const { ledger, file } = await prepared();
    const content = fs.readFileSync(ledger.path, "utf8").split("\n");
    fs.writeFileSync(ledger.path, `${content.slice(0, 2).join("\n")}\n`);
    const reopened = newLedger(ledger.path);
    expect(fs.existsSync(file)).toBe(true);
    expectFallback(reopened, totals, /beyond the ledger/);
  });

  test("offset not on a line boundary", async () => {
    const { ledger, file } = await prepared();
    const [headerText, body] = fs.readFileSync(file, "utf8").split("\n");
    const header = JSON.parse(headerText ?? "") as Record<string, unknown>;
    fs.writeFileSync(file, `${JSON.stringify({ ...header, byteOffset: (header["byteOffset"] as number) - 3 })}\n${body}\n`);
    expectFallback(ledger, totals, /no ledger line ends at offset/);
  });

  test("checkpoint of another session", async () => {
    const { ledger, file } = await prepared();
    const [headerText, body] = fs.readFileSync(file, "utf8").split("\n");
    const header = JSON.parse(headerText ?? "") as Record<string, unknown>;
    fs.writeFileSync(file, `${JSON.stringify({ ...header, batonSessionId: "bs_other" })}\n${body}\n`);
    expectFallback(ledger, totals, /belongs to bs_other/);
  });

  test("decode throws", async () => {
    const { ledger } = await prepared();
    expectFallback(
      ledger,
      {
        ...totals,
        decode: () => {
          throw new Error("bad shape");
        },
      },
      /bad shape/,
    );
  });
});

describe("sliced JSON", () => {
  test("property: same output as JSON.stringify", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (value) => {
        expect(await stringifySliced(value, { sliceMs: 0 })).toBe(JSON.stringify(value));
      }),
      { numRuns: 200 },
    );
  });

  test("undefined, functions and toJSON follow JSON.stringify", async () => {
    const value = {
      a: undefined,
      b: () => 1,
      c: [undefined, () => 2, 3],
      d: new Date(0),
      e: Array.from({ length: 40 }, (_, i) => ({ i, skip: undefined })),
      f: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i % 2 === 0 ? undefined : i])),
    };
    expect(await stringifySliced(value, { sliceMs: 0 })).toBe(JSON.stringify(value));
    expect(await stringifySliced(undefined)).toBeUndefined();
  });

  test("yields to the event loop on large values", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const big = { items: Array.from({ length: 50_000 }, (_, i) => ({ i, text: `item ${i}` })) };
    const text = await stringifySliced(big, { sliceMs: 1 });
    clearInterval(timer);
    expect(text).toBe(JSON.stringify(big));
    expect(ticks).toBeGreaterThan(0);
  });
});

describe("the checkpoint records a digest of the ledger prefix it covers (#12.11)", () => {
  /** Replace one byte at `offset` in the file with a different printable byte (same length). */
  function flipByte(file: string, offset: number): void {
    const fd = fs.openSync(file, "r+");
    try {
      const one = Buffer.alloc(1);
      fs.readSync(fd, one, 0, 1, offset);
      one[0] = one[0] === 0x61 ? 0x62 : 0x61;
      fs.writeSync(fd, one, 0, 1, offset);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Offset of the first byte of `needle` in the file. */
  function offsetOf(file: string, needle: string): number {
    const at = fs.readFileSync(file).indexOf(needle);
    if (at === -1) throw new Error(`${needle} not in ${file}`);
    return at;
  }

  test("property: a same-length edit anywhere before the offset is never folded from the checkpoint", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ minLength: 1, maxLength: 20 }), { minLength: 2, maxLength: 20 }), fc.nat(), async (titles, pick) => {
        const ledger = newLedger();
        for (const [index, title] of titles.entries()) ledger.append(notice(`T${index}-${title.replace(/[^a-z]/gi, "x")}`));
        await writeCheckpoint(ledger, totals, fullReplay(ledger), ledger.position);
        ledger.append(notice("tail"));
        const victim = pick % titles.length;
        flipByte(ledger.path, offsetOf(ledger.path, `T${victim}-`) + 1 + String(victim).length + 1);
        const reopened = newLedger(ledger.path);
        const loaded = loadState(reopened, totals);
        expect(loaded.fromCheckpoint).toBe(false);
        expect(loaded.checkpointProblem).toMatch(/is stale: the ledger's bytes 0–\d+ changed since the checkpoint was written/);
        expect(loaded.state).toEqual(fullReplay(reopened));
        await reopened.close();
        await ledger.close();
      }),
      { numRuns: 40 },
    );
  });

  test("deferred: the checkpoint is used at once and checked later; the check finds the edit", async () => {
    const { ledger } = await preparedWith(["alpha", "beta"]);
    flipByte(ledger.path, offsetOf(ledger.path, "alpha"));
    const reopened = newLedger(ledger.path);
    const loaded = loadState(reopened, totals, { verify: "deferred" });
    expect(loaded.fromCheckpoint).toBe(true);
    expect(loaded.state.text).toContain("alpha");
    expect(await loaded.verifyCheckpoint?.()).toMatch(/is stale: the ledger's bytes 0–\d+ changed/);
    const intact = await preparedWith(["gamma"]);
    const fine = loadState(newLedger(intact.ledger.path), totals, { verify: "deferred" });
    expect(fine.fromCheckpoint).toBe(true);
    expect(await fine.verifyCheckpoint?.()).toBeUndefined();
    expect(loadState(intact.ledger, totals).verifyCheckpoint).toBeUndefined();
  });

  test("a later checkpoint reuses the digests of the full 1 MiB blocks it knows and hashes only the rest", async () => {
    const ledger = newLedger();
    const big = "x".repeat(200_000);
    for (let i = 0; i < 12; i++) ledger.append(notice(`${i}-${big}`));
    expect(ledger.byteLength).toBeGreaterThan(2 * 1024 * 1024);
    await writeCheckpoint(ledger, totals, fullReplay(ledger), ledger.position);
    const first = JSON.parse(fs.readFileSync(checkpointPathFor(ledger.path), "utf8").split("\n")[0]!) as { digest: { blocks: string[] } };
    // An edit in block 0 after that checkpoint: a writer that re-hashed old blocks would record it.
    flipByte(ledger.path, 1000);
    ledger.append(notice("more"));
    await writeCheckpoint(ledger, totals, fullReplay(ledger), ledger.position);
    const second = JSON.parse(fs.readFileSync(checkpointPathFor(ledger.path), "utf8").split("\n")[0]!) as { digest: { blocks: string[] } };
    expect(second.digest.blocks.length).toBe(first.digest.blocks.length);
    expect(second.digest.blocks.slice(0, 2)).toEqual(first.digest.blocks.slice(0, 2));
    expect(second.digest.blocks.at(-1)).not.toBe(first.digest.blocks.at(-1));
    // …and a fresh open checks every block, so the edit is still found.
    expect(loadState(newLedger(ledger.path), totals).checkpointProblem).toMatch(/bytes 0–1048576 changed/);
  });

  test("a checkpoint without a digest (an older format) is not used", async () => {
    const { ledger } = await preparedWith(["one"]);
    const file = checkpointPathFor(ledger.path);
    const [headerText, body] = fs.readFileSync(file, "utf8").split("\n");
    const { digest: _digest, ...header } = JSON.parse(headerText ?? "") as Record<string, unknown>;
    fs.writeFileSync(file, `${JSON.stringify(header)}\n${body}\n`);
    expect(loadState(ledger, totals).checkpointProblem).toMatch(/malformed header: no ledger digest/);
  });

  async function preparedWith(titles: readonly string[]): Promise<{ ledger: Ledger }> {
    const ledger = newLedger();
    for (const title of titles) ledger.append(notice(title));
    await writeCheckpoint(ledger, totals, fullReplay(ledger), ledger.position);
    ledger.append(notice("after"));
    return { ledger };
  }
});

describe("a fold that refuses an event fails the load with file:line", () => {
  test("the error names the ledger line of the event", () => {
    const ledger = newLedger();
    for (const title of ["a", "b", "boom", "c"]) ledger.append(notice(title));
    const refusing: StateFold<Totals> = {
      ...totals,
      fold: (state, event) => {
        if ((event.payload as { title?: string }).title === "boom") throw new Error("not allowed here");
        return totals.fold(state, event);
      },
    };
    expect(() => loadState(ledger, refusing)).toThrow(`corrupt ledger line ${ledger.path}:3: not allowed here`);
  });
});
