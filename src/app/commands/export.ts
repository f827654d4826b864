/**
 * `baton export <bs_id> [--format md|json] [--output FILE]`: the reduced transcript, read-only (no lock, no
 * writes to the session).
 *
 * Streamed: the output is made and written a piece at a time (a table entry, a list item, a transcript
 * window; `plainStateJson`, `transcriptMarkdownPieces`) in batches of `BATCH_CHARS`, waiting while the pipe
 * is full, so memory does not grow with the session beyond the open itself (with a checkpoint, old turns are
 * read from its node file as they are written and evicted again, `EXPORT_CACHE_BYTES`; a table's ids are
 * collected first, ≈ 50 bytes each). The bytes are those of the whole-string export this replaced. Without a
 * valid checkpoint the open is a full replay and holds the whole projection: only the output stops adding to it.
 *
 * A failure part-way (a full disk, an unreadable checkpoint node, Ctrl+C, SIGTERM) says so in one line on
 * stderr and exits non-zero. With `--output` the export goes to a temp file beside FILE, is synced and then
 * renamed over it, so FILE is either the complete export or what it was before (nothing, or the previous
 * file); the temp is removed. On stdout what was written stays written: a JSON export cut short is not valid
 * JSON (its closing braces are missing) and the exit status is 1. A corrupt ledger line fails the open,
 * before anything is written.
 */
import fs from "node:fs";
import * as path from "node:path";
import { createSessionStore, loadState } from "../../store/index.ts";
import { initialState, plainStateJson, type ProjectionState } from "../../projection/index.ts";
import { systemClock } from "../../shared/clock.ts";
import { BatonError, describeError } from "../../shared/errors.ts";
import { terminalJsonText, TerminalSafeStream } from "../../shared/terminal-text.ts";
import { createUlidSource } from "../../shared/ids.ts";
import { batonHome } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { projectionFold } from "../open-session.ts";
import { displayTitle } from "../../store/display.ts";
import { NODE_CACHE } from "../../store/checkpoint-nodes.ts";
import { syncDirQuietly, tempPathFor } from "../../store/files.ts";
import { formatBytes, freeBytes, isDiskFullError } from "../../store/write-errors.ts";
import type { SessionRef } from "../../store/sessions.ts";
import { transcriptMarkdownPieces } from "../transcript-markdown.ts";
import { EXIT, parse, reportError, UsageError } from "./shared.ts";

const OPTIONS = { format: { type: "string", short: "f" }, output: { type: "string", short: "o" } } as const;

/** Characters gathered before one write: big enough that a write is cheap, small enough to bound memory. */
export const BATCH_CHARS = 1024 * 1024;

/**
 * The checkpoint node cache while an export runs (`NODE_CACHE`): the export reads each old record once, in
 * order, so it keeps little more than the tables' inner nodes and leaves it walks again for every id.
 */
export const EXPORT_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * Resident memory an export may add over what it had when it started writing; past it, it collects garbage
 * after each batch. What an export keeps is bounded (≈ 16–20 MB of heap at any length), but the runtime lets
 * a long export's garbage pile up: peak RSS 146 / 231 MB at 100k / 300k events without this, 95 / 98 MB with
 * it, for about twice the time (0.74 → 1.40 s at 300k, 73 MB of JSON; one run each, shared machine).
 */
export const EXPORT_RSS_SLACK = 32 * 1024 * 1024;

/** Collects garbage when the resident set has grown `EXPORT_RSS_SLACK` past the last mark. */
export function memoryKeeper(): () => void {
  const limit = process.memoryUsage.rss() + EXPORT_RSS_SLACK;
  return () => {
    if (process.memoryUsage.rss() > limit) Bun.gc(true);
  };
}

export type Format = "md" | "json";

export async function runExport(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    const format = values.format ?? "md";
    if (format !== "md" && format !== "json") throw new UsageError(`--format takes 'md' or 'json', not '${format}'`);
    const id = positionals[0];
    if (!id || positionals.length > 1) throw new UsageError("usage: baton export <bs_id> [--format md|json] [--output FILE]");
    if (values.output === "") throw new UsageError("--output takes a file name");
    const target = values.output === undefined ? undefined : path.resolve(io.cwd, values.output);
    const store = createSessionStore({ home: batonHome(io.env), clock: systemClock, ids: createUlidSource() });
    const ref = store.findSession(id);
    const ledger = store.openLedger(ref, { readOnly: true });
    const cacheBytes = NODE_CACHE.maxBytes;
    NODE_CACHE.maxBytes = Math.min(cacheBytes, EXPORT_CACHE_BYTES);
    try {
      // A read-only fold: the checkpoint is used when valid but never written from here.
      const { state } = loadState(ledger, { ...projectionFold, initial: () => initialState(ref.batonSessionId) });
      const text = exportText(format, ref, state);
      if (target === undefined) return await toStdout(io, text);
      return await toFile(io, text, target);
    } finally {
      NODE_CACHE.maxBytes = cacheBytes;
      await ledger.close();
    }
  } catch (error) {
    return reportError(io, error);
  }
}

