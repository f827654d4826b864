/**
 * What stops a one-shot command from outside: Ctrl+C, SIGTERM / SIGHUP, a closed output pipe. Listening for the
 * command's whole life (open → turn → close) keeps the process from exiting at once on a signal that arrives while
 * the session is being opened or closed; a turn running when it arrives is interrupted (cancelled within the
 * cancel grace), and one not started yet is never started.
 */
import type { CliIo } from "../io.ts";

export interface Interruptible {
  /** Interrupt the active turn; false when none runs. */
  interrupt(): boolean;
}

export interface StopWatch {
  /** A stop was asked for (by any of the signals). */
  readonly requested: boolean;
  /** Interrupt `target`'s turn now if a stop was already asked for, and on every later one. */
  attach(target: Interruptible): void;
  dispose(): void;
}

export function watchStops(io: CliIo): StopWatch {
  let requested = false;
  let target: Interruptible | undefined;
  const stop = (message: string | undefined): void => {
    if (requested) return;
    requested = true;
    if (message !== undefined) io.stderr.write(`\nbaton: ${message}\n`);
    target?.interrupt();
  };
  const offInterrupt = io.onInterrupt(() => stop("interrupting the turn…"));
  // A reader that went away (SIGPIPE) is no news to anyone: stop quietly.
  const offTerminate = io.onTerminate((signal) => stop(signal === "SIGPIPE" ? undefined : `${signal}: cancelling the turn and closing the session…`));
  return {
    get requested() {
      return requested;
    },
    attach(next) {
      target = next;
      if (requested) next.interrupt();
    },
    dispose() {
      offInterrupt();
      offTerminate();
    },
  };
}
