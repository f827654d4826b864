/**
 * Invalid UTF-8 from an agent is recorded as such (issue 12.14), not silently turned into U+FFFD: a real child
 * writes a line with a byte that is not UTF-8. Through the JSON-RPC peer (Codex, the plugin runner) and through
 * the guard on Claude Code's stdout (which the Agent SDK decodes itself), through the ACP client's framed stream
 * (which replaced the ACP SDK's lossy `ndJsonStream`), the message's text reads U+FFFD where the
 * byte was and the object its handler receives keeps the line's bytes, verbatim, as base64; valid lines pass as they
 * were. The framer that splits the lines knows which ones were not UTF-8.
 */
import { describe, expect, test } from "bun:test";
import type { SpawnedProcess } from "@anthropic-ai/claude-agent-sdk";
import { openClient, spawnAgent } from "../../src/harness/acp/connection.ts";
import { ClaudeProcesses } from "../../src/harness/claude/process.ts";
import { startRpcChild } from "../../src/rpc/rpc-child.ts";
import { INVALID_UTF8_FIELD, LineFramer } from "../../src/shared/jsonl.ts";
import { silentLogger } from "../../src/shared/log.ts";

const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin" };
const cwd = process.cwd();

/** `{"method":"item/agentMessage/delta","params":{"delta":"caf<0xE9> au lait"}}` — é in Latin-1, not UTF-8. */
const BAD_LINE = Buffer.concat([Buffer.from('{"method":"item/agentMessage/delta","params":{"delta":"caf'), Buffer.from([0xe9]), Buffer.from(' au lait"}}')]);
const GOOD_LINE = Buffer.from('{"method":"item/agentMessage/delta","params":{"delta":"café ☕"}}');

/** A child that writes the good line, the bad one (split across two writes), the good one again, then exits. */
function writerArgs(good = GOOD_LINE, bad = BAD_LINE): string[] {
  const hex = (bytes: Buffer) => bytes.toString("hex");
  const script = [
    `const out = (h) => process.stdout.write(Buffer.from(h, "hex"));`,
    `out("${hex(good)}0a");`,
    `out("${hex(bad.subarray(0, 40))}");`,
    `setTimeout(() => { out("${hex(bad.subarray(40))}0a${hex(good)}0a"); }, 20);`,
  ].join("\n");
  return ["-e", script];
}

/** The same lines as an ACP agent's `session/update` notifications (é in Latin-1 in the bad one). */
const acpUpdate = (text: Buffer) =>
  Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"'), text, Buffer.from('"}}}}')]);
const ACP_GOOD = acpUpdate(Buffer.from("café ☕"));
const ACP_BAD = acpUpdate(Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from(" au lait")]));
const chunk = (text: string) => ({ sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });

const expectedMark = { bytes: BAD_LINE.byteLength, base64: BAD_LINE.toString("base64") };

describe("invalid UTF-8 from an agent", () => {
  test("the line framer returns the bytes of a line that is not UTF-8, and none for valid ones (also split mid-character)", () => {
    const framer = new LineFramer();
    const good = Buffer.from("é🚀\n");
    const lines = [...good].flatMap((byte) => framer.pushLines(new Uint8Array([byte])));
    expect(lines).toEqual([{ text: "é🚀" }]);
    const reused = Buffer.from(BAD_LINE.subarray(0, 10));
    expect(framer.pushLines(reused)).toEqual([]);
    reused.fill(0x20); // the caller reuses its buffer: what was pending is a copy
    const [bad] = framer.pushLines(Buffer.concat([BAD_LINE.subarray(10), Buffer.from("\r\n")]));
    expect(bad?.text).toBe('{"method":"item/agentMessage/delta","params":{"delta":"caf\uFFFD au lait"}}');
    expect(Buffer.from(bad?.invalidUtf8 ?? []).equals(BAD_LINE)).toBe(true);
    expect(framer.pushLines(Buffer.from([0x7b, 0xff]))).toEqual([]);
    expect(framer.finishLine()).toEqual({ text: "{\uFFFD", invalidUtf8: new Uint8Array([0x7b, 0xff]) });
  });

  test("JSON-RPC peer on a real child: the notification's params keep the bytes; its text has U+FFFD; the trace sees the mark", async () => {
    const received: Record<string, unknown>[] = [];
    const traced: unknown[] = [];
    const child = startRpcChild(
      { label: "broken agent", file: process.execPath, args: writerArgs(), cwd, env },
      { onNotification: (_method, params) => received.push(params as Record<string, unknown>), trace: (direction, message) => direction === "in" && traced.push(message) },
    );
    await child.process.exited;
    for (let i = 0; i < 100 && received.length < 3; i++) await Bun.sleep(10);
    await child.close("done");
    expect(received).toEqual([
      { delta: "café ☕" },
      { delta: "caf\uFFFD au lait", [INVALID_UTF8_FIELD]: expectedMark },
      { delta: "café ☕" },
    ]);
    expect(Buffer.from(expectedMark.base64, "base64").equals(BAD_LINE)).toBe(true);
    expect(JSON.stringify(traced[1])).toContain(expectedMark.base64);
  });

  test("Claude Code's stdout as the Agent SDK reads it: valid lines byte for byte, the bad one as its object marked with its bytes", async () => {
    const processes = new ClaudeProcesses();
    const spawned: SpawnedProcess = processes.spawn({ command: process.execPath, args: writerArgs(), cwd, env, signal: new AbortController().signal });
    const chunks: Buffer[] = [];
    for await (const chunk of spawned.stdout) chunks.push(Buffer.from(chunk as Buffer));
    await processes.stop();
    const lines = Buffer.concat(chunks).toString("utf8").split("\n");
    expect(lines.length).toBe(4);
    expect(lines[0]).toBe(GOOD_LINE.toString("utf8"));
    expect(JSON.parse(lines[1]!)).toEqual({ method: "item/agentMessage/delta", params: { delta: "caf\uFFFD au lait" }, [INVALID_UTF8_FIELD]: expectedMark });
    expect(lines[2]).toBe(GOOD_LINE.toString("utf8"));
    expect(lines[3]).toBe("");
  });

  test("an ACP agent (a real child, through the ACP SDK's client): the update's params keep the bytes; its text has U+FFFD; the trace sees the mark", async () => {
    const updates: unknown[] = [];
    const diagnostics: string[] = [];
    const traced: unknown[] = [];
    const agent = spawnAgent([process.execPath, ...writerArgs(ACP_GOOD, ACP_BAD)], { cwd, env, log: silentLogger });
    const connection = await openClient(
      agent.streams,
      {
        onUpdate: (params) => updates.push(params),
        onPermission: () => Promise.reject(new Error("no permission expected")),
        onOtherNotification: () => undefined,
        onDiagnostic: (key) => diagnostics.push(key),
      },
      (direction, message) => direction === "in" && traced.push(message),
    );
    await agent.exited;
    for (let i = 0; i < 100 && updates.length < 3; i++) await Bun.sleep(10);
    await connection.close();
    const mark = { bytes: ACP_BAD.byteLength, base64: ACP_BAD.toString("base64") };
    expect(updates).toEqual([chunk("café ☕"), { ...chunk("caf\uFFFD au lait"), [INVALID_UTF8_FIELD]: mark }, chunk("café ☕")]);
    expect(diagnostics).toEqual(["wire:invalid UTF-8"]);
    expect(JSON.stringify(traced[1])).toContain(mark.base64);
  });
});