/** The export's text in terminal-safe batches (JSON escaped as `terminalJson` does; Markdown through `TerminalSafeStream`). */
export function* exportText(format: Format, ref: Pick<SessionRef, "meta" | "batonSessionId">, state: ProjectionState): Generator<string> {
  if (format === "json") {
    const pieces = (function* (): Generator<string> {
      yield `{"meta":${JSON.stringify(ref.meta)},"projection":`;
      yield* plainStateJson(state);
      yield "}\n";
    })();
    for (const batch of batches(pieces)) yield terminalJsonText(batch);
    return;
  }
  const safe = new TerminalSafeStream();
  const header = { title: displayTitle(ref.meta), batonSessionId: ref.batonSessionId, cwd: ref.meta.cwd, createdAt: ref.meta.createdAt };
  for (const batch of batches(transcriptMarkdownPieces(state, header))) yield safe.push(batch);
  yield safe.flush();
}

function* batches(pieces: Iterable<string>): Generator<string> {
  let parts: string[] = [];
  let chars = 0;
  for (const piece of pieces) {
    parts.push(piece);
    chars += piece.length;
    if (chars >= BATCH_CHARS) {
      yield parts.join("");
      parts = [];
      chars = 0;
    }
  }
  if (parts.length > 0) yield parts.join("");
}

/** A reader that went away (`| head`): the export stops quietly, as SIGPIPE ends other tools (status 141). */
const PIPE_CLOSED = "the reader closed the pipe";

/** Stops the export at Ctrl+C or a termination signal (the caller cleans up and returns). */
function watchStop(io: CliIo): { readonly stopped: () => string | undefined; readonly dispose: () => void } {
  let reason: string | undefined;
  const offInterrupt = io.onInterrupt(() => (reason ??= "interrupted"));
  const offTerminate = io.onTerminate((signal) => (reason ??= signal === "SIGPIPE" ? PIPE_CLOSED : `stopped by ${signal}`));
  return {
    stopped: () => reason,
    dispose: () => {
      offInterrupt();
      offTerminate();
    },
  };
}

/** Read errors part-way (a checkpoint node that cannot be read) as one line. */
function exportFailed(error: unknown, where: string): BatonError {
  if (error instanceof BatonError) return error;
  return new BatonError("ledger_io", `the export stopped part-way: ${describeError(error)}`, { cause: error, hint: where });
}

async function toStdout(io: CliIo, text: Iterable<string>): Promise<number> {
  const out = io.stdout.raw ?? io.stdout;
  const stop = watchStop(io);
  const keepMemory = memoryKeeper();
  try {
    for (const batch of guarded(text, "what was written to stdout is incomplete")) {
      const reason = stop.stopped();
      if (reason !== undefined) {
        if (reason !== PIPE_CLOSED) io.stderr.write(`baton: export ${reason}: what was written to stdout is incomplete\n`);
        return reason === "interrupted" ? EXIT.interrupted : EXIT.failed;
      }
      out.write(batch);
      // Wait while the pipe is full (and let the job end, so the checkpoint cache can free evicted records).
      await (out.drain?.() ?? Promise.resolve());
      await new Promise<void>((resolve) => setImmediate(resolve));
      keepMemory();
    }
    return EXIT.ok;
  } finally {
    stop.dispose();
  }
}

async function toFile(io: CliIo, text: Iterable<string>, target: string): Promise<number> {
  const temp = tempPathFor(target);
  const stop = watchStop(io);
  const keepMemory = memoryKeeper();
  let handle: fs.promises.FileHandle | undefined;
  let written = 0;
  try {
    handle = await fs.promises.open(temp, "wx");
    for (const batch of guarded(text, `${target} was not written`)) {
      const reason = stop.stopped();
      if (reason !== undefined) {
        io.stderr.write(`baton: export ${reason}: ${target} was not written\n`);
        return reason === "interrupted" ? EXIT.interrupted : EXIT.failed;
      }
      const bytes = Buffer.from(batch);
      for (let at = 0; at < bytes.byteLength; ) {
        const { bytesWritten } = await handle.write(bytes, at, bytes.byteLength - at);
        if (bytesWritten <= 0) throw Object.assign(new Error("ENOSPC: no space left on device, write (no progress)"), { code: "ENOSPC" });
        at += bytesWritten;
        written += bytesWritten;
      }
      keepMemory();
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.promises.rename(temp, target);
    syncDirQuietly(path.dirname(target));
    return EXIT.ok;
  } catch (error) {
    throw fileError(error, target, written);
  } finally {
    stop.dispose();
    await handle?.close().catch(() => undefined);
    await fs.promises.unlink(temp).catch(() => undefined);
  }
}

function fileError(error: unknown, target: string, written: number): BatonError {
  if (error instanceof BatonError) return error;
  if (isDiskFullError(error)) {
    const free = freeBytes(path.dirname(target));
    const figures = [`${formatBytes(written)} written`, ...(free === undefined ? [] : [`${formatBytes(free)} free there`])].join(", ");
    return new BatonError("disk_full", `the disk is full: could not write ${target} (${figures}); it was not written`, { cause: error, hint: "free some disk space (or choose another --output), then export again" });
  }
  return new BatonError("ledger_io", `cannot write ${target}: ${describeError(error)}; it was not written`, { cause: error });
}

/** `text`, with an error while it is being made (reading a checkpoint node) turned into one line saying `where`. */
function* guarded(text: Iterable<string>, where: string): Generator<string> {
  const iterator = text[Symbol.iterator]();
  for (;;) {
    let step: IteratorResult<string>;
    try {
      step = iterator.next();
    } catch (error) {
      throw exportFailed(error, where);
    }
    if (step.done === true) return;
    yield step.value;
  }
}
