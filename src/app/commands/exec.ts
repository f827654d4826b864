/**
 * `baton exec`: one driven turn in a new or existing session, then exit. The interface scripts and CI
 * depend on: exit 0 completed, 1 failed, 2 usage/config, 130 interrupted; `--json` prints every
 * appended envelope exactly as stored.
 */
import { approvalPolicy } from "../../interaction/policy.ts";
import { isStorageFailure } from "../../controller/storage-guard.ts";
import { withHint } from "../../controller/turn-errors.ts";
import { terminalJson } from "../../shared/terminal-text.ts";
import { createAppContext, openSessionIn } from "../app-context.ts";
import { withIo, type CliIo } from "../io.ts";
import type { OpenedSession } from "../open-session.ts";
import { checkConfigChoices, type ConfigChoices } from "../config-choice.ts";
import { startCliPlugins, type CliPlugins } from "../cli-plugins.ts";
import { StreamPrinter } from "../stream-printer.ts";
import { pausedNote } from "../paused-inputs.ts";
import { EXIT, parse, reportError, sessionChoiceFrom, UsageError, type Parsed } from "./shared.ts";
import { watchStops, type StopWatch } from "./stop-watch.ts";
import { harnessPrelaunch } from "../harnesses.ts";
import { EXEC_OPTIONS } from "./exec-options.ts";
import { resolveCwd, type SessionLock } from "../../store/index.ts";


/** How long a run waits for the plugins' reconciles after its turn (their suggestions are printed). */
const PLUGIN_SETTLE_MS = 10_000;

/** The longest `--timeout` a timer can wait (2^31 ms, about 24 days). */
const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** `--timeout <seconds>`: a positive number up to MAX_TIMEOUT_SECONDS, in milliseconds. */
function timeoutMsOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_TIMEOUT_SECONDS) {
    throw new UsageError(`--timeout takes a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}, not '${value}'`);
  }
  return Math.max(1, Math.round(seconds * 1000));
}

export async function runExec(argv: readonly string[], io: CliIo): Promise<number> {
  let values: Parsed<typeof EXEC_OPTIONS>["values"];
  let positionals: string[];
  try {
    ({ values, positionals } = parse(argv, EXEC_OPTIONS));
  } catch (error) {
    return reportError(io, error);
  }
  const stops = watchStops(io);
  const prelaunch = harnessPrelaunch(io.definitions, io.prestart);
  let hold: SessionLock | undefined;
  try {
    const approve = values.approve ?? "deny";
    if (approve !== "deny" && approve !== "allow") throw new UsageError(`--approve takes 'deny' or 'allow', not '${approve}'`);
    const choice = sessionChoiceFrom(values);
    const timeoutMs = timeoutMsOf(values.timeout);
    let prompt = positionals.join(" ");
    // A prompt read from a pipe was not typed: @session references in it stay text.
    const piped = positionals.length === 1 && positionals[0] === "-";
    if (piped) prompt = (await io.stdin.readAll()).replace(/\n$/, "");
    if (prompt.trim().length === 0) throw new UsageError("exec needs a prompt: baton exec [options] [--] <prompt…>  (use - to read it from stdin)");
    const ctx = createAppContext(withIo(io, { definitions: prelaunch.definitions }), values.cwd === undefined ? {} : { cwd: values.cwd });
    const requested = values.agent === undefined ? undefined : ctx.registry.resolve(values.agent);
    const fallback = () => ctx.registry.resolve(ctx.loaded.config.defaultAgent);
    const typed = { model: values.model, effort: values.effort };
    // A new session has no last target; with --agent the target is known too. Its harness starts now, beside
    // the session open (guessing the session's directory for an existing one: the adapter adopts only an exact match).
    const known = requested ?? (choice.kind === "new" ? fallback() : undefined);
    if (known !== undefined) await prelaunch.start(known, { env: ctx.childEnv, cwd: directoryOf(ctx.cwd), clock: ctx.clock });
    // A bad defaultAgent, --model or --effort fails before a session is created.
    let checked: ConfigChoices | undefined;
    if (choice.kind === "new" && known !== undefined) checked = await checkConfigChoices(ctx.registry, known, typed, ctx.preferences.get("model", known.id));
    // A one-shot run ends with its turn; the title is generated the next time the session is used.
    const session = await openSessionIn(ctx, choice, { generateTitles: false });
    // Codex exits beside the session's close (the prelaunch waits for it): the session stays locked until it has.
    hold = ctx.store.acquireLock(session.ref);
    let code: number;
    if (session.rewindRecovery.kind !== "none") io.stderr.write(`baton: ${session.rewindRecovery.message}\n`);
    try {
      // Loaded with the session's code (the projection), after the harness's start: not on the way to it.
      const { startTarget } = await import("../start-target.ts");
      const start = startTarget(ctx.registry, session.controller.state, requested, fallback);
      const target = start.target;
      if (start.note !== undefined) io.stderr.write(`baton: ${start.note}\n`);
      const paused = pausedNote(session.controller, session.ref.batonSessionId);
      if (paused !== undefined) io.stderr.write(`baton: ${paused}\n`);
      const config = session.controller.config;
      // Only values the target's catalog offers are applied and remembered (as /model does).
      checked ??= await checkConfigChoices(ctx.registry, target, typed, config.current(target.id, "model"));
      if (checked.model !== undefined) await config.set(target.id, "model", checked.model);
      if (checked.effort !== undefined) await config.set(target.id, "effort", checked.effort);
      const plugins = await startCliPlugins(ctx, session, io);
      code = await runOneTurn(io, session, target.id, { text: prompt, piped, timeoutMs }, approve, values.json === true, ctx.loaded.config.showThoughts, stops, plugins);
    } finally {
      await session.close();
    }
    // A write that failed after a completed turn (meta.json's updatedAt) is said too, once, and fails the run.
    const failure = session.controller.storage.failure;
    if (failure === undefined || code !== EXIT.ok) return code;
    io.stderr.write(`baton: ${withHint(failure)}\n`);
    return EXIT.failed;
  } catch (error) {
    return reportError(io, error);
  } finally {
    // A harness started ahead and never adopted (an error before the turn, a stop, another target) is stopped and reaped.
    await prelaunch.release();
    hold?.release();
    stops.dispose();
  }
}

