/** The prompt channel of one streaming `query()`: user messages are pushed in; ending it lets Claude Code exit. */
import type { SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";

export class PromptChannel implements AsyncIterable<SDKUserMessage> {
  private readonly pending: SDKUserMessage[] = [];
  private waiter: (() => void) | undefined;
  private ended = false;

  get closed(): boolean {
    return this.ended;
  }

  /** False when the channel has already ended (nothing was queued). */
  push(message: SDKUserMessage): boolean {
    if (this.ended) return false;
    this.pending.push(message);
    this.wake();
    return true;
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    for (;;) {
      const next = this.pending.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }
}
