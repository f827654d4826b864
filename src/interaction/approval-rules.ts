/**
 * Approval memory owned by Baton (#20.4), the pure part: rules keyed by project, tool kind and a command prefix or a
 * path glob, and the verdict for one request. A compound shell command matches per segment (`&&`, `||`, `;`, `|`):
 * every segment must match an allow rule; any segment matching a deny rule denies (deny beats allow). Anything this
 * cannot read for sure — command substitution, backticks, redirections, an unterminated quote — is not matched and
 * asks. Not wired yet: the rules file ($BATON_HOME/state/approvals.json), the Controller's answer with its
 * `approval_review_update` receipt ("baton rule <id>") and `/approvals` are still to come.
 */

export type RuleDecision = "allow" | "deny";
export type RuleToolKind = "command" | "edit";

export interface ApprovalRule {
  readonly id: string;
  /** The project directory (a session's meta.cwd) the rule applies to. */
  readonly project: string;
  readonly toolKind: RuleToolKind;
  /** `command`: the words a segment starts with (`["npm", "test"]`). */
  readonly commandPrefix?: readonly string[];
  /** `edit`: a glob over the path relative to the project (`src/**`, `*.md`). */
  readonly pathGlob?: string;
  readonly decision: RuleDecision;
}

export interface ApprovalRequest {
  readonly project: string;
  readonly toolKind: RuleToolKind;
  readonly command?: string;
  /** Project-relative paths the edit touches. */
  readonly paths?: readonly string[];
}

export type Verdict = { readonly kind: "ask" } | { readonly kind: RuleDecision; readonly ruleIds: readonly string[] };

const ASK: Verdict = { kind: "ask" };

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
      else if (c === "\\" && i + 1 < line.length) word += line[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
      continue;
    }
    if (c === "\\") {
      if (i + 1 >= line.length) return undefined;
      word += line[++i];
      inWord = true;
      continue;
    }
    if (c === "$" || c === "`" || c === ">" || c === "<" || c === "(" || c === ")" || c === "\n" || c === "#") return undefined;
    if (c === "&" || c === "|" || c === ";") {
      const double = (c === "&" || c === "|") && line[i + 1] === c;
      if (c === "&" && !double) return undefined; // a background job
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

/** What the rules say about one request: deny beats allow; every segment (or path) must be allowed; else ask. */
export function judge(rules: readonly ApprovalRule[], request: ApprovalRequest): Verdict {
  const mine = rules.filter((rule) => rule.project === request.project && rule.toolKind === request.toolKind);
  if (mine.length === 0) return ASK;
  const units: ((rule: ApprovalRule) => boolean)[] = [];
  if (request.toolKind === "command") {
    const segments = request.command === undefined ? undefined : commandSegments(request.command);
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
