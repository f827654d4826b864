/** A bound on a wire call: process-management waits use real timers (they bound OS effects, not domain time). */
import { BatonError } from "../../shared/errors.ts";

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BatonError("timeout", `${what} did not answer within ${Math.round(ms / 1000)} s`)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
