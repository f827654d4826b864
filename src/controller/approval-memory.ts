/**
 * Approval memory owned by Baton (#20.4): every harness's permission request passes here on its way to a card.
 *
 * - A request whose subject (command, edited paths) the rules of this project decide is answered by the
 *   Controller: no card opens; an `approval_review_update` (source baton, `rationale: "baton rule <id>"`) is
 *   appended and made durable first, so the answer is a visible, attributed line, never a silent approval.
 * - Otherwise the card opens. A persistent option (the harness's "always") that Baton can express as rules is
 *   renamed for what Baton will remember; choosing it writes the rules to `$BATON_HOME/state/approvals.json` and
 *   answers the harness with its own *once* option, so the memory lives in Baton only: it works across agents,
 *   `/approvals` lists it, and a revoked rule asks again (a harness that had remembered would not).
 * - A rules file that cannot be used fails closed: the card opens (one warning notice per problem).
 * Nothing here knows a harness: options are read by polarity × lifetime, the subject by its kind.
 */
import { BATON_SOURCE, type EventDraft } from "../event/envelope.ts";
import type { ApprovalRule, RuleDecision } from "../event/approval-rule.ts";
import type { InteractionDraft, InteractionResolution, PermissionDraft, PermissionOption } from "../event/interaction-types.ts";
import type { InteractionContext } from "../harness/contract.ts";
import { judge, requestOf } from "../interaction/approval-rules.ts";
import { offerRules, onceOption, RULE_VERB, ruleRationale, scopeText, type Remembering } from "../interaction/permission-options.ts";
import type { RulesRead } from "../store/approvals-file.ts";
import type { Clock } from "../shared/clock.ts";
import { describeError } from "../shared/errors.ts";
import type { IdSource, TargetId, TurnId } from "../shared/ids.ts";
import type { Logger } from "../shared/log.ts";

export { describeRule, type ApprovalRule } from "../event/approval-rule.ts";
export type { RulesRead } from "../store/approvals-file.ts";

/** The rules file (the app wires `ApprovalsFileStore`). */
export interface ApprovalRulesPort {
  readonly file: string;
  read(): Promise<RulesRead>;
  add(rules: readonly ApprovalRule[]): Promise<ApprovalRule[]>;
  revoke(idOrPrefix: string): Promise<ApprovalRule>;
}

type Target = { readonly id: TargetId; readonly harness: string };
type Open = (target: Target, draft: InteractionDraft, context: InteractionContext) => Promise<InteractionResolution>;

export interface ApprovalMemoryDeps {
  readonly rules: ApprovalRulesPort | undefined;
  /** The session's directory: the project rules are keyed by. */
  readonly project: string;
  readonly sessionId: string;
  readonly ids: IdSource;
  readonly clock: Clock;
  readonly log: Logger;
  readonly append: (draft: EventDraft) => unknown;
  readonly sync: () => Promise<void>;
  /** Open the card and wait for the user (the broker). */
  readonly open: Open;
}

interface Coordinates {
  readonly source: typeof BATON_SOURCE;
  readonly harness: string;
  readonly harnessTargetId: string;
  readonly turnId: TurnId;
  readonly harnessSessionId?: string;
}

export class ApprovalMemory {
  private readonly warned = new Set<string>();

  constructor(private readonly deps: ApprovalMemoryDeps) {}

  /** The project this session's rules are keyed by (its directory). */
  get project(): string {
    return this.deps.project;
  }

  /** The rules file's path, for surfaces that name it. */
  get file(): string | undefined {
    return this.deps.rules?.file;
  }

  /** Every rule in the file (all projects), or why the file cannot be used. */
  list(): Promise<RulesRead> {
    return this.deps.rules?.read() ?? Promise.resolve({ ok: true, rules: [] });
  }

  /** Remove a rule by id (or unique prefix); throws `rule_not_found` / `approvals_invalid`. */
  revoke(idOrPrefix: string): Promise<ApprovalRule> {
    if (this.deps.rules === undefined) return Promise.reject(new Error("approval rules are not available here"));
    return this.deps.rules.revoke(idOrPrefix);
  }

