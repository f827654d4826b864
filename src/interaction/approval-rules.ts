/**
 * Approval memory owned by Baton (#20.4), the pure part: the verdict of the rules (by project, tool kind, and a
 * command prefix or a path glob) for one request, and the rules a persistent choice on a card becomes.
 *
 * A compound shell command matches per segment (`&&`, `||`, `;`, `|`): every segment must match an allow rule;
 * any segment matching a deny rule denies (deny beats allow). `sh -c '<script>'` (also bash/zsh/dash, `-lc`, by
 * full path) is judged by its script. Anything this cannot read for sure — command substitution, backticks,
 * variables, redirections, subshells, a background `&`, an unterminated quote — is not matched and asks.
 */
import path from "node:path";
import type { ApprovalRule, RuleDecision, RuleToolKind } from "../event/approval-rule.ts";
import type { PermissionSubject } from "../event/interaction-types.ts";

export interface ApprovalRequest {
  readonly project: string;
  readonly toolKind: RuleToolKind;
  readonly command?: string;
  /** Project-relative paths the edit touches. */
  readonly paths?: readonly string[];
}

export type Verdict = { readonly kind: "ask" } | { readonly kind: RuleDecision; readonly ruleIds: readonly string[] };

/** What a new rule covers (the rest — id, project, decision, time — is the caller's). */
export type RuleScope = { readonly toolKind: "command"; readonly commandPrefix: readonly string[] } | { readonly toolKind: "edit"; readonly pathGlob: string };

type MatchableRule = Pick<ApprovalRule, "id" | "project" | "toolKind" | "commandPrefix" | "pathGlob" | "decision">;

const ASK: Verdict = { kind: "ask" };
/** Inside double quotes a backslash escapes only these (POSIX); before anything else it stays a backslash. */
const DOUBLE_QUOTE_ESCAPES = new Set(["\\", '"', "$", "`"]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash"]);
const SCRIPT_FLAGS = new Set(["-c", "-lc", "-cl"]);
const MAX_NESTING = 3;

/** Shell words of each segment of a command line; undefined when it cannot be read for sure. */
export function commandSegments(line: string): string[][] | undefined {
  const segments: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endSegment = (): boolean => {
    endWord();
    if (words.length === 0) return false;
    segments.push(words);
    words = [];
    return true;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "$" || c === "`") return undefined;
      else if (c === "\\" && i + 1 < line.length && DOUBLE_QUOTE_ESCAPES.has(line[i + 1]!)) word += line[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
      continue;
    }
    if (c === "\\") {
      // A trailing backslash, or one before a newline (a line continuation), cannot be read for sure.
      if (i + 1 >= line.length || line[i + 1] === "\n") return undefined;
      word += line[++i];
      inWord = true;
      continue;
    }
    if ("$`><()\n\r#{}".includes(c)) return undefined;
    if (c === "&" || c === "|" || c === ";") {
      const double = (c === "&" || c === "|") && line[i + 1] === c;
      if (c === "&" && !double) return undefined; // a background job, or `|&`
      if (double) i++;
      if (!endSegment()) return undefined; // an empty segment: `&& foo`, `a ;; b`
      continue;
    }
    if (c === " " || c === "\t") {
      endWord();
      continue;
    }
    word += c;
    inWord = true;
  }
  if (quote !== undefined) return undefined;
  endWord();
  if (words.length > 0) segments.push(words);
  else if (segments.length > 0) return undefined; // a trailing operator
  return segments.length === 0 ? undefined : segments;
}

/** The segments a command line runs, with `bash -lc '<script>'` wrappers opened; undefined when unreadable. */
export function commandUnits(line: string, depth = 0): string[][] | undefined {
  const segments = commandSegments(line);
  if (segments === undefined) return undefined;
  const out: string[][] = [];
  for (const words of segments) {
    const [shell, flag, script, ...rest] = words;
    if (shell !== undefined && SHELLS.has(path.posix.basename(shell)) && flag !== undefined && SCRIPT_FLAGS.has(flag) && script !== undefined && rest.length === 0) {
      if (depth >= MAX_NESTING) return undefined;
      const inner = commandUnits(script, depth + 1);
      if (inner === undefined) return undefined;
      out.push(...inner);
    } else if (shell !== undefined && SHELLS.has(path.posix.basename(shell))) {
      return undefined; // a shell run any other way (a script file, stdin, other flags) is not read
    } else out.push(words);
  }
  return out;
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && prefix.length <= words.length && prefix.every((part, i) => words[i] === part);
}

