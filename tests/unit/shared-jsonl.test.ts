/** JSON-lines framing shared by the ledger and the transports. */
import { describe, expect, test } from "bun:test";
import { encodeJsonLine, LineFramer } from "../../src/shared/jsonl.ts";

describe("LineFramer", () => {
  test("lines split across chunks, CRLF and LF, the torn tail kept apart", () => {
    const framer = new LineFramer();
    expect(framer.push('{"a":1}\r\n{"b"')).toEqual(['{"a":1}']);
    expect(framer.push(':2}\n{"c":')).toEqual(['{"b":2}']);
    expect(framer.finish()).toBe('{"c":');
    expect(framer.finish()).toBeUndefined();
  });

  test("multi-byte characters split across byte chunks survive", () => {
    const bytes = new TextEncoder().encode("é🚀\n");
    const framer = new LineFramer();
    const lines = [...bytes].flatMap((byte) => framer.push(new Uint8Array([byte])));
    expect(lines).toEqual(["é🚀"]);
  });

  test("a line over the byte cap is dropped and reported; the next line is fine", () => {
    const sizes: number[] = [];
    const framer = new LineFramer({ maxLineBytes: 10, onOversize: (bytes) => sizes.push(bytes) });
    expect(framer.push("0123456789ABCDEF")).toEqual([]);
    expect(framer.push("GHIJ\nok\n")).toEqual(["ok"]);
    expect(sizes.length).toBe(1);
    expect(sizes[0]).toBeGreaterThan(10);
  });

  test("a complete line over the byte cap inside one chunk is dropped too", () => {
    const sizes: number[] = [];
    const framer = new LineFramer({ maxLineBytes: 10, onOversize: (bytes) => sizes.push(bytes) });
    expect(framer.push("short\n0123456789ABCDEF\nok\n")).toEqual(["short", "ok"]);
    expect(sizes).toEqual([16]);
    expect(framer.push("éééééé\n")).toEqual([]);
    expect(sizes).toEqual([16, 12]);
  });

  test("encodeJsonLine round-trips through the framer", () => {
    const framer = new LineFramer();
    expect(framer.push(encodeJsonLine({ x: "a\nb" }))).toEqual(['{"x":"a\\nb"}']);
  });
});
