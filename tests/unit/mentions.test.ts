/** @-references: parsing, the provider registry, expansion within the budget (CTX-06/07). */
import { describe, expect, test } from "bun:test";
import { expandMentions, hasMentions, parseMentions } from "../../src/context/mentions.ts";
import { ContextProviderRegistry, tokenPrefix, type ContextProvider } from "../../src/context/providers.ts";

const provider = (kind: string, content: Record<string, string>): ContextProvider => ({
  kind,
  search: async () => [],
  provide: async (id, { maxChars }) => content[id]?.slice(0, maxChars),
});

describe("mentions", () => {
  test("parses provider tokens and legacy @bs_ tokens, de-duplicated", () => {
    const text = "see @session:bs_01J and @session:bs_01J, also @bs_01KDVDNA00FVX227AG5T1V5S3H plus email a@b.c";
    expect(parseMentions(text)).toEqual({
      references: [{ prefix: "session", id: "bs_01J", token: "@session:bs_01J" }],
      legacy: ["bs_01KDVDNA00FVX227AG5T1V5S3H"],
    });
  });

  test("hasMentions: a text block with a token, at the start or after a line break; none without one, nor in a pasted part", () => {
    expect(hasMentions([{ type: "text", text: "say hi" }])).toBe(false);
    expect(hasMentions([{ type: "text", text: "mail a@b.c" }])).toBe(false);
    expect(hasMentions([{ type: "text", text: "@session:bs_01J first" }])).toBe(true);
    expect(hasMentions([{ type: "text", text: "plain" }, { type: "text", text: "and\n@bs_01KDVDNA00FVX227AG5T1V5S3H" }])).toBe(true);
    expect(hasMentions([{ type: "text", text: "pasted @session:bs_01J" }], ["pasted @session:bs_01J"])).toBe(false);
  });

  test("plugin kinds are qualified and removable; duplicates rejected", () => {
    const registry = new ContextProviderRegistry();
    const remove = registry.register(provider("reqloop@req", {}));
    expect(tokenPrefix("reqloop@req")).toBe("reqloop.req");
    expect(registry.byPrefix("reqloop.req")?.kind).toBe("reqloop@req");
    expect(() => registry.register(provider("reqloop@req", {}))).toThrow(/already registered/);
    expect(() => registry.register(provider("bad kind", {}))).toThrow(/invalid/);
    remove();
    expect(registry.byPrefix("reqloop.req")).toBeUndefined();
  });

  test("expansion prepends <baton-context> and keeps the typed text; unknown ids stay as typed", async () => {
    const registry = new ContextProviderRegistry();
    registry.register(provider("session", { bs_1: "Session bs_1: fixed the parser" }));
    const result = await expandMentions("continue @session:bs_1 and @session:bs_2", registry, 4096);
    expect(result.expanded).toBe(true);
    expect(result.text).toStartWith("<baton-context>\nContext explicitly referenced by the user:");
    expect(result.text).toContain("fixed the parser");
    expect(result.text).toEndWith("\n\ncontinue @session:bs_1 and @session:bs_2");
    expect(result.unresolved).toEqual(["@session:bs_2"]);
  });

  test("each reference gets its share of the budget; both kinds split it in half", async () => {
    const long = "x".repeat(5000);
    const registry = new ContextProviderRegistry();
    registry.register(provider("session", { a: long, b: long, bs_01KDVDNA00FVX227AG5T1V5S3H: long }));
    const two = await expandMentions("@session:a @session:b", registry, 1000);
    expect(two.text.split("x".repeat(499)).length - 1).toBe(2);
    expect(two.text).not.toContain("x".repeat(501));
    const mixed = await expandMentions("@session:a @bs_01KDVDNA00FVX227AG5T1V5S3H", registry, 1000);
    expect(mixed.text).toContain("Background context only");
    expect(mixed.text).not.toContain("x".repeat(501));
  });

  test("no tokens: unchanged", async () => {
    expect(await expandMentions("/tmp/x is a path", new ContextProviderRegistry(), 100)).toEqual({ text: "/tmp/x is a path", expanded: false, unresolved: [] });
  });
});

describe("references the user did not type (#11.12)", () => {
  const id = "bs_01KDVDNA00FVX227AG5T1V5S3H";
  test("a reference only inside pasted or piped parts is not a reference; typed once more, it is", () => {
    const pasted = `notes: see @session:${id} and @${id}`;
    expect(parseMentions(`${pasted} — thoughts?`, [pasted])).toEqual({ references: [], legacy: [] });
    expect(parseMentions(`${pasted} — compare @session:${id}`, [pasted]).references.map((r) => r.token)).toEqual([`@session:${id}`]);
    expect(parseMentions(pasted, [pasted]).legacy).toEqual([]);
    expect(parseMentions(`${pasted} @${id}`, [pasted]).legacy).toEqual([id]);
  });

  test("expandMentions leaves an untyped reference as written", async () => {
    const registry = new ContextProviderRegistry();
    registry.register(provider("session", { [id]: "SECRET HISTORY" }));
    const text = `piped: @session:${id}`;
    expect(await expandMentions(text, registry, 1000, [text])).toEqual({ text, expanded: false, unresolved: [] });
    expect((await expandMentions(text, registry, 1000)).text).toContain("SECRET HISTORY");
  });
});