/** `*` within a path segment, `**` across segments, `?` one character; nothing else is special. */
export function globMatches(glob: string, target: string): boolean {
  let pattern = "^";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      pattern += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") pattern += "[^/]*";
    else if (c === "?") pattern += "[^/]";
    else pattern += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`${pattern}$`).test(target);
}

/** A path as the rules see it: relative to the project, normalized; undefined when it leaves the project. */
export function projectPath(project: string, target: string): string | undefined {
  const relative = path.isAbsolute(target) ? path.relative(project, target) : path.normalize(target);
  if (relative === "" || relative === "." || relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join("/");
}

/** What the rules say about one request: deny beats allow; every segment (or path) must be allowed; else ask. */
export function judge(rules: readonly MatchableRule[], request: ApprovalRequest): Verdict {
  const mine = rules.filter((rule) => rule.project === request.project && rule.toolKind === request.toolKind);
  if (mine.length === 0) return ASK;
  const units: ((rule: MatchableRule) => boolean)[] = [];
  if (request.toolKind === "command") {
    const segments = request.command === undefined ? undefined : commandUnits(request.command);
    if (segments === undefined) return ASK;
    for (const words of segments) units.push((rule) => rule.commandPrefix !== undefined && startsWith(words, rule.commandPrefix));
  } else {
    const paths = request.paths ?? [];
    if (paths.length === 0 || paths.some((p) => p.startsWith("/") || p.split("/").includes(".."))) return ASK;
    for (const p of paths) units.push((rule) => rule.pathGlob !== undefined && globMatches(rule.pathGlob, p));
  }
  const denied = mine.filter((rule) => rule.decision === "deny" && units.some((matches) => matches(rule)));
  if (denied.length > 0) return { kind: "deny", ruleIds: denied.map((rule) => rule.id) };
  const used = new Set<string>();
  for (const matches of units) {
    const allow = mine.find((rule) => rule.decision === "allow" && matches(rule));
    if (allow === undefined) return ASK;
    used.add(allow.id);
  }
  return { kind: "allow", ruleIds: [...used] };
}

/** The request a permission's subject stands for in a project; undefined when it cannot be judged. */
export function requestOf(project: string, subject: PermissionSubject): ApprovalRequest | undefined {
  if (subject.kind === "command") return { project, toolKind: "command", command: subject.command };
  const paths: string[] = [];
  for (const p of subject.paths) {
    const relative = projectPath(project, p);
    if (relative === undefined) return undefined;
    paths.push(relative);
  }
  return paths.length === 0 ? undefined : { project, toolKind: "edit", paths };
}

/**
 * The rules a persistent choice becomes ("always allow `npm test` in this project"): one per command segment
 * (each segment's words), or one per edited path (the path itself). A deny covers a single segment only: denying
 * `a && b` for ever says nothing certain about `a` alone. Undefined when nothing certain can be remembered.
 */
export function scopesForChoice(project: string, subject: PermissionSubject, decision: RuleDecision): RuleScope[] | undefined {
  const request = requestOf(project, subject);
  if (request === undefined) return undefined;
  const scopes: RuleScope[] = [];
  if (request.toolKind === "command") {
    const units = request.command === undefined ? undefined : commandUnits(request.command);
    if (units === undefined || (decision === "deny" && units.length !== 1)) return undefined;
    for (const words of units) {
      if (!scopes.some((s) => s.toolKind === "command" && s.commandPrefix.join("\0") === words.join("\0"))) scopes.push({ toolKind: "command", commandPrefix: words });
    }
  } else {
    const paths = request.paths ?? [];
    // A path with a glob character would mean more than itself as a glob.
    if (paths.some((p) => /[*?]/.test(p)) || (decision === "deny" && paths.length !== 1)) return undefined;
    for (const p of new Set(paths)) scopes.push({ toolKind: "edit", pathGlob: p });
  }
  return scopes;
}
