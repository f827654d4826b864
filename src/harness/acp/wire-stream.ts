/**
 * The ACP SDK's `Stream` (JSON-RPC messages in and out) over an agent's byte pair, framed by Baton's own line
 * framer instead of the SDK's `ndJsonStream` — which decodes every line with a `TextDecoder` and so turns bytes
 * that are not UTF-8 into U+FFFD without a trace (#12.14). Here such a line still reads with U+FFFD, and the
 * object its handler receives (`params`, or `result`, else the message) keeps the line's bytes under
 * `_baton_invalid_utf8 {bytes, base64}`, as on the Codex and Claude paths; it is also reported as a diagnostic.
 *
 * Otherwise it behaves as `ndJsonStream`: LF or CRLF lines, blank lines skipped, a last line without a newline
 * still read; a line that is not JSON is answered with a JSON-RPC parse error (-32700), a batch or a non-object
 * with an invalid request (-32600), both with `id: null`. A line over the byte cap is dropped and reported.
 */
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk/unstable";
import { LineFramer, markInvalidUtf8Message, type FramedLine } from "../../shared/jsonl.ts";

export type WireReport = (key: string, detail: string) => void;

const SAMPLE_CHARS = 300;
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** `ndJsonStream(output, input)` with Baton's framer; `report` hears what the wire could not deliver as sent. */
export function framedStream(output: WritableStream<Uint8Array>, input: ReadableStream<Uint8Array>, report: WireReport): Stream {
  const encoder = new TextEncoder();
  let writes: Promise<void> = Promise.resolve();
  // One write at a time, each taking the writer for itself (as ndJsonStream does).
  const send = (message: unknown): Promise<void> => {
    const line = encoder.encode(`${JSON.stringify(message)}\n`);
    const write = writes.then(async () => {
      const writer = output.getWriter();
      try {
        await writer.write(line);
      } finally {
        writer.releaseLock();
      }
    });
    writes = write.catch(() => undefined);
    return write;
  };
  const protocolError = (code: number, message: string): Promise<void> => send({ jsonrpc: "2.0", id: null, error: { code, message } }).catch(() => undefined);

  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let cancelled = false;
  const readable = new ReadableStream<AnyMessage>({
    async start(controller) {
      const framer = new LineFramer({ onOversize: (bytes) => report("wire:line too long", `a line of ${bytes} bytes was dropped`) });
      const deliver = async (line: FramedLine): Promise<void> => {
        const text = line.text.trim();
        if (text === "") return;
        let message: unknown;
        try {
          message = JSON.parse(text);
        } catch {
          report("wire:not JSON", text.slice(0, SAMPLE_CHARS));
          return protocolError(PARSE_ERROR, "Parse error");
        }
        if (Array.isArray(message)) return protocolError(INVALID_REQUEST, "Invalid request: JSON-RPC batches are not supported");
        if (typeof message !== "object" || message === null) return protocolError(INVALID_REQUEST, "Invalid request");
        const record = message as Record<string, unknown>;
        if (line.invalidUtf8 !== undefined) {
          markInvalidUtf8Message(record, line.invalidUtf8);
          report("wire:invalid UTF-8", `a line of ${line.invalidUtf8.byteLength} bytes is not valid UTF-8; read with U+FFFD, its bytes kept as base64`);
        }
        controller.enqueue(record as AnyMessage);
      };
      const source = input.getReader();
      reader = source;
      try {
        for (;;) {
          const { value, done } = await source.read();
          if (cancelled) return;
          if (done) break;
          for (const line of framer.pushLines(value)) {
            await deliver(line);
            if (cancelled) return;
          }
        }
        const last = framer.finishLine();
        if (last !== undefined) await deliver(last);
      } catch (error) {
        if (cancelled) return;
        controller.error(error);
        void source.cancel(error).catch(() => undefined);
        return;
      } finally {
        source.releaseLock();
      }
      if (!cancelled) controller.close();
    },
    cancel(reason) {
      cancelled = true;
      return reader?.cancel(reason);
    },
  });
  // Closing the message side leaves the agent's stdin to whoever owns the process (as ndJsonStream does).
  const writable = new WritableStream<AnyMessage>({ write: (message) => send(message) });
  return { readable, writable };
}
