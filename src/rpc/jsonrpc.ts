/**
 * A JSON-RPC 2.0 peer over newline-delimited JSON (COD-01), shared by the Codex adapter and the
 * plugin host/runner. Transports are values: it reads
 * from any async iterable of bytes and writes lines through a function, so tests run it
 * without a process. Server-initiated requests carry ids that overlap numerically with ours;
 * they are told apart by the presence of `method` and kept in a separate table.
 */
import { BatonError, describeError, type BatonErrorCode } from "../shared/errors.ts";
import { systemClock, type Clock, type TimerHandle } from "../shared/clock.ts";
import { INVALID_UTF8_FIELD, LineFramer, encodeJsonLine, markInvalidUtf8Message, type FramedLine } from "../shared/jsonl.ts";
import { silentLogger, type Logger } from "../shared/log.ts";

export type RpcId = number | string;

export interface JsonRpcTransport {
  /** Bytes written by the other side (a child's stdout, a PassThrough in tests). */
  readonly input: AsyncIterable<Uint8Array | string>;
  /** Send one complete line. May throw when the other side is gone. */
  write(line: string): void;
  /** Close our sending side (the other side sees EOF). */
  end(): void;
}

export type WireDirection = "in" | "out";
/** Optional raw wire trace: every parsed inbound message before dispatch, every outbound message. */
export type WireTrace = (direction: WireDirection, message: unknown) => void;

/** An error response from the other side. */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  readonly method: string;

  constructor(method: string, code: number, message: string, data?: unknown) {
    super(message);
    this.name = "JsonRpcError";
    this.method = method;
    this.code = code;
    this.data = data;
  }
}

export interface JsonRpcPeerOptions {
  readonly transport: JsonRpcTransport;
  readonly onNotification?: (method: string, params: unknown) => void;
  /**
   * Answer a server-initiated request: the resolved value is the result, a throw becomes an error response.
   * `signal` aborts when the other side cancels the request (only with `cancelMethod`).
   */
  readonly onRequest?: (method: string, params: unknown, id: RpcId, signal: AbortSignal) => unknown;
  /**
   * LSP-style cancellation (`$/cancelRequest {id}`): when set, a request of ours that times out or is aborted
   * is announced to the other side with this notification, and the same notification from the other side
   * aborts the signal of the request it names (it never reaches `onNotification`).
   */
  readonly cancelMethod?: string;
  /** Called for every line that is not a JSON-RPC message (non-JSON, non-object, malformed, over the byte cap). */
  readonly onMalformed?: (problem: string) => void;
  /** Byte cap per line (default: the framer's); longer lines are dropped and reported as malformed. */
  readonly maxLineBytes?: number;
  /** Add `"jsonrpc": "2.0"` to every message we send (Codex omits it; strict peers want it). */
  readonly stampVersion?: boolean;
  /** The BatonError code pending requests are rejected with when the connection closes (default harness_dead). */
  readonly closedCode?: BatonErrorCode;
  /** Called once when the input ends, fails, or `close` is called. */
  readonly onClose?: (reason: string) => void;
  readonly log?: Logger;
  readonly clock?: Clock;
  readonly trace?: WireTrace;
  /** Label for messages (e.g. "codex"). */
  readonly name?: string;
}

export interface RequestOptions {
  /** Reject with BatonError("timeout") after this many ms; a late reply is then ignored. */
  readonly timeoutMs?: number;
  /** Aborting rejects with BatonError("cancelled") (and announces the cancel, with `cancelMethod`). */
  readonly signal?: AbortSignal;
}

/** A request of ours we gave up on (timeout or abort) and told the other side to cancel, still unanswered. */
export interface AbandonedRequest {
  readonly id: RpcId;
  readonly method: string;
  /** Clock time it was given up on. */
  readonly since: number;
}

interface Pending {
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  timer: TimerHandle | undefined;
  detach: (() => void) | undefined;
}

const MAX_LOGGED_LINE = 300;

/** After every continuation already due (a macrotask follows the whole microtask queue); orders work, times nothing. */
const afterContinuations = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A handler's throw as an error response: a JsonRpcError keeps its code and data, anything else is -32603. */
function errorPayload(error: unknown): Record<string, unknown> {
  if (error instanceof JsonRpcError) return { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) };
  return { code: -32603, message: describeError(error) };
}

export class JsonRpcPeer {
  private readonly transport: JsonRpcTransport;
  private readonly options: JsonRpcPeerOptions;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly name: string;
  private readonly pending = new Map<RpcId, Pending>();
  /** Server-initiated requests still being answered (separate id space from `pending`), with their cancel. */
  private readonly inbound = new Map<RpcId, AbortController>();
  /** Requests we gave up on and asked the other side to cancel; removed when their late answer arrives. */
  private readonly abandonedRequests = new Map<RpcId, AbandonedRequest>();
  private nextId = 1;
  private closedReason: string | undefined;
  private readonly framer: LineFramer;
  private started = false;
  private skippedLines = 0;
  private invalidUtf8Lines = 0;

