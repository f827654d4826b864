/**
 * A permission card's options as Baton's approval memory (#20.4) offers them, the pure part: a harness's
 * persistent option ("always") that Baton can express as rules is renamed for what Baton will remember, and
 * stands for the harness's own *once* option of the same polarity (the memory lives in Baton only). Options
 * are read by polarity × lifetime, never by a harness's names. `controller/approval-memory.ts` does the I/O.
 */
import { describeRule, type RuleDecision } from "../event/approval-rule.ts";
import type { PermissionDraft, PermissionOption } from "../event/interaction-types.ts";
import { scopesForChoice, type RuleScope } from "./approval-rules.ts";

/** What a renamed persistent option stands for. */
export interface Remembering {
  readonly decision: RuleDecision;
  readonly scopes: readonly RuleScope[];
  /** The harness's own once option of the same polarity: what the harness is told. */
  readonly onceOptionId: string;
}

export const RULE_VERB: Readonly<Record<RuleDecision, string>> = { allow: "Always allow", deny: "Always deny" };

/** The option that answers this request only, of one polarity. */
export function onceOption(options: readonly PermissionOption[], polarity: PermissionOption["polarity"]): PermissionOption | undefined {
  return options.find((option) => option.polarity === polarity && option.lifetime === "once");
}

/** The rules' scopes as the card and the notices word them. */
export function scopeText(scopes: readonly RuleScope[]): string {
  return scopes.map((scope) => `\`${describeRule(scope)}\``).join(", ");
}

/** "baton rule apr_1" (the receipt's rationale; several rules when a compound command needed several). */
export function ruleRationale(ruleIds: readonly string[]): string {
  return `baton rule ${ruleIds.join(", ")}`;
}

/**
 * The card to show for `draft` in `project`: each persistent option Baton can remember as rules renamed for
 * them, with what each renamed option stands for (keyed by its option id). Nothing certain to remember (no
 * subject, no once option of that polarity, a command the rules cannot read): the harness's option as it is.
 */
export function offerRules(project: string, draft: PermissionDraft): { readonly shown: PermissionDraft; readonly remembering: ReadonlyMap<string, Remembering> } {
  const remembering = new Map<string, Remembering>();
  const options = draft.options.map((option) => {
    if (option.lifetime !== "persistent" || draft.subject === undefined) return option;
    const once = onceOption(draft.options, option.polarity);
    const decision: RuleDecision = option.polarity === "allow" ? "allow" : "deny";
    const scopes = once === undefined ? undefined : scopesForChoice(project, draft.subject, decision);
    if (once === undefined || scopes === undefined) return option;
    remembering.set(option.optionId, { decision, scopes, onceOptionId: once.optionId });
    return { ...option, name: `${RULE_VERB[decision]} in this project (Baton rule): ${scopeText(scopes)}` };
  });
  return { shown: remembering.size === 0 ? draft : { ...draft, options }, remembering };
}
