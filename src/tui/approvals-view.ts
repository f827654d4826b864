/**
 * `/approvals` (#20.4): Baton's approval rules for this project in a picker; Enter revokes the chosen one
 * (`/approvals revoke <id>` does it directly). Reading and writing the rules file is the controller's (async): the
 * key handler only starts it and fills the picker when it answers.
 */
import type { PickerItem, Tone } from "chat-tui";
import { describeRule, type ApprovalMemory, type ApprovalRule } from "../controller/approval-memory.ts";
import { describeError } from "../shared/errors.ts";
import type { PickerFill } from "./picker-slot.ts";
import { shortTime } from "./session-rows.ts";

/** What `/approvals` needs of the host (a port: the host is not imported here). */
export interface ApprovalsHost {
  readonly controller: { readonly approvals: Pick<ApprovalMemory, "list" | "revoke" | "project"> };
  toast(text: string, tone?: Tone): void;
  openPicker(title: string, select: (itemId: string) => void): PickerFill;
}

/** `allow  npm test`, detail `apr_… · made with codex · 2026-12-01 18:20`. */
export function rulePickerItem(rule: ApprovalRule): PickerItem {
  const detail = [rule.id, rule.createdIn === undefined ? undefined : `made with ${rule.createdIn.targetId}`, shortTime(rule.createdAt)].filter((part) => part !== undefined).join(" · ");
  return { id: rule.id, label: `${rule.decision === "allow" ? "always allow" : "always deny"}  ${describeRule(rule)}`, detail };
}

export function runApprovalsCommand(host: ApprovalsHost, args: string): void {
  const approvals = host.controller.approvals;
  const [verb, id, ...rest] = args.trim().split(/\s+/).filter((word) => word !== "");
  if (verb === "revoke" && id !== undefined && rest.length === 0) {
    revoke(host, id);
    return;
  }
  if (verb !== undefined) {
    host.toast("Usage: /approvals (pick a rule to revoke it) or /approvals revoke <id>", "warning");
    return;
  }
  const fill = host.openPicker("Approval rules for this project — Enter revokes", (ruleId) => revoke(host, ruleId));
  approvals.list().then(
    (read) => {
      if (!read.ok) {
        fill(null);
        host.toast(read.problem, "error");
        return;
      }
      const mine = read.rules.filter((rule) => rule.project === approvals.project);
      if (mine.length === 0) {
        fill(null);
        host.toast('No approval rules for this project yet: pick "Always allow" on an approval card to make one', "info");
        return;
      }
      fill(mine.map(rulePickerItem));
    },
    (error: unknown) => {
      fill(null);
      host.toast(describeError(error), "error");
    },
  );
}

function revoke(host: ApprovalsHost, id: string): void {
  host.controller.approvals.revoke(id).then(
    (rule) => host.toast(`Revoked ${rule.id} (${rule.decision} ${describeRule(rule)}): the next such request asks again`, "info"),
    (error: unknown) => host.toast(describeError(error), "error"),
  );
}
