/** Background tasks / sub-agents: defined-field upsert by taskId (a field that is absent keeps its value). */
import type { EventOf } from "../event/envelope.ts";
import { jsonEqual } from "./json-equal.ts";
import type { ProjectionState, TaskItem } from "./state.ts";
import { tableGet, tableSet } from "./table.ts";
import { pushTimeline } from "./timeline.ts";

function keep<T>(current: T, incoming: T | undefined): T {
  return incoming === undefined || jsonEqual(current, incoming) ? current : incoming;
}

export function reduceTaskUpdate(state: ProjectionState, event: EventOf<"task_update">): ProjectionState {
  const p = event.payload;
  const existing = tableGet(state.tasks, p.taskId);
  const base: TaskItem = existing ?? {
    taskId: p.taskId,
    status: p.status,
    title: null,
    taskType: null,
    summary: null,
    lastToolName: null,
    usage: null,
    skipTranscript: false,
    turnId: event.turnId ?? null,
    harnessTargetId: event.harnessTargetId ?? null,
    firstSeq: event.seq,
  };
  const next: TaskItem = {
    ...base,
    status: p.status,
    title: keep(base.title, p.title),
    taskType: keep(base.taskType, p.taskType),
    summary: keep(base.summary, p.summary),
    lastToolName: keep(base.lastToolName, p.lastToolName),
    usage: keep(base.usage, p.usage),
    skipTranscript: keep(base.skipTranscript, p.skipTranscript),
  };
  if (existing !== undefined && jsonEqual(existing, next)) return state;
  const withTask = { ...state, tasks: tableSet(state.tasks, p.taskId, next) };
  return existing === undefined ? pushTimeline(withTask, "task", p.taskId) : withTask;
}
