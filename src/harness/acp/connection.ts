/**
 * The wire to one ACP agent: newline-delimited JSON-RPC over a readable/writable byte pair, framed by Baton's byte
 * framer (`wire-stream.ts`: a line that is not UTF-8 is recorded as such) and spoken through the official SDK
 * (`@agentclientprotocol/sdk/unstable`, so `usage` on prompt results survives parsing). Transports
 * are values: `openClient` takes the two streams (tests can pass in-memory ones); `spawnAgent` starts the agent
 * (own process group and parent-death watchdog, rpc/child-process) and hands its stdio over.
 *
 * Every message in and out goes to the trace first, verbatim. `session/update` and `session/request_permission`
 * reach the session raw (their shapes are checked there, so an update kind this SDK does not know is a
 * diagnostic, not a parse failure); the update handler is synchronous so the ledger keeps the arrival order.
 * `fs/*`, `terminal/*` and `elicitation/*` are not advertised and answer -32601. The SDK is imported on first
 * use (it is not needed until an ACP target starts).
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { AnyMessage, ClientConnection, RequestPermissionResponse, Stream } from "@agentclientprotocol/sdk/unstable";
import { spawnChild, type ChildExit, type StopOptions } from "../../rpc/child-process.ts";
import { BatonError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { terminalSafe } from "../../shared/terminal-text.ts";
import { framedStream } from "./wire-stream.ts";

export type WireTrace = (direction: "in" | "out", message: unknown) => void;

export interface ClientHandlers {
  /** A `session/update` notification's params, as sent. Must not throw. */
  onUpdate(params: unknown): void;
  /** A `session/request_permission` request's params, as sent; `signal` aborts when the agent withdraws it. */
  onPermission(params: unknown, signal: AbortSignal): Promise<RequestPermissionResponse>;
  /** Any other notification (extension notifications such as `_auth/status_update`). */
  onOtherNotification(method: string, params: unknown): void;
  /** Something the wire could not deliver (not JSON-RPC). */
  onDiagnostic(key: string, detail: string): void;
}

export interface ByteStreams {
  readonly input: ReadableStream<Uint8Array>;
  readonly output: WritableStream<Uint8Array>;
}

export interface AgentProcess {
  readonly pid: number | undefined;
  readonly argv: readonly string[];
  readonly streams: ByteStreams;
  readonly exited: Promise<ChildExit>;
  exitInfo(): ChildExit | undefined;
  /** The last few KB of stderr (terminal-safe). */
  stderrTail(): string;
  signal(signal: NodeJS.Signals): boolean;
  stop(options?: StopOptions): Promise<ChildExit>;
}

const STDERR_RING_CHARS = 8 * 1024;
const STDERR_LOG_LINE = 500;

type Sdk = typeof import("@agentclientprotocol/sdk/unstable");
let sdk: Promise<Sdk> | undefined;
export function loadSdk(): Promise<Sdk> {
  sdk ??= import("@agentclientprotocol/sdk/unstable");
  return sdk;
}

export function describeExit(exit: ChildExit | undefined): string {
  if (exit === undefined) return "still running";
  if (exit.error !== undefined) return `failed to start: ${exit.error}`;
  if (exit.signal !== null) return `killed by ${exit.signal}`;
  return `exit code ${String(exit.code)}`;
}

/** Start the agent command in `cwd` with exactly `env`; its stdio becomes the byte streams. */
export function spawnAgent(argv: readonly string[], options: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly log: Logger }): AgentProcess {
  const [file, ...args] = argv;
  if (file === undefined) throw new BatonError("harness_start_failed", "the ACP agent command is empty");
  const handle = spawnChild(file, args, { cwd: options.cwd, env: options.env });
  const child = handle.child as ChildProcessWithoutNullStreams;
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (data: string) => {
    stderr = (stderr + terminalSafe(data)).slice(-STDERR_RING_CHARS);
    for (const line of data.split("\n")) {
      const plain = terminalSafe(line);
      if (plain.trim() !== "") options.log.log("debug", `acp agent stderr: ${plain.slice(0, STDERR_LOG_LINE)}`);
    }
  });
  child.stdin.on("error", (error) => options.log.log("debug", "acp agent stdin error", { error }));
  child.stdout.on("error", (error) => options.log.log("debug", "acp agent stdout error", { error }));
  let ended = false;
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on("data", (chunk: Buffer) => {
        if (!ended) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      const end = () => {
        if (ended) return;
        ended = true;
        controller.close();
      };
      child.stdout.on("end", end);
      child.stdout.on("close", end);
    },
    cancel() {
      ended = true;
      child.stdout.destroy();
    },
  });
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise<void>((resolve, reject) => {
        if (child.stdin.destroyed || !child.stdin.writable) return reject(new Error("the ACP agent's stdin is closed"));
        child.stdin.write(chunk, (error) => (error ? reject(error) : resolve()));
      });
    },
    close() {
      if (!child.stdin.destroyed) child.stdin.end();
    },
    abort() {
      if (!child.stdin.destroyed) child.stdin.end();
    },
  });
  return {
    pid: handle.pid,
    argv,
    streams: { input, output },
    exited: handle.exited,
    exitInfo: () => handle.exitInfo(),
    stderrTail: () => stderr,
    signal: (name) => handle.signal(name),
    stop: (stopOptions) => handle.stop(stopOptions),
  };
}

function isJsonRpc(message: AnyMessage): boolean {
  const record = message as Record<string, unknown>;
  return typeof record["method"] === "string" || "id" in record;
}

/** Trace every message; what is not JSON-RPC is reported and kept from the SDK (which would print it). */
function traced(stream: Stream, trace: WireTrace | undefined, handlers: ClientHandlers): Stream {
  const readable = stream.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      transform(message, controller) {
        trace?.("in", message);
        if (isJsonRpc(message)) controller.enqueue(message);
        else handlers.onDiagnostic("wire:not JSON-RPC", JSON.stringify(message).slice(0, 300));
      },
    }),
  );
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<AnyMessage>({
    async write(message) {
      trace?.("out", message);
      await writer.write(message);
    },
    async close() {
      await writer.close().catch(() => undefined);
    },
    async abort(reason) {
      await writer.abort(reason).catch(() => undefined);
    },
  });
  return { readable, writable };
}

const raw = (params: unknown): unknown => params;

/** Connect the ACP client app to an agent over `streams`. */
export async function openClient(streams: ByteStreams, handlers: ClientHandlers, trace?: WireTrace): Promise<ClientConnection> {
  const acp = await loadSdk();
  const stream = traced(
    framedStream(streams.output, streams.input, (key, detail) => handlers.onDiagnostic(key, detail)),
    trace,
    handlers,
  );
  const app = acp
    .client({ name: "baton" })
    .onNotification(acp.methods.client.session.update, raw, ({ params }) => {
      try {
        handlers.onUpdate(params);
      } catch (error) {
        handlers.onDiagnostic("update:handler failed", error instanceof Error ? error.message : String(error));
      }
    })
    .onRequest(acp.methods.client.session.requestPermission, raw, ({ params, signal }) => handlers.onPermission(params, signal))
    .onNotification("*", ({ method, params }) => {
      try {
        handlers.onOtherNotification(method, params);
      } catch {
        // a diagnostic sink never fails the wire
      }
    });
  return app.connect(stream);
}
