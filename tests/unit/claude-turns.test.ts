import { describe, expect, test } from "bun:test";
import { TurnBook } from "../../src/harness/claude/turns.ts";
import type { TurnId } from "../../src/shared/ids.ts";

const T = (n: number): TurnId => `t_${String(n).padStart(26, "0")}` as TurnId;

describe("TurnBook: results are bound to the turn that pushed their messages", () => {
  test("a result naming the turn's uuid settles it; nothing is left pending", () => {
    const book = new TurnBook();
    const turn = book.begin(T(1), "driven");
    book.attach(turn, "u1");
    expect(book.ownerOf(["u1"])).toBe(turn);
    expect(book.settle(turn, ["u1"])).toBe(true);
  });

  test("a steer keeps the turn open until its own result arrives", () => {
    const book = new TurnBook();
    const turn = book.begin(T(1), "driven");
    book.attach(turn, "prompt");
    book.attach(turn, "steer");
    expect(book.settle(turn, ["prompt"])).toBe(false);
    expect(book.ownerOf(["steer"])).toBe(turn);
    expect(book.settle(turn, ["steer"])).toBe(true);
  });

  test("a late result of a finished turn can never close the next one", () => {
    const book = new TurnBook();
    const first = book.begin(T(1), "driven");
    book.attach(first, "a");
    book.finalize(first);
    const second = book.begin(T(2), "driven");
    book.attach(second, "b");
    expect(book.ownerOf(["a"])).toBeUndefined();
    expect(book.ownerOf([])).toBeUndefined();
    expect(book.ownerOf(["someone-else"])).toBeUndefined();
    expect(book.ownerOf(["b"])).toBe(second);
  });

  test("results without uuids belong only to an open observed turn", () => {
    const book = new TurnBook();
    expect(book.ownerOf([])).toBeUndefined();
    const observed = book.begin(T(3), "observed");
    expect(book.ownerOf([])).toBe(observed);
    expect(book.ownerOf(["internal-uuid"])).toBe(observed);
    book.finalize(observed);
    expect(book.ownerOf([])).toBeUndefined();
  });

  test("finalize happens once and forgets pending uuids", () => {
    const book = new TurnBook();
    const turn = book.begin(T(1), "driven");
    book.attach(turn, "a");
    expect(book.finalize(turn)).toBe(true);
    expect(book.finalize(turn)).toBe(false);
    expect(book.active()).toBeUndefined();
    expect(book.ownerOf(["a"])).toBeUndefined();
  });
});
