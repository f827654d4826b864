/**
 * The closed vocabulary of limit failures (invariant 2), defined once. Adapters map their harness's own words
 * into it at the boundary — Codex `usageLimitExceeded` / `rateLimitExceeded`, Anthropic's 429 `rate_limit_error`
 * through Claude Code — and put it in `_baton_error_update.code` (the harness's word goes in `nativeCode`).
 * Every other error keeps its generic code: an unknown error is never a limit, and proposes nothing.
 */
export const LIMIT_CODES = [
  /** Too many requests for now: waiting (or the harness's own retries) fixes it. */
  "rate_limited",
  /** The plan's usage is used up until it resets: this agent cannot continue the task for a while. */
  "quota_exhausted",
] as const;

export type LimitCode = (typeof LIMIT_CODES)[number];

const MEMBERS: ReadonlySet<string> = new Set(LIMIT_CODES);

export function isLimitCode(value: unknown): value is LimitCode {
  return typeof value === "string" && MEMBERS.has(value);
}