/** The session directory a new session in `cwd` gets (resolved like the store does); unreadable: `cwd` as given (the open fails on it). */
function directoryOf(cwd: string): string {
  try {
    return resolveCwd(cwd);
  } catch {
    return cwd;
  }
}

async function runOneTurn(
  io: CliIo,
  session: OpenedSession,
  targetId: string,
  input: { readonly text: string; readonly piped: boolean; readonly timeoutMs: number | undefined },
  approve: "deny" | "allow",
  json: boolean,
  showThoughts: boolean,
  stops: StopWatch,
  plugins: CliPlugins,
): Promise<number> {
  const controller = session.controller;
  controller.setInteractionPolicy(approvalPolicy(approve));
  const printer = new StreamPrinter({ out: io.stdout, err: io.stderr, showThoughts });
  let turnId: string | undefined;
  let stopReason: string | undefined;
  let errorShown = false;
  const unsubscribe = controller.subscribe((event) => {
    if (json) io.stdout.write(`${terminalJson(event)}\n`);
    else printer.handle(event);
    if (turnId === undefined && event.kind === "state_update" && event.source.type === "baton" && event.turnId) {
      turnId = event.turnId;
      // A stop that arrived while the prompt was being prepared (e.g. @-mentions expanding) applies to its turn.
      if (stops.requested) queueMicrotask(() => controller.interrupt());
    }
    if (event.kind === "_baton_error_update" && event.turnId === turnId && !json) errorShown = true;
    if (event.kind === "_baton_turn_summary" && event.turnId === turnId) {
      stopReason = (event.payload as { stopReason?: string }).stopReason;
    }
  });
  // --timeout: a turn still running then is cancelled like Ctrl+C, and the exit status says why (124, as timeout(1)).
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = input.timeoutMs;
  const expire = (): void => {
    if (!timedOut) io.stderr.write(`\nbaton: the turn ran longer than --timeout (${(limit ?? 0) / 1000} s); cancelling it…\n`);
    timedOut = true;
    // Still starting (no turn to interrupt yet): try again shortly, until the turn ends.
    if (!controller.interrupt()) timer = setTimeout(expire, 100);
  };
  if (limit !== undefined) timer = setTimeout(expire, limit);
  let code: number;
  try {
    if (stops.requested) return EXIT.interrupted;
    const prompt = input.text;
    const submitted = controller.submit(targetId, [{ type: "text", text: prompt }], { displayText: prompt, ...(input.piped ? { untyped: [prompt] } : {}) });
    stops.attach(controller);
    const outcome = await submitted;
    // 130 only when the user interrupted (after a signal the process exits 128 + signal); a turn the harness
    // itself cancelled (e.g. after a denied approval) did not complete: 1.
    code = outcome === "completed" ? EXIT.ok : timedOut ? EXIT.timedOut : outcome === "interrupted" && stops.requested ? EXIT.interrupted : EXIT.failed;
  } catch (error) {
    printer.endLine();
    // A full disk is said once: by the turn's error line when the ledger could still take it, else here.
    if (!(errorShown && isStorageFailure(error))) io.stderr.write(`baton: ${withHint(error)}\n`);
    stopReason ??= "error";
    code = timedOut ? EXIT.timedOut : EXIT.failed;
  } finally {
    clearTimeout(timer);
    // The run is done with its harness. Without plugins nothing else reads the turn, so the harness closes now, beside
    // the ledger's sync (Codex exits 20–30 ms after its stdin's EOF); the session's close waits for the same shutdown.
    const harnessesClosed = plugins.active ? undefined : controller.shutdown().catch(() => undefined);
    // What the plugins make of the turn (a suggestion line) is shown before the run ends.
    if (!stops.requested) await plugins.settle(PLUGIN_SETTLE_MS);
    await harnessesClosed;
    unsubscribe();
  }
  printer.endLine();
  io.stderr.write(`baton: session ${session.ref.batonSessionId} turn ${turnId ?? "-"} ${stopReason ?? "unknown"}\n`);
  return code;
}
