import { useEffect, useMemo, useRef, useState } from "react";
import type { ChatCommand, MentionGroup, MentionQuery } from "../types.ts";
import {
  interleaveGroups,
  matchCommands,
  MAX_CANDIDATES,
  mentionInsert,
  mentionQuery,
  slashQuery,
  type GroupedCandidate,
} from "./completion.ts";

export interface CompletionCandidate {
  readonly key: string;
  readonly label: string;
  readonly detail?: string;
  readonly group?: string;
  /** Replacement for the typed token (`/name` or `@id`). */
  readonly insert: string;
}

export interface Completion {
  readonly mode: "slash" | "mention";
  /** The typed token being completed, including its `/` or `@`. */
  readonly token: string;
  readonly candidates: readonly CompletionCandidate[];
  readonly loading: boolean;
}

function fromCommands(commands: readonly ChatCommand[]): CompletionCandidate[] {
  return commands.slice(0, MAX_CANDIDATES).map((c) => ({
    key: c.name,
    label: `/${c.name}`,
    detail: c.description,
    insert: `/${c.name}`,
  }));
}

function fromMentions(picked: readonly GroupedCandidate[]): CompletionCandidate[] {
  return picked.map(({ group, item }) => ({
    key: `${group}\u0000${item.id}`,
    label: item.label,
    ...(item.detail === undefined ? {} : { detail: item.detail }),
    group,
    insert: mentionInsert(item),
  }));
}

/**
 * Completion for the text before the cursor: registered commands for `/` at the start, and grouped mention
 * candidates for `@` after whitespace. Mention lookups are asynchronous, cached per query, and answers to
 * stale queries are dropped; a failing lookup shows nothing.
 */
export function useCompletion(
  before: string,
  commands: readonly ChatCommand[],
  onMentionQuery: MentionQuery | undefined,
): Completion | null {
  const slash = slashQuery(before);
  const mention = slash === null && onMentionQuery !== undefined ? mentionQuery(before) : null;
  const cache = useRef(new Map<string, readonly MentionGroup[]>());
  const latest = useRef<string | null>(null);
  const [answer, setAnswer] = useState<{ readonly query: string; readonly groups: readonly MentionGroup[] } | null>(
    null,
  );

  useEffect(() => {
    latest.current = mention;
    if (mention === null || onMentionQuery === undefined) return;
    const cached = cache.current.get(mention);
    if (cached !== undefined) {
      setAnswer({ query: mention, groups: cached });
      return;
    }
    let promise: Promise<readonly MentionGroup[]>;
    try {
      promise = onMentionQuery(mention);
    } catch {
      return;
    }
    promise.then(
      (groups) => {
        cache.current.set(mention, groups);
        if (latest.current === mention) setAnswer({ query: mention, groups });
      },
      () => {
        // Lookup failures are swallowed: no candidates.
      },
    );
  }, [mention, onMentionQuery]);

  return useMemo<Completion | null>(() => {
    if (slash !== null) {
      const candidates = fromCommands(matchCommands(commands, slash));
      return candidates.length === 0 ? null : { mode: "slash", token: `/${slash}`, candidates, loading: false };
    }
    if (mention === null) return null;
    const fresh = answer !== null && answer.query === mention;
    const candidates = fresh ? fromMentions(interleaveGroups(answer.groups)) : [];
    return { mode: "mention", token: `@${mention}`, candidates, loading: !fresh };
  }, [slash, mention, commands, answer]);
}
