/**
 * The built-in `session` ContextProvider: other Baton sessions, found by id prefix or title substring,
 * provided as their newest turn summaries within the budget (the current session is excluded).
 */
import { initialState, listAt, storedProjectionFold, summaryTexts, type ProjectionState } from "../projection/index.ts";
import { displayTitle, loadState, type SessionRef, type SessionStore } from "../store/index.ts";
import { sessionIdPrefix } from "../shared/ids.ts";
import type { ContextCandidate, ContextProvider } from "./providers.ts";

export function createSessionProvider(store: SessionStore, currentSessionId: string): ContextProvider {
  // Asynchronous reads: `search` runs as the user types `@` (PROC-01).
  const candidates = async (): Promise<SessionRef[]> =>
    (await store.listSessionsAsync({ all: true })).sessions.filter((ref) => ref.batonSessionId !== currentSessionId);
  return {
    kind: "session",
    async search(query, { limit }) {
      const wanted = query.trim().toLowerCase();
      const out: ContextCandidate[] = [];
      for (const ref of await candidates()) {
        const title = displayTitle(ref.meta);
        const id = ref.batonSessionId.toLowerCase();
        if (wanted && !id.startsWith(wanted) && !id.slice(3).startsWith(wanted) && !title.toLowerCase().includes(wanted)) continue;
        out.push({ id: ref.batonSessionId, label: title, detail: `${ref.meta.createdAt} · ${ref.meta.cwd}` });
        if (out.length >= limit) break;
      }
      return out;
    },
    async provide(id, { maxChars }) {
      // Only a session id (or a prefix of one) names a session; anything else resolves to nothing.
      const prefix = sessionIdPrefix(id);
      if (prefix === undefined || prefix === "bs_") return undefined;
      const all = await candidates();
      const ref = all.find((candidate) => candidate.batonSessionId === prefix) ?? all.find((candidate) => candidate.batonSessionId.startsWith(prefix));
      if (!ref) return undefined;
      return buildSessionContext(ref, stateOf(store, ref), maxChars);
    },
  };
}

function stateOf(store: SessionStore, ref: SessionRef): ProjectionState {
  const ledger = store.openLedger(ref, { readOnly: true });
  try {
    const loaded = loadState<ProjectionState>(ledger, { ...storedProjectionFold, initial: () => initialState(ref.batonSessionId) });
    return loaded.state;
  } finally {
    void ledger.close();
  }
}

/** Title, id, targets, then the newest turn summaries that fit, with an omitted-count line. */
export function buildSessionContext(ref: SessionRef, state: ProjectionState, maxChars: number): string {
  const summaries = state.turnSummaries;
  const targets = Object.keys(ref.meta.harnessSessions).sort().join(", ") || "none yet";
  const header = `Session ${ref.batonSessionId} "${displayTitle(ref.meta)}" (agents: ${targets}; ${ref.meta.cwd})`;
  const turns: string[] = [];
  let used = header.length;
  let omitted = 0;
  for (let index = summaries.length - 1; index >= 0; index--) {
    const summary = listAt(summaries, index);
    if (!summary) continue;
    const tools = summary.toolCalls.map((tool) => `${tool.title} (${tool.status})`).join("; ");
    const { userText, agentText } = summaryTexts(state, summary);
    const block = [
      `## Turn ${index + 1} · ${summary.harnessTargetId ?? "agent"} (${summary.stopReason ?? "unknown"})`,
      userText ? `user: ${userText}` : "",
      agentText ? `agent: ${agentText}` : "",
      tools ? `tools: ${tools}` : "",
    ]
      .filter(Boolean)
      .join("\n");
    if (used + block.length + 2 > maxChars - 48) {
      omitted = index + 1;
      break;
    }
    turns.unshift(block);
    used += block.length + 2;
  }
  const omittedLine = omitted > 0 ? [`(${omitted} earlier turn${omitted === 1 ? "" : "s"} omitted for length)`] : [];
  return [header, ...omittedLine, ...turns].join("\n\n");
}
