/** How `exec` and `repl` print a turn's events (src/app/stream-printer.ts). */
import { describe, expect, test } from "bun:test";
import { StreamPrinter } from "../../src/app/stream-printer.ts";
import type { AnyEvent } from "../../src/event/envelope.ts";

function printed(events: readonly { kind: string; payload: Record<string, unknown> }[]): { out: string; err: string } {
  let out = "";
  let err = "";
  const printer = new StreamPrinter({ out: { write: (text) => void (out += text) }, err: { write: (text) => void (err += text) }, showThoughts: false });
  for (const event of events) printer.handle(event as unknown as AnyEvent);
  return { out, err };
}

const starting = { kind: "_baton_run_status", payload: { phase: "starting", title: "Starting Claude Code…" } };

describe("stream printer: statuses (#11.15)", () => {
  test("the controller's and the harness's 'Starting X…' are one line, though a notice came between them", () => {
    const notice = { kind: "_baton_notice", payload: { level: "info", title: "File checkpoints are off", detail: "not a git worktree" } };
    expect(printed([starting, notice, { kind: "_baton_run_status", payload: { phase: null } }, starting]).err).toBe(
      "[status] Starting Claude Code…\n[info] File checkpoints are off — not a git worktree\n",
    );
  });

  test("a status is said again once the turn has moved on (agent text or a tool since)", () => {
    const text = { kind: "agent_message", payload: { messageId: "m1", content: [{ type: "text", text: "Hi." }] } };
    const tool = { kind: "tool_call_update", payload: { toolCallId: "c1", title: "ls", status: "completed" } };
    expect(printed([starting, text, starting]).err).toBe("[status] Starting Claude Code…\n[status] Starting Claude Code…\n");
    expect(printed([starting, tool, starting]).err).toBe("[status] Starting Claude Code…\n[tool:completed] ls\n[status] Starting Claude Code…\n");
  });
});
