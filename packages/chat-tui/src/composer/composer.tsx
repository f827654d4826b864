import { memo, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { decodePasteBytes, stripAnsiSequences, TextAttributes, type KeyEvent, type PasteEvent, type TextareaRenderable } from "@opentui/core";
import { useChat } from "../context.ts";
import { InteractionDock } from "../dock/interaction-dock.tsx";
import { isPlainKey, KeyLayer, useKeyLayer, type KeyOutcome } from "../keys/key-layers.tsx";
import type { ChatCommand, MentionQuery } from "../types.ts";
import { useChatState } from "../use-chat-state.ts";
import { commonPrefix, resolveCommand } from "./completion.ts";
import { CompletionPopup } from "./completion-popup.tsx";
import { followNav, historyNext, historyPrev, IDLE_NAV, normaliseHistory, type HistoryNav, type HistoryStep } from "./history.ts";
import { QueuedList } from "./queued-list.tsx";
import { visualRows } from "../timeline/clip.ts";
import { useCompletion, type Completion } from "./use-completion.ts";

export interface ComposerProps {
  readonly commands: readonly ChatCommand[];
  readonly onMentionQuery?: MentionQuery;
}

const MAX_EDITOR_ROWS = 8;
/** ↑ this close to the oldest prompt the view has asks the host for older history (`timeline.older`). */
const HISTORY_PREFETCH = 5;
/** Enter/Tab/↑/↓ are routed by the key layers; only Option+Enter needs rebinding (default: submit). */
const KEY_BINDINGS = [{ name: "return", meta: true, action: "newline" as const }];
const DEFAULT_PLACEHOLDER = "Message (/ commands, @ mentions, Shift+Tab mode, Ctrl+J newline)";
const segmenter = new Intl.Segmenter();

function graphemeCount(text: string): number {
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

/** Rows the editor needs for `text` wrapped at `width` (virtualLineCount is capped by the current height). */
function editorRows(text: string, width: number): number {
  let rows = 0;
  for (const line of text.split("\n")) rows += visualRows(line, Math.max(1, width - 1));
  return Math.min(MAX_EDITOR_ROWS, Math.max(1, rows));
}

interface EditorSnapshot {
  readonly text: string;
  /** Text before the cursor. */
  readonly before: string;
  readonly rows: number;
}

const EMPTY_SNAPSHOT: EditorSnapshot = { text: "", before: "", rows: 1 };

/**
 * Queued inputs, the interaction dock, completion and the multi-line editor. The draft lives only in the
 * editor (never in the store), so timeline updates can neither move the cursor nor clear it.
 */
export const Composer = memo(function Composer(props: ComposerProps): ReactNode {
  const { store, theme, emit, composer: handle } = useChat();
  const state = useChatState(store, "composer");
  const editor = useRef<TextareaRenderable>(null);
  const [snap, setSnap] = useState<EditorSnapshot>(EMPTY_SNAPSHOT);
  const [selection, setSelection] = useState<{ readonly token: string; readonly index: number }>({ token: "", index: 0 });
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [local, setLocal] = useState<readonly string[]>([]);
  const nav = useRef<HistoryNav>(IDLE_NAV);
  const navText = useRef<string | null>(null);
  const appliedDraft = useRef<string | null>(null);
  /** Text pasted into the current draft, as the editor inserted it; reported with the submit. */
  const pasted = useRef<string[]>([]);

  const cards = state.interactions ?? [];
  const pickerOpen = state.picker !== undefined;
  const blocked = pickerOpen || cards.length > 0;

  const sync = useCallback((): void => {
    const el = editor.current;
    if (el === null || el.isDestroyed) return;
    const text = el.plainText;
    const before = el.getTextRange(0, el.cursorOffset);
    const rows = editorRows(text, el.width);
    if (navText.current !== null && text !== navText.current) {
      nav.current = IDLE_NAV;
      navText.current = null;
    }
    setSnap((prev) => (prev.text === text && prev.before === before && prev.rows === rows ? prev : { text, before, rows }));
  }, []);

  const replaceDraft = useCallback(
    (text: string): void => {
      const el = editor.current;
      if (el === null) return;
      el.setText(text);
      el.gotoBufferEnd();
      pasted.current = [];
      sync();
    },
    [sync],
  );

  const resetNav = (): void => {
    nav.current = IDLE_NAV;
    navText.current = null;
  };

  useEffect(() => {
    handle.current = {
      text: () => editor.current?.plainText ?? "",
      clear: () => {
        const el = editor.current;
        resetNav();
        pasted.current = [];
        if (el === null || el.plainText === "") return false;
        el.setText("");
        sync();
        return true;
      },
    };
    return () => {
      handle.current = null;
    };
  }, [handle, sync]);

  // The caller's history replaces what was submitted locally since its last change.
  useEffect(() => setLocal((l) => (l.length === 0 ? l : [])), [state.history]);
  const entries = useMemo(() => normaliseHistory([...(state.history ?? []), ...local]), [state.history, local]);
  // Older prompts arriving in front (a windowed host loaded more) keep ↑/↓ on the entry shown.
  const shownEntries = useRef(entries);
  if (shownEntries.current !== entries) {
    nav.current = followNav(shownEntries.current, entries, nav.current);
    shownEntries.current = entries;
  }

  useEffect(() => {
    const draft = state.draft;
    if (draft === undefined || appliedDraft.current === draft.id) return;
    appliedDraft.current = draft.id;
    const el = editor.current;
    if (el === null) return;
    if (draft.mode === "ifEmpty" && el.plainText.trim() !== "") {
      emit({ type: "draftRejected", id: draft.id });
      return;
    }
    resetNav();
    replaceDraft(draft.text);
  }, [state.draft, emit, replaceDraft]);

  // Commands registered at run time (e.g. by plugins) follow the static ones.
  const extra = state.commands;
  const commands = useMemo(() => (extra === undefined || extra.length === 0 ? props.commands : [...props.commands, ...extra]), [props.commands, extra]);
  const raw = useCompletion(snap.before, commands, props.onMentionQuery);
  const completion: Completion | null = raw !== null && raw.token !== dismissed ? raw : null;
  const selected =
    completion !== null && selection.token === completion.token
      ? Math.min(selection.index, Math.max(0, completion.candidates.length - 1))
      : 0;

  const acceptCandidate = (c: Completion, index: number, trailing: string): void => {
    const el = editor.current;
    const candidate = c.candidates[index];
    if (el === null || candidate === undefined) return;
    for (let i = graphemeCount(c.token); i > 0; i--) el.deleteCharBackward();
    el.insertText(candidate.insert + trailing);
    sync();
  };

  const submit = (): void => {
    const el = editor.current;
    if (el === null) return;
    const value = el.plainText.trimEnd();
    if (value.trim() === "") {
      if ((state.queued ?? []).some((q) => q.paused === true)) emit({ type: "resumeQueue" });
      return;
    }
    const command = value.startsWith("/") ? resolveCommand(commands, value) : null;
    resetNav();
    el.setText("");
    const parts = pasted.current;
    pasted.current = [];
    sync();
    setLocal((l) => [...l, value]);
    emit(command === null ? { type: "submit", text: value, ...(parts.length > 0 ? { pasted: parts } : {}) } : { type: "command", name: command.name, args: command.args });
  };

  const applyStep = (step: HistoryStep): void => {
    nav.current = step.nav;
    navText.current = step.nav.index === null ? null : step.text;
    replaceDraft(step.text);
  };

  const completionKeys = (key: KeyEvent, c: Completion): KeyOutcome => {
    const n = c.candidates.length;
    if (isPlainKey(key, "escape")) {
      setDismissed(c.token);
      return "consume";
    }
    if (n === 0) return "pass";
    if (isPlainKey(key, "up") || isPlainKey(key, "down")) {
      const step = key.name === "up" ? -1 : 1;
      setSelection({ token: c.token, index: (selected + step + n) % n });
      return "consume";
    }
    if (isPlainKey(key, "tab")) {
      if (c.mode === "slash" && n > 1) {
        const prefix = commonPrefix(c.candidates.map((x) => x.insert));
        if (prefix.length > c.token.length) {
          const el = editor.current;
          if (el !== null) {
            for (let i = graphemeCount(c.token); i > 0; i--) el.deleteCharBackward();
            el.insertText(prefix);
            sync();
          }
          return "consume";
        }
      }
      acceptCandidate(c, selected, " ");
      return "consume";
    }
    if (isPlainKey(key, "return")) {
      const exact = c.mode === "slash" && c.candidates.some((x) => x.insert.toLowerCase() === c.token.toLowerCase());
      if (exact) return "pass";
      acceptCandidate(c, selected, " ");
      return "consume";
    }
    return "pass";
  };

  useKeyLayer(KeyLayer.editing, (key) => {
    const el = editor.current;
    if (blocked || el === null) return "pass";
    if (completion !== null) {
      const outcome = completionKeys(key, completion);
      if (outcome !== "pass") return outcome;
    }
    if ((key.name === "return" && (key.shift || key.meta)) || (key.name === "linefeed" && !key.ctrl)) {
      el.newLine();
      return "consume";
    }
    if (key.name === "j" && key.ctrl && !key.meta) {
      el.newLine();
      return "consume";
    }
    if (isPlainKey(key, "return")) {
      submit();
      return "consume";
    }
    if (isPlainKey(key, "up")) {
      const queued = state.queued ?? [];
      const last = queued[queued.length - 1];
      if (el.plainText === "" && nav.current.index === null && last !== undefined) {
        emit({ type: "recall", id: last.id });
        return "consume";
      }
      if (el.logicalCursor.row !== 0) return "pass";
      const step = historyPrev(entries, nav.current, el.plainText);
      // The host has older history than these prompts: ask for it before the walk reaches the oldest one.
      if ((store.get("timeline").older ?? 0) > 0 && (step === null || (step.nav.index ?? 0) < HISTORY_PREFETCH)) emit({ type: "loadEarlier" });
      if (step === null) return nav.current.index === null ? "pass" : "consume";
      applyStep(step);
      return "consume";
    }
    if (isPlainKey(key, "down")) {
      if (nav.current.index === null || el.logicalCursor.row < el.lineCount - 1) return "pass";
      const step = historyNext(entries, nav.current);
      if (step === null) return "pass";
      applyStep(step);
      return "consume";
    }
    if (isPlainKey(key, "tab")) return "consume";
    return "pass";
  });

  return (
    <box flexDirection="column" flexShrink={0}>
      <QueuedList queued={state.queued ?? []} />
      <InteractionDock cards={cards} active={!pickerOpen} />
      {completion !== null && !blocked ? <CompletionPopup completion={completion} selected={selected} /> : null}
      <box
        flexDirection="row"
        flexShrink={0}
        border={true}
        borderStyle="rounded"
        borderColor={blocked ? theme.border : theme.borderActive}
        paddingLeft={1}
        paddingRight={1}
      >
        <text fg={blocked ? theme.muted : theme.accent} flexShrink={0}>
          {state.busy === true ? "… " : "› "}
        </text>
        <textarea
          ref={editor}
          focused={!blocked}
          flexGrow={1}
          height={snap.rows}
          wrapMode="word"
          placeholder={state.placeholder ?? DEFAULT_PLACEHOLDER}
          textColor={theme.text}
          focusedTextColor={theme.text}
          placeholderColor={theme.muted}
          cursorColor={theme.accent}
          keyBindings={KEY_BINDINGS}
          onContentChange={sync}
          onPaste={(event: PasteEvent) => void pasted.current.push(stripAnsiSequences(decodePasteBytes(event.bytes)))}
          onCursorChange={sync}
        />
      </box>
      {state.mode === undefined ? null : (
        <text fg={theme.muted} attributes={TextAttributes.DIM} flexShrink={0} paddingLeft={1}>
          {`⏵⏵ ${state.mode} (shift+tab to cycle)`}
        </text>
      )}
    </box>
  );
});
