/** The one terminal sanitizer (#11.11): what agents and tools wrote never reaches the terminal as control. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { TerminalSafeStream, terminalJson, terminalSafe, terminalSafeDeep } from "../../src/shared/terminal-text.ts";

// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const ESC = "\u001b";

describe("terminalSafe", () => {
  test("OSC 52 (clipboard), OSC 0 (title), ESC[2J and colours are removed with their payload; text stays", () => {
    expect(terminalSafe(`before${ESC}]52;c;aGVsbG8=\u0007after`)).toBe("beforeafter");
    expect(terminalSafe(`${ESC}]0;pwned${ESC}\\title`)).toBe("title");
    expect(terminalSafe(`${ESC}[2J${ESC}[Hcleared?`)).toBe("cleared?");
    expect(terminalSafe(`${ESC}[1;31mred${ESC}[0m plain`)).toBe("red plain");
    expect(terminalSafe(`\u009b2J\u009d0;c1 title\u009cok`)).toBe("ok");
    expect(terminalSafe(`${ESC}Preset${ESC}\\${ESC}c${ESC}(Bdone`)).toBe("done");
  });

  test("an unterminated OSC ends at the next control; a torn sequence leaves no ESC", () => {
    expect(terminalSafe(`${ESC}]0;title without end\nnext line`)).toBe("\nnext line");
    expect(terminalSafe(`half ${ESC}[3`)).toBe("half 3");
    expect(terminalSafe(`lone ${ESC}`)).toBe("lone ␛");
  });

  test("\\n and \\t stay, \\r becomes \\n, other controls become visible pictures", () => {
    expect(terminalSafe("a\tb\nc")).toBe("a\tb\nc");
    expect(terminalSafe("crlf\r\nprogress 10%\r20%")).toBe("crlf\nprogress 10%\n20%");
    expect(terminalSafe("bell\u0007 nul\u0000 bs\u0008 del\u007f c1\u0085")).toBe("bell␇ nul␀ bs␈ del␡ c1\ufffd");
  });

  test("text without controls is returned as the same string (unicode included)", () => {
    const text = "plain — ünïcode ✓ 漢字 [x] `code`";
    expect(terminalSafe(text)).toBe(text);
  });

  test("property: no output ever carries a control but \\n and \\t; sanitizing twice changes nothing", () => {
    const chars = fc.oneof(
      fc.integer({ min: 0, max: 0xa0 }).map((c) => String.fromCharCode(c)),
      fc.constantFrom(ESC, `${ESC}[`, `${ESC}]`, "\u0007", `${ESC}\\`, "\u009b", "\u009c", "\r", "é", "漢"),
    );
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 60 }).map((cs) => cs.join("")), (text) => {
        const safe = terminalSafe(text);
        expect(CONTROLS.test(safe)).toBe(false);
        expect(terminalSafe(safe)).toBe(safe);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("TerminalSafeStream", () => {
  test("a sequence split across chunks is removed whole, payload included", () => {
    const stream = new TerminalSafeStream();
    const out = ["copy", `${ESC}]5`, "2;c;cHd", "uZWQ=", "\u0007 title", `${ESC}`, "]0;pw", `ned${ESC}`, "\\ ok\r", "\nnext"].map((c) => stream.push(c));
    expect(out.join("") + stream.flush()).toBe("copy title ok\nnext");
  });

  test("property: however the text is split, the chunks show what terminalSafe shows for the whole", () => {
    const chars = fc.constantFrom("a", " ", "\n", "\r", ESC, "[", "]", "0", ";", "2", "J", "m", "\\", "\u0007", "\u009b", "\u009c", "\u009d", "P");
    fc.assert(
      fc.property(fc.array(fc.array(chars, { maxLength: 8 }).map((cs) => cs.join("")), { maxLength: 10 }), (chunks) => {
        const stream = new TerminalSafeStream();
        const shown = chunks.map((c) => stream.push(c)).join("") + stream.flush();
        expect(shown).toBe(terminalSafe(chunks.join("")));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("terminalSafeDeep", () => {
  test("cleans every string inside plain data and keeps the identity of what had nothing to clean", () => {
    const clean = { text: "ok", list: ["a", "b"] };
    const dirty = { text: `x${ESC}[2Jy`, nested: [{ title: "t\u0007" }, clean] };
    const out = terminalSafeDeep(dirty);
    expect(out).toEqual({ text: "xy", nested: [{ title: "t␇" }, clean] });
    expect(out.nested[1]).toBe(clean);
    expect(terminalSafeDeep(clean)).toBe(clean);
    expect(terminalSafeDeep(dirty)).toBe(out);
    expect(dirty.text).toBe(`x${ESC}[2Jy`);
  });
});

describe("terminalJson", () => {
  test("DEL and C1 controls are written escaped (JSON.stringify leaves them raw); the value reads back equal", () => {
    const value = { text: `osc${ESC}]52;c;x\u0007 csi\u009b2J del\u007f` };
    const line = terminalJson(value);
    expect(CONTROLS.test(line)).toBe(false);
    expect(line).toContain("\\u009b");
    expect(JSON.parse(line)).toEqual(value);
    expect(JSON.parse(terminalJson(value, 2))).toEqual(value);
  });
});
