/**
 * A JSON-RPC 2.0 peer over newline-delimited JSON (COD-01), shared by the Codex adapter and the
 * plugin host/runner. Transports are values: it reads
 * from any async iterable of bytes and writes lines through a function, so tests run it
 * without a process. Server-initiated requests carry ids that overlap numerically with ours;
 * they are told apart by the presence of `method` and kept in a separate table.
 */
import { BatonError, describeError } from "../shared/errors.ts";
import { systemClock, type Clock, type TimerHandle } from "../shared/clock.ts";
import { LineFramer, encodeJsonLine } from "../shared/jsonl.ts";
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
  /** Answer a server-initiated request: the resolved value is the result, a throw becomes an error response. */
  readonly onRequest?: (method: string, params: unknown, id: RpcId) => unknown;
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
}

interface Pending {
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  timer: TimerHandle | undefined;
}

const MAX_LOGGED_LINE = 300;

export class JsonRpcPeer {
  private readonly transport: JsonRpcTransport;
  private readonly options: JsonRpcPeerOptions;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly name: string;
  private readonly pending = new Map<RpcId, Pending>();
  /** Server-initiated requests still being answered (separate id space from `pending`). */
  private readonly inbound = new Set<RpcId>();
  private nextId = 1;
  private closedReason: string | undefined;
  private readonly framer = new LineFramer();
  private started = false;
  private skippedLines = 0;

  constructor(options: JsonRpcPeerOptions) {
    this.options = options;
    this.transport = options.transport;
    this.log = options.log ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.name = options.name ?? "peer";
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
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const entry: Pending = { method, resolve, reject, timer: undefined };
      this.pending.set(id, entry);
      if (options.timeoutMs !== undefined) {
        const ms = options.timeoutMs;
        entry.timer = this.clock.setTimeout(() => {
          if (this.pending.get(id) !== entry) return;
          this.pending.delete(id);
          reject(new BatonError("timeout", `${this.name} did not answer ${method} within ${ms} ms`));
        }, ms);
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
    return new BatonError("harness_dead", `${this.name} connection closed (${this.closedReason ?? "closed"}) before ${method} was answered`);
  }

  private settle(id: RpcId): void {
    const entry = this.pending.get(id);
    if (entry === undefined) return;
    if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
    this.pending.delete(id);
  }

  private send(message: Record<string, unknown>): void {
    this.options.trace?.("out", message);
    this.transport.write(encodeJsonLine(message));
  }

  private async readLoop(): Promise<void> {
    let reason = "input ended";
    try {
      for await (const chunk of this.transport.input) {
        for (const line of this.framer.push(chunk)) this.handleLine(line);
        if (this.closedReason !== undefined) break;
      }
      const tail = this.framer.finish();
      if (tail !== undefined) this.handleLine(tail);
    } catch (error) {
      reason = `input failed: ${describeError(error)}`;
    }
    this.close(reason);
  }

  private handleLine(line: string): void {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.skip("non-JSON line skipped", line);
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.skip("non-object JSON line skipped", line);
      return;
    }
    this.options.trace?.("in", message);
    const record = message as Record<string, unknown>;
    const method = record["method"];
    const id = record["id"];
    const hasId = typeof id === "number" || typeof id === "string";
    if (typeof method === "string") {
      if (hasId) this.handleRequest(method, record["params"], id);
      else this.handleNotification(method, record["params"]);
      return;
    }
    if (hasId && ("result" in record || "error" in record)) {
      this.handleResponse(id, record);
      return;
    }
    this.skip("malformed JSON-RPC message skipped", line);
  }

  private skip(what: string, line: string): void {
    this.skippedLines++;
    this.log.log("warn", `${this.name}: ${what}`, { attributes: { line: line.slice(0, MAX_LOGGED_LINE) } });
  }

  private handleNotification(method: string, params: unknown): void {
    try {
      this.options.onNotification?.(method, params);
    } catch (error) {
      this.log.log("error", `${this.name}: notification handler for ${method} threw`, { error });
    }
  }

  private handleResponse(id: RpcId, record: Record<string, unknown>): void {
    const entry = this.pending.get(id);
    if (entry === undefined) {
      this.log.log("debug", `${this.name}: late or unknown response ignored`, { attributes: { id } });
      return;
    }
    this.settle(id);
    const error = record["error"];
    if (error !== undefined && error !== null) {
      const e = typeof error === "object" ? (error as Record<string, unknown>) : {};
      const code = typeof e["code"] === "number" ? e["code"] : -32603;
      const message = typeof e["message"] === "string" ? e["message"] : JSON.stringify(error);
      entry.reject(new JsonRpcError(entry.method, code, message, e["data"]));
      return;
    }
    entry.resolve(record["result"]);
  }

  private handleRequest(method: string, params: unknown, id: RpcId): void {
    this.inbound.add(id);
    const handler = this.options.onRequest;
    const answer = (payload: Record<string, unknown>): void => {
      if (!this.inbound.delete(id) || this.closedReason !== undefined) return;
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
      result = handler(method, params, id);
    } catch (error) {
      answer({ error: { code: -32603, message: describeError(error) } });
      return;
    }
    Promise.resolve(result).then(
      (value) => answer({ result: value ?? null }),
      (error: unknown) => answer({ error: { code: -32603, message: describeError(error) } }),
    );
  }
}