  constructor(options: JsonRpcPeerOptions) {
    this.options = options;
    this.transport = options.transport;
    this.log = options.log ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.name = options.name ?? "peer";
    this.framer = new LineFramer({
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
      onOversize: (bytes) => this.malformed(`line of ${bytes} bytes over the ${options.maxLineBytes ?? "default"} byte cap dropped`),
    });
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  get closeReason(): string | undefined {
    return this.closedReason;
  }

  /** Number of non-JSON or malformed lines skipped so far. */
  get skipped(): number {
    return this.skippedLines;
  }

  /** Requests of ours still outstanding (answered ones and abandoned ones excluded). */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** The longest-abandoned request that the other side has still not answered, if any. */
  oldestAbandoned(): AbandonedRequest | undefined {
    let oldest: AbandonedRequest | undefined;
    for (const entry of this.abandonedRequests.values()) if (oldest === undefined || entry.since < oldest.since) oldest = entry;
    return oldest;
  }

  /** Start reading. Resolves when the input has ended and the peer is closed. */
  start(): Promise<void> {
    if (this.started) throw new Error("JsonRpcPeer already started");
    this.started = true;
    return this.readLoop();
  }

  request(method: string, params: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (this.closedReason !== undefined) {
      return Promise.reject(this.closedError(method));
    }
    if (options.signal?.aborted === true) return Promise.reject(new BatonError("cancelled", `${method} to ${this.name} was cancelled before it was sent`));
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const entry: Pending = { method, resolve, reject, timer: undefined, detach: undefined };
      this.pending.set(id, entry);
      if (options.timeoutMs !== undefined) {
        const ms = options.timeoutMs;
        entry.timer = this.clock.setTimeout(() => {
          if (this.pending.get(id) !== entry) return;
          this.abandon(id, entry, new BatonError("timeout", `${this.name} did not answer ${method} within ${ms} ms`));
        }, ms);
      }
      const signal = options.signal;
      if (signal !== undefined) {
        const onAbort = (): void => {
          if (this.pending.get(id) !== entry) return;
          this.abandon(id, entry, new BatonError("cancelled", `${method} to ${this.name} was cancelled`));
        };
        signal.addEventListener("abort", onAbort, { once: true });
        entry.detach = () => signal.removeEventListener("abort", onAbort);
      }
      const message = params === undefined ? { id, method } : { id, method, params };
      try {
        this.send(message);
      } catch (error) {
        this.settle(id);
        reject(new BatonError("harness_dead", `could not send ${method} to ${this.name}: ${describeError(error)}`, { cause: error }));
      }
    });
  }

  /** Give up on a pending request: reject it, and with `cancelMethod` tell the other side and remember it. */
  private abandon(id: RpcId, entry: Pending, error: BatonError): void {
    this.settle(id);
    const cancel = this.options.cancelMethod;
    if (cancel !== undefined && this.closedReason === undefined) {
      this.abandonedRequests.set(id, { id, method: entry.method, since: this.clock.now() });
      try {
        this.send({ method: cancel, params: { id } });
      } catch (sendError) {
        this.log.log("debug", `${this.name}: could not send ${cancel}`, { error: sendError });
      }
    }
    entry.reject(error);
  }

  notify(method: string, params?: unknown): void {
    if (this.closedReason !== undefined) throw this.closedError(method);
    this.send(params === undefined ? { method } : { method, params });
  }

  /** Close: reject every pending request, stop answering, end our sending side. Idempotent. */
  close(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const [id, entry] of this.pending) {
      this.settle(id);
      entry.reject(this.closedError(entry.method));
    }
    this.abandonedRequests.clear();
    for (const controller of this.inbound.values()) controller.abort();
    this.inbound.clear();
    try {
      this.transport.end();
    } catch (error) {
      this.log.log("debug", `${this.name}: ending transport failed`, { error });
    }
    try {
      this.options.onClose?.(reason);
    } catch (error) {
      this.log.log("error", `${this.name}: close handler threw`, { error });
    }
  }

  private closedError(method: string): BatonError {
    return new BatonError(this.options.closedCode ?? "harness_dead", `${this.name} connection closed (${this.closedReason ?? "closed"}) before ${method} was answered`);
  }

  private settle(id: RpcId): void {
    const entry = this.pending.get(id);
    if (entry === undefined) return;
    if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
    entry.detach?.();
    this.pending.delete(id);
  }

  private send(message: Record<string, unknown>): void {
    this.options.trace?.("out", message);
    this.transport.write(encodeJsonLine(this.options.stampVersion === true ? { jsonrpc: "2.0", ...message } : message));
  }

  private async readLoop(): Promise<void> {
    let reason = "input ended";
    try {
      for await (const chunk of this.transport.input) {
        const lines = this.framer.pushLines(chunk);
        for (let i = 0; i < lines.length && this.closedReason === undefined; i++) {
          // Wire order however many lines a late read brings: what follows an answer (handleLine true) waits for its awaiter.
          if (this.handleLine(lines[i] as FramedLine) && i < lines.length - 1) await afterContinuations();
        }
        if (this.closedReason !== undefined) break;
      }
      const tail = this.framer.finishLine();
      if (tail !== undefined) this.handleLine(tail);
    } catch (error) {
      reason = `input failed: ${describeError(error)}`;
    }
    this.close(reason);
  }

  private handleLine(framed: FramedLine): boolean {
    const line = framed.text;
    if (line.trim() === "") return false;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return this.skip("non-JSON line skipped", line);
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      return this.skip("non-object JSON line skipped", line);
    }
    const record = message as Record<string, unknown>;
    if (framed.invalidUtf8 !== undefined) this.noteInvalidUtf8(record, framed.invalidUtf8);
    this.options.trace?.("in", message);
    const method = record["method"];
    const id = record["id"];
    const hasId = typeof id === "number" || typeof id === "string";
    if (typeof method === "string") {
      if (hasId) this.handleRequest(method, record["params"], id);
      else this.handleNotification(method, record["params"]);
      return false;
    }
    if (hasId && ("result" in record || "error" in record)) return this.handleResponse(id, record);
    return this.skip("malformed JSON-RPC message skipped", line);
  }

  /**
   * A line that was not valid UTF-8: its text has U+FFFD where the bytes were bad, and the object its handler
   * receives (`params`, or `result`, else the message) keeps the line's bytes under INVALID_UTF8_FIELD, so
   * whatever is recorded from it says so. Logged on the first and every 100th.
   */
  private noteInvalidUtf8(record: Record<string, unknown>, bytes: Uint8Array): void {
    markInvalidUtf8Message(record, bytes);
    this.invalidUtf8Lines++;
    if (this.invalidUtf8Lines === 1 || this.invalidUtf8Lines % 100 === 0) {
      this.log.log("warn", `${this.name}: a line of ${bytes.byteLength} bytes is not valid UTF-8 (${this.invalidUtf8Lines} so far); read with U+FFFD, its bytes kept as base64 in ${INVALID_UTF8_FIELD}`);
    }
  }

  private skip(what: string, line: string): false {
    this.skippedLines++;
    this.log.log("warn", `${this.name}: ${what}`, { attributes: { line: line.slice(0, MAX_LOGGED_LINE) } });
    this.malformed(`${what}: ${line.slice(0, MAX_LOGGED_LINE)}`);
    return false;
  }

  private malformed(problem: string): void {
    try {
      this.options.onMalformed?.(problem);
    } catch (error) {
      this.log.log("error", `${this.name}: malformed-line handler threw`, { error });
    }
  }

  private handleNotification(method: string, params: unknown): void {
    if (method === this.options.cancelMethod) {
      const id = typeof params === "object" && params !== null ? (params as { id?: unknown }).id : undefined;
      if (typeof id === "number" || typeof id === "string") this.inbound.get(id)?.abort();
      return;
    }
    try {
      this.options.onNotification?.(method, params);
    } catch (error) {
      this.log.log("error", `${this.name}: notification handler for ${method} threw`, { error });
    }
  }

  private handleResponse(id: RpcId, record: Record<string, unknown>): boolean {
    const entry = this.pending.get(id);
    if (entry === undefined) {
      this.abandonedRequests.delete(id);
      this.log.log("debug", `${this.name}: late or unknown response ignored`, { attributes: { id } });
      return false;
    }
    this.settle(id);
    const error = record["error"];
    if (error !== undefined && error !== null) {
      const e = typeof error === "object" ? (error as Record<string, unknown>) : {};
      const code = typeof e["code"] === "number" ? e["code"] : -32603;
      const message = typeof e["message"] === "string" ? e["message"] : JSON.stringify(error);
      entry.reject(new JsonRpcError(entry.method, code, message, e["data"]));
    } else entry.resolve(record["result"]);
    return true;
  }

  private handleRequest(method: string, params: unknown, id: RpcId): void {
    const controller = new AbortController();
    this.inbound.set(id, controller);
    const handler = this.options.onRequest;
    const answer = (payload: Record<string, unknown>): void => {
      if (this.inbound.get(id) !== controller || this.closedReason !== undefined) return;
      this.inbound.delete(id);
      try {
        this.send({ id, ...payload });
      } catch (error) {
        this.log.log("warn", `${this.name}: could not answer ${method}`, { error });
      }
    };
    if (handler === undefined) {
      answer({ error: { code: -32601, message: `method not supported by this client: ${method}` } });
      return;
    }
    let result: unknown;
    try {
      result = handler(method, params, id, controller.signal);
    } catch (error) {
      answer({ error: errorPayload(error) });
      return;
    }
    Promise.resolve(result).then(
      (value) => answer({ result: value ?? null }),
      (error: unknown) => answer({ error: errorPayload(error) }),
    );
  }
}
