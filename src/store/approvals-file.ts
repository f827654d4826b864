/**
 * `$BATON_HOME/state/approvals.json` (#20.4): Baton's approval rules, shared by every session and process. Read
 * whole on each question (small, and another Baton may have changed it); changed under `<file>.lock`, replaced
 * atomically (temp, fsync, rename, directory fsync; 0600). A file that cannot be read or does not validate is never
 * used and never overwritten: `read` says what is wrong with it (file, where, what to do) and callers ask.
 */
import fs from "node:fs";
import path from "node:path";
import { approvalsFileSchema, APPROVALS_FILE_VERSION, type ApprovalRule, type ApprovalsFile } from "../event/approval-rule.ts";
import { BatonError, describeError } from "../shared/errors.ts";
import { withFileLock, writeSmallFileAtomic } from "./file-lock.ts";
import { isErrno } from "./files.ts";

/** Where the rules live under `$BATON_HOME`. */
export function approvalsFile(batonHome: string): string {
  return path.join(batonHome, "state", "approvals.json");
}

export type RulesRead = { readonly ok: true; readonly rules: readonly ApprovalRule[] } | { readonly ok: false; readonly problem: string };

const WHAT_TO_DO = "fix or delete the file; until then Baton asks for every approval";

function located(issue: { readonly path: readonly PropertyKey[]; readonly message: string }): string {
  const where = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("").replace(/^\./, "");
  return where === "" ? issue.message : `${where}: ${issue.message}`;
}

export class ApprovalsFileStore {
  constructor(readonly file: string) {}

  /** The rules, or why the file cannot be used (one sentence: file, where, what to do). A missing file has none. */
  async read(): Promise<RulesRead> {
    let text: string;
    try {
      text = await fs.promises.readFile(this.file, "utf8");
    } catch (error) {
      if (isErrno(error, "ENOENT")) return { ok: true, rules: [] };
      return { ok: false, problem: `${this.file} cannot be read (${describeError(error)}); ${WHAT_TO_DO}` };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ok: false, problem: `${this.file} is not valid JSON (${describeError(error)}); ${WHAT_TO_DO}` };
    }
    const parsed = approvalsFileSchema.safeParse(value);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      return { ok: false, problem: `${this.file}: ${first === undefined ? "invalid" : located(first)}; ${WHAT_TO_DO}` };
    }
    const ids = new Set<string>();
    for (const [index, rule] of parsed.data.rules.entries()) {
      if (ids.has(rule.id)) return { ok: false, problem: `${this.file}: rules[${index}].id: ${rule.id} appears twice; ${WHAT_TO_DO}` };
      ids.add(rule.id);
    }
    return { ok: true, rules: parsed.data.rules };
  }

  /** Add rules (an identical rule already there is kept, not doubled); returns the rules that now stand for them. */
  add(rules: readonly ApprovalRule[]): Promise<ApprovalRule[]> {
    return this.change((current) => {
      const out: ApprovalRule[] = [];
      const next = [...current];
      for (const rule of rules) {
        const same = next.find((r) => sameScope(r, rule));
        if (same !== undefined) out.push(same);
        else {
          next.push(rule);
          out.push(rule);
        }
      }
      return { next, result: out };
    });
  }

  /** Remove one rule by its id or a unique prefix of it; throws `rule_not_found` (writing nothing) otherwise. */
  revoke(idOrPrefix: string): Promise<ApprovalRule> {
    return this.change((current) => {
      const hits = current.filter((rule) => rule.id === idOrPrefix || (idOrPrefix.length >= 5 && rule.id.startsWith(idOrPrefix)));
      const exact = hits.find((rule) => rule.id === idOrPrefix);
      const hit = exact ?? (hits.length === 1 ? hits[0] : undefined);
      if (hit === undefined) {
        const why = hits.length > 1 ? `'${idOrPrefix}' matches ${hits.length} rules; give more of the id` : `no approval rule '${idOrPrefix}'`;
        throw new BatonError("rule_not_found", why, { hint: "baton approvals list shows the rules and their ids" });
      }
      return { next: current.filter((rule) => rule !== hit), result: hit };
    });
  }

  private async change<T>(edit: (current: readonly ApprovalRule[]) => { next: ApprovalRule[]; result: T }): Promise<T> {
    return withFileLock(this.file, async () => {
      const read = await this.read();
      if (!read.ok) throw new BatonError("approvals_invalid", read.problem);
      const { next, result } = edit(read.rules);
      // Never write a file `read` would refuse.
      const whole: ApprovalsFile = approvalsFileSchema.parse({ version: APPROVALS_FILE_VERSION, rules: next });
      await writeSmallFileAtomic(this.file, `${JSON.stringify(whole, null, 2)}\n`);
      return result;
    });
  }
}

function sameScope(a: ApprovalRule, b: ApprovalRule): boolean {
  return (
    a.project === b.project &&
    a.toolKind === b.toolKind &&
    a.decision === b.decision &&
    a.pathGlob === b.pathGlob &&
    (a.commandPrefix ?? []).join("\0") === (b.commandPrefix ?? []).join("\0")
  );
}
