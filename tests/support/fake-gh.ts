/**
 * A fake `gh` for the gh-review tests, put first on PATH: it answers `auth status`, `pr view` and
 * `api graphql` from files in its directory that a test rewrites (`pr.json`, `threads.json`; `logged-out`,
 * `no-pr` and `sleep` switch behaviours on), and appends each call's "<argv1> <argv2>" (plus the GraphQL
 * query's first word) to `argv.log`, so a test can show that no write subcommand was ever called.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./plugin-rig.ts";

export interface FakeGh {
  readonly bin: string;
  readonly dir: string;
  /** PATH with the fake first. */
  readonly path: string;
  /** Replace the review threads `api graphql` answers with. */
  threads(...nodes: readonly ReviewThread[]): void;
  /** The calls so far, one "<argv1> <argv2>[ query]" line each. */
  calls(): string[];
}

export interface ReviewThread {
  readonly id: string;
  readonly isResolved: boolean;
  readonly isOutdated: boolean;
  readonly path: string;
  readonly line: number;
  readonly comments: { readonly nodes: readonly { author: { login: string }; body: string; createdAt: string; url: string }[] };
}

export function thread(id: string, file: string, line: number, author: string, body: string, resolved = false): ReviewThread {
  return {
    id,
    isResolved: resolved,
    isOutdated: false,
    path: file,
    line,
    comments: { nodes: [{ author: { login: author }, body, createdAt: "2026-11-30T10:00:00Z", url: `https://github.com/acme/app/pull/12#${id}` }] },
  };
}

/** A new fake gh in a temp directory (the caller removes `dir`). */
export function fakeGh(): FakeGh {
  const dir = tempDir("baton-fake-gh-");
  const bin = path.join(dir, "bin");
  mkdirSync(bin);
  const script = `#!/bin/sh
d=${JSON.stringify(dir)}
q=""
for a in "$@"; do case "$a" in query=*) q=" $(printf '%s' "$a" | sed -n '1s/^query=\\([a-z]*\\).*/\\1/p')";; esac; done
printf '%s %s%s\\n' "$1" "$2" "$q" >> "$d/argv.log"
if [ -f "$d/sleep" ]; then echo $$ > "$d/gh.pid"; sleep 300; fi
case "$1 $2" in
  "auth status") if [ -f "$d/logged-out" ]; then echo "You are not logged into any GitHub hosts. To log in, run: gh auth login" >&2; exit 1; fi; echo "Logged in to github.com" >&2 ;;
  "pr view") if [ -f "$d/no-pr" ]; then echo 'no pull requests found for branch "topic"' >&2; exit 1; fi; cat "$d/pr.json" ;;
  "api graphql") cat "$d/threads.json" ;;
  *) echo "fake gh: unexpected $*" >&2; exit 99 ;;
esac
`;
  writeFileSync(path.join(bin, "gh"), script);
  chmodSync(path.join(bin, "gh"), 0o755);
  writeFileSync(path.join(dir, "pr.json"), JSON.stringify({ number: 12, url: "https://github.com/acme/app/pull/12", title: "Faster parser", headRefName: "topic", state: "OPEN" }));
  const gh: FakeGh = {
    bin,
    dir,
    path: `${bin}:${process.env["PATH"] ?? "/usr/bin:/bin"}`,
    threads: (...nodes) => writeFileSync(path.join(dir, "threads.json"), JSON.stringify({ data: { repository: { pullRequest: { reviewThreads: { nodes } } } } })),
    calls: () => {
      try {
        return readFileSync(path.join(dir, "argv.log"), "utf8").trim().split("\n").filter((l) => l !== "");
      } catch {
        return [];
      }
    },
  };
  gh.threads();
  return gh;
}
