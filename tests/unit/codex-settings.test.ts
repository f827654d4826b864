/** The Codex adapter's view of its settings (checked by hand, no zod) keeps exactly what the schema parses, per key. */
import { expect, test } from "bun:test";
import fc from "fast-check";
import { APPROVAL_POLICIES, APPROVALS_REVIEWERS, codexSettingsOf, codexSettingsSchema, SANDBOX_MODES } from "../../src/harness/codex/settings.ts";

const value = fc.oneof(
  fc.constantFrom(...APPROVAL_POLICIES, ...SANDBOX_MODES, ...APPROVALS_REVIEWERS, "", "on-failure", "x"),
  fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.constant(""), fc.integer()), { maxLength: 3 }),
  fc.jsonValue(),
);
const settings = fc.record({ command: value, approvalPolicy: value, sandbox: value, approvalsReviewer: value, other: value }, { requiredKeys: [] });

test("codexSettingsOf ≡ each key's schema parse (a key that does not parse is left out)", () => {
  let kept = 0;
  fc.assert(
    fc.property(settings, (input) => {
      const expected: Record<string, unknown> = {};
      for (const [key, schema] of Object.entries(codexSettingsSchema.shape)) {
        const parsed = schema.safeParse((input as Record<string, unknown>)[key]);
        if (parsed.success && parsed.data !== undefined) expected[key] = parsed.data;
      }
      kept += Object.keys(expected).length;
      expect(codexSettingsOf(input)).toEqual(expected);
    }),
    { numRuns: 3000 },
  );
  expect(kept).toBeGreaterThan(0);
});
