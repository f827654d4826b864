/**
 * The only way gh-review runs `gh`: three read-only calls, checked against an allowlist before anything
 * starts (`auth status`, `pr view`, `api graphql` with a query — never a mutation, never another
 * subcommand), each in a process group of its own with a deadline, so a `gh` that hangs is killed with
 * its children. A missing `gh` or a missing login is an answer, not an exception.
 */
import type { ExecFn } from "baton-plugin";

export const THREADS_QUERY = `query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100) {
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          originalLine
          comments(first: 50) { nodes { author { login } body createdAt url } }
        }
      }
    }
  }
}`;

/** True only for the read-only calls this plugin makes. */
export function isReadOnly(args: readonly string[]): boolean {
  const [a, b] = args;
  if (a === "auth" && b === "status") return true;
  if (a === "pr" && b === "view") return !args.some((x) => /^--?(web|w)$/.test(x));
  if (a === "api" && b === "graphql") {
    const query = args.find((x, i) => args[i - 1] === "-f" && x.startsWith("query="));
    if (query === undefined || !/^query=\s*query\b/.test(query)) return false;
    // `gh api` turns -f/-F into a POST body; only `query` and typed variables are passed, never --method.
    return !args.some((x) => x === "-X" || x === "--method" || x.startsWith("--method=") || x === "--input");
  }
  return false;
}

export type GhAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: "missing" | "login" | "no-pr" | "failed" | "timeout"; readonly detail: string };

export interface PullRequest {
  readonly number: number;
  readonly url: string;
  readonly title: string;
  readonly headRefName: string;
  readonly state: string;
  readonly owner: string;
  readonly name: string;
}

export interface ThreadComment {
  readonly author: string;
  readonly body: string;
  readonly createdAt: string;
  readonly url: string;
}

export interface ReviewThread {
  readonly id: string;
  readonly isResolved: boolean;
  readonly isOutdated: boolean;
  readonly path: string;
  readonly line: number | null;
  readonly comments: readonly ThreadComment[];
}

export interface Gh {
  authStatus(signal?: AbortSignal): Promise<GhAnswer<true>>;
  currentPr(signal?: AbortSignal): Promise<GhAnswer<PullRequest>>;
  threads(pr: PullRequest, signal?: AbortSignal): Promise<GhAnswer<ReviewThread[]>>;
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.slice(0, 200) ?? "";
}

export function createGh(exec: ExecFn, cwd: string, timeoutMs: number): Gh {
  const run = async (args: readonly string[], signal?: AbortSignal): Promise<GhAnswer<string>> => {
    if (!isReadOnly(args)) throw new Error(`gh-review refuses to run gh ${args.slice(0, 2).join(" ")}: it only reads`);
    let result;
    try {
      result = await exec("gh", args, { cwd, timeoutMs, maxOutputBytes: 4 * 1024 * 1024, processGroup: true, env: { GH_PROMPT_DISABLED: "1", GH_NO_UPDATE_NOTIFIER: "1", NO_COLOR: "1" }, ...(signal === undefined ? {} : { signal }) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, problem: /ENOENT|not found|could not start/i.test(message) ? "missing" : "failed", detail: message };
    }
    if (result.timedOut) return { ok: false, problem: "timeout", detail: `gh ${args.slice(0, 2).join(" ")} did not answer within ${Math.round(timeoutMs / 1000)} s and was stopped` };
    if (result.code !== 0) return { ok: false, problem: "failed", detail: firstLine(result.stderr) || `gh ${args.slice(0, 2).join(" ")} exited with ${result.code ?? result.signal}` };
    return { ok: true, value: result.stdout };
  };
  return {
    async authStatus(signal) {
      const answer = await run(["auth", "status"], signal);
      if (answer.ok) return { ok: true, value: true };
      return answer.problem === "failed" ? { ok: false, problem: "login", detail: answer.detail } : answer;
    },
    async currentPr(signal) {
      const answer = await run(["pr", "view", "--json", "number,url,title,headRefName,state"], signal);
      if (!answer.ok) return /no pull requests? found|no open pull request/i.test(answer.detail) ? { ok: false, problem: "no-pr", detail: answer.detail } : answer;
      try {
        const pr = JSON.parse(answer.value) as Omit<PullRequest, "owner" | "name">;
        const match = /github\.com\/([^/]+)\/([^/]+)\/pull\/\d+/.exec(pr.url) ?? /^https?:\/\/[^/]+\/([^/]+)\/([^/]+)\/pull\/\d+/.exec(pr.url);
        if (match === null || typeof pr.number !== "number") return { ok: false, problem: "failed", detail: `gh pr view answered without a pull request URL` };
        return { ok: true, value: { ...pr, owner: match[1] as string, name: match[2] as string } };
      } catch {
        return { ok: false, problem: "failed", detail: "gh pr view answered with something that is not JSON" };
      }
    },
    async threads(pr, signal) {
      const answer = await run(["api", "graphql", "-f", `query=${THREADS_QUERY}`, "-F", `owner=${pr.owner}`, "-F", `name=${pr.name}`, "-F", `number=${pr.number}`], signal);
      if (!answer.ok) return answer;
      try {
        const data = JSON.parse(answer.value) as { data?: { repository?: { pullRequest?: { reviewThreads?: { nodes?: unknown[] } } } } };
        const nodes = (data.data?.repository?.pullRequest?.reviewThreads?.nodes ?? []) as {
          id: string;
          isResolved: boolean;
          isOutdated?: boolean;
          path: string;
          line: number | null;
          originalLine?: number | null;
          comments?: { nodes?: { author?: { login?: string } | null; body?: string; createdAt?: string; url?: string }[] };
        }[];
        return {
          ok: true,
          value: nodes.map((n) => ({
            id: n.id,
            isResolved: n.isResolved === true,
            isOutdated: n.isOutdated === true,
            path: n.path,
            line: n.line ?? n.originalLine ?? null,
            comments: (n.comments?.nodes ?? []).map((c) => ({ author: c.author?.login ?? "ghost", body: c.body ?? "", createdAt: c.createdAt ?? "", url: c.url ?? "" })),
          })),
        };
      } catch {
        return { ok: false, problem: "failed", detail: "gh api graphql answered with something that is not JSON" };
      }
    },
  };
}
