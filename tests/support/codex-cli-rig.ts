/**
 * The rig of the CLI end-to-end files that run the real `baton` with the real Codex: one mock Responses API per
 * file, a temp Codex home (HOME, CODEX_HOME, a workdir) and a BATON_HOME inside it, and the env that points
 * `baton` at them with Codex as the default agent. Call it at the top of a test file; it registers the hooks.
 * Not a test file.
 */
import { afterAll, beforeAll, beforeEach } from "bun:test";
import path from "node:path";
import { makeCodexHome, type CodexHome, type CodexHomeOptions } from "./codex-home.ts";
import { startMockResponses, type MockResponses } from "./mock-responses/index.ts";

export interface CodexCliRig {
  readonly mock: MockResponses;
  readonly home: CodexHome;
  /** `baton`'s environment: the Codex home's env, BATON_HOME, BATON_DEFAULT_AGENT=codex. */
  readonly env: Record<string, string>;
  readonly batonHome: string;
}

export interface CodexCliRigOptions {
  /** Codex's own configuration in the temp home. */
  readonly codex?: Omit<CodexHomeOptions, "baseUrl">;
  /** `each`: a reset mock and a new home before every test; `all` (default): one home for the file. */
  readonly fresh?: "each" | "all";
}

/** The session id `baton exec` prints on stderr (`baton: session bs_… turn …`), or "". */
export function execSessionId(stderr: string): string {
  return /baton: session (bs_\w+) turn/.exec(stderr)?.[1] ?? "";
}

export function useCodexCliRig(options: CodexCliRigOptions = {}): CodexCliRig {
  let mock: MockResponses | undefined;
  let home: CodexHome | undefined;
  const made = () => {
    home?.cleanup();
    home = makeCodexHome({ baseUrl: (mock as MockResponses).baseUrl, ...options.codex });
  };
  beforeAll(async () => {
    mock = await startMockResponses();
    if (options.fresh !== "each") made();
  });
  afterAll(async () => {
    await mock?.stop();
    home?.cleanup();
  });
  if (options.fresh === "each") {
    beforeEach(async () => {
      await mock?.reset();
      made();
    });
  }
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the Codex CLI rig has no ${what} outside a test or hook`);
    return value;
  };
  return {
    get mock() {
      return need(mock, "mock");
    },
    get home() {
      return need(home, "home");
    },
    get batonHome() {
      return path.join(need(home, "home").root, "baton");
    },
    get env() {
      const current = need(home, "home");
      return { ...current.env, BATON_HOME: path.join(current.root, "baton"), BATON_DEFAULT_AGENT: "codex" };
    },
  };
}
