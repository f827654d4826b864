/**
 * `baton approvals [list] [--cwd DIR] [--all] [--json]` and `baton approvals revoke <id>` (#20.4): Baton's approval
 * rules ($BATON_HOME/state/approvals.json) — what an agent may do in a project without asking, and how to take it back.
 * An unusable rules file is reported (file, problem, what to do) with exit 1; it is never rewritten.
 */
import path from "node:path";
import { describeRule, type ApprovalRule } from "../../event/approval-rule.ts";
import { ApprovalsFileStore, approvalsFile, resolveCwd } from "../../store/index.ts";
import { terminalJson } from "../../shared/terminal-text.ts";
import { batonHome } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { EXIT, parse, reportError, UsageError } from "./shared.ts";

const OPTIONS = { cwd: { type: "string" }, all: { type: "boolean" }, json: { type: "boolean" } } as const;

/** One line of `baton approvals` and `/approvals`: `apr_…  allow  npm test  · codex, 2026-12-01 18:20`. */
export function ruleLine(rule: ApprovalRule, withProject: boolean): string {
  const made = [rule.createdIn?.targetId, rule.createdAt.slice(0, 16).replace("T", " ")].filter((part) => part !== undefined && part !== "").join(", ");
  return `${rule.id}  ${rule.decision.padEnd(5)}  ${describeRule(rule)}${made === "" ? "" : `  · ${made}`}${withProject ? `  in ${rule.project}` : ""}`;
}

export async function runApprovals(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    const [verb = "list", ...rest] = positionals;
    const store = new ApprovalsFileStore(approvalsFile(batonHome(io.env, undefined, io.cwd)));
    if (verb === "revoke") {
      if (rest.length !== 1) throw new UsageError("usage: baton approvals revoke <rule id>");
      const revoked = await store.revoke(rest[0]!);
      io.stdout.write(`Revoked ${revoked.id}: ${revoked.decision} ${describeRule(revoked)} in ${revoked.project}. The next such request asks again.\n`);
      return EXIT.ok;
    }
    if (verb !== "list") throw new UsageError(`unknown approvals command '${verb}' (list, revoke <id>)`);
    if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
    const read = await store.read();
    if (!read.ok) {
      io.stderr.write(`baton: ${read.problem}\n`);
      return EXIT.failed;
    }
    const project = resolveCwd(path.resolve(io.cwd, values.cwd ?? "."));
    const rules = values.all ? read.rules : read.rules.filter((rule) => rule.project === project);
    if (values.json) {
      io.stdout.write(`${terminalJson(rules, 2)}\n`);
      return EXIT.ok;
    }
    if (rules.length === 0) {
      io.stdout.write(values.all ? "No approval rules yet.\n" : `No approval rules for ${project} yet. Pick "Always allow" on an approval card to make one.\n`);
      return EXIT.ok;
    }
    if (!values.all) io.stdout.write(`Approval rules for ${project}:\n`);
    for (const rule of rules) io.stdout.write(`${ruleLine(rule, values.all === true)}\n`);
    io.stdout.write("\nRevoke one with: baton approvals revoke <id>  (or /approvals in the terminal UI)\n");
    return EXIT.ok;
  } catch (error) {
    return reportError(io, error);
  }
}
