/**
 * Errors and notices: appended, one timeline item each, keyed by the event's seq (`err_<seq>`, `n_<seq>`),
 * so re-reducing the same event is inert. A stall notice is a warning notice carrying its stall facts.
 */
import type { AnyEvent, EventOf } from "../event/envelope.ts";
import type { ErrorItem, NoticeItem, ProjectionState, StallInfo } from "./state.ts";
import { tableHas, tableSet } from "./table.ts";
import { pushTimeline } from "./timeline.ts";
import { clearRetrying, markRetrying } from "./turns.ts";

export function errorIdOf(seq: number): string {
  return `err_${seq}`;
}

export function noticeIdOf(seq: number): string {
  return `n_${seq}`;
}

export function reduceError(state: ProjectionState, event: EventOf<"_baton_error_update">): ProjectionState {
  const id = errorIdOf(event.seq);
  if (tableHas(state.errors, id)) return state;
  const p = event.payload;
  const item: ErrorItem = {
    id,
    message: p.message,
    code: p.code ?? null,
    retryable: p.retryable ?? null,
    willRetry: p.willRetry ?? null,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    seq: event.seq,
    ts: event.ts,
  };
  const next = pushTimeline({ ...state, errors: tableSet(state.errors, id, item), lastError: item }, "error", id);
  const turnId = event.turnId ?? null;
  return p.willRetry === true ? markRetrying(next, turnId) : clearRetrying(next, turnId);
}

function addNotice(
  state: ProjectionState,
  event: AnyEvent,
  fields: Pick<NoticeItem, "level" | "title" | "detail" | "stall">,
): ProjectionState {
  const id = noticeIdOf(event.seq);
  if (tableHas(state.notices, id)) return state;
  const item: NoticeItem = {
    id,
    ...fields,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    seq: event.seq,
    ts: event.ts,
  };
  return pushTimeline({ ...state, notices: tableSet(state.notices, id, item) }, "notice", id);
}

export function reduceNotice(state: ProjectionState, event: EventOf<"_baton_notice">): ProjectionState {
  const p = event.payload;
  return addNotice(state, event, { level: p.level, title: p.title, detail: p.detail ?? null, stall: null });
}

export function reduceStallNotice(state: ProjectionState, event: EventOf<"_baton_stall_notice">): ProjectionState {
  const p = event.payload;
  const stall: StallInfo = { silentMs: p.silentMs, level: p.level, verdict: p.verdict ?? null };
  const seconds = Math.max(0, Math.round(p.silentMs / 1000));
  const detail = p.detail ?? (p.verdict !== undefined ? `harness reports: ${p.verdict}` : null);
  return addNotice(state, event, { level: "warning", title: `No output for ${seconds}s`, detail, stall });
}
