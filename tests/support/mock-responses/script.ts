/** The mock Responses API's script vocabulary, shared by the server process and the test helper. */

export interface MockUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cached_tokens?: number;
  readonly reasoning_tokens?: number;
}

/** One scripted reply to one `POST /v1/responses`, consumed in order. An empty queue answers "ok". */
export type MockReply =
  /** An assistant message streamed as deltas (`chunkSize` chars each, `delayMs` between them), optionally after reasoning. */
  | {
      readonly kind: "text";
      readonly text: string;
      readonly chunkSize?: number;
      readonly delayMs?: number;
      readonly reasoning?: readonly string[];
      readonly usage?: MockUsage;
    }
  /** An `exec_command` function call; `escalate` asks for `require_escalated` sandbox permissions (an approval under on-request). */
  | { readonly kind: "exec"; readonly cmd: string; readonly escalate?: boolean; readonly justification?: string; readonly callId?: string }
  /** A freeform `apply_patch` custom tool call. */
  | { readonly kind: "apply_patch"; readonly patch: string; readonly callId?: string }
  /** A stream ending in `response.failed`. */
  | { readonly kind: "fail"; readonly message: string; readonly code?: string }
  /** A plain HTTP error (e.g. 500) with a body. */
  | { readonly kind: "http_error"; readonly status: number; readonly body: string }
  /** Headers and `response.created`, then nothing until the client goes away. */
  | { readonly kind: "hang" };

export interface MockRequest {
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly receivedAt: number;
  /** Which reply answered it (undefined for control endpoints). */
  readonly reply?: MockReply["kind"] | "default";
  /** True when the client closed the stream before it finished (interrupt, steer). */
  aborted?: boolean;
}

export const DEFAULT_USAGE: MockUsage = { input_tokens: 100, output_tokens: 20, cached_tokens: 10, reasoning_tokens: 0 };
