/** The logging port. Core, adapters and the app log through this; the store provides a file-backed writer. */
export type LogLevel = "debug" | "info" | "warn" | "error";
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export interface LogFields {
  readonly harness?: string;
  readonly harnessTargetId?: string;
  readonly turnId?: string;
  readonly error?: unknown;
  readonly attributes?: Record<string, unknown>;
}

export interface Logger {
  log(level: LogLevel, message: string, fields?: LogFields): void;
  child(component: string, fields?: Pick<LogFields, "harness" | "harnessTargetId">): Logger;
}

export function levelRank(level: LogLevel): number {
  return LOG_LEVELS.indexOf(level);
}

export const silentLogger: Logger = {
  log() {},
  child() {
    return silentLogger;
  },
};