  /** The interaction path of every harness: decide by rule, else open the card (and remember a persistent choice). */
  async request(target: Target, draft: InteractionDraft, context: InteractionContext): Promise<InteractionResolution> {
    const port = this.deps.rules;
    if (port === undefined || draft.type !== "permission" || draft.subject === undefined) return this.deps.open(target, draft, context);
    const request = requestOf(this.deps.project, draft.subject);
    const read = await port.read();
    if (!read.ok) this.warnOnce(target, context, "Approval rules not used", read.problem);
    else if (request !== undefined) {
      const verdict = judge(read.rules, request);
      if (verdict.kind !== "ask") {
        const option = onceOption(draft.options, verdict.kind === "allow" ? "allow" : "reject");
        if (option !== undefined) return this.answerByRule(target, draft, context, verdict.kind, verdict.ruleIds, option, request.toolKind);
      }
    }
    const { shown, remembering } = offerRules(this.deps.project, draft);
    const resolution = await this.deps.open(target, shown, context);
    const chosen = resolution.outcome === "selected" ? remembering.get(resolution.optionId) : undefined;
    if (chosen === undefined) return resolution;
    await this.remember(target, context, chosen);
    return { ...resolution, optionId: chosen.onceOptionId };
  }

  private async answerByRule(
    target: Target,
    draft: PermissionDraft,
    context: InteractionContext,
    decision: RuleDecision,
    ruleIds: readonly string[],
    option: PermissionOption,
    toolKind: string,
  ): Promise<InteractionResolution> {
    try {
      this.deps.append({
        kind: "approval_review_update",
        payload: {
          reviewId: this.deps.ids.mint("review"),
          ...(draft.toolCallId === undefined ? {} : { toolCallId: draft.toolCallId }),
          decision: decision === "allow" ? "approved" : "denied",
          rationale: ruleRationale(ruleIds),
          actionType: toolKind,
        },
        ...this.coordinates(target, context),
      });
      // The receipt is on disk before the harness acts on the answer.
      await this.deps.sync();
    } catch (error) {
      // An answer that could not be recorded is not given: the harness is told to cancel (as the broker does).
      this.deps.log.log("warn", "could not record a baton rule's answer; cancelling the request", { error: describeError(error) });
      return { outcome: "cancelled", reason: "turn" };
    }
    return { outcome: "selected", optionId: option.optionId, answeredBy: ruleRationale(ruleIds) };
  }

  private async remember(target: Target, context: InteractionContext, chosen: Remembering): Promise<void> {
    const port = this.deps.rules!;
    const createdAt = new Date(this.deps.clock.now()).toISOString();
    const rules: ApprovalRule[] = chosen.scopes.map((scope) => ({
      id: this.deps.ids.mint("approvalRule"),
      project: this.deps.project,
      toolKind: scope.toolKind,
      ...(scope.toolKind === "command" ? { commandPrefix: [...scope.commandPrefix] } : { pathGlob: scope.pathGlob }),
      decision: chosen.decision,
      createdAt,
      createdIn: { sessionId: this.deps.sessionId, targetId: target.id },
    }));
    try {
      const saved = await port.add(rules);
      const ids = saved.map((rule) => rule.id);
      this.notice(target, context, "info", `${ruleRationale(ids)} saved: ${RULE_VERB[chosen.decision].toLowerCase()} ${scopeText(chosen.scopes)} in this project`,
        `revoke with /approvals or \`baton approvals revoke ${ids[0] ?? ""}\``);
    } catch (error) {
      this.notice(target, context, "warning", "The choice was not remembered (allowed this once)", describeError(error));
    }
  }

  private warnOnce(target: Target, context: InteractionContext, title: string, detail: string): void {
    if (this.warned.has(detail)) return;
    this.warned.add(detail);
    this.notice(target, context, "warning", title, detail);
  }

  private notice(target: Target, context: InteractionContext, level: "info" | "warning", title: string, detail: string): void {
    try {
      this.deps.append({ kind: "_baton_notice", payload: { level, title, detail }, ...this.coordinates(target, context) });
    } catch (error) {
      this.deps.log.log("warn", `could not record the notice '${title}'`, { error: describeError(error) });
    }
  }

  private coordinates(target: Target, context: InteractionContext): Coordinates {
    return {
      source: BATON_SOURCE,
      harness: target.harness,
      harnessTargetId: target.id,
      turnId: context.turnId,
      ...(context.harnessSessionId === undefined ? {} : { harnessSessionId: context.harnessSessionId }),
    };
  }
}
