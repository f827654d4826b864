/**
 * `baton [tui] [--cwd DIR] [-c | -s ID] [--agent TARGET]`: the terminal UI. Startup order (TUI-01): config,
 * store, session (lock + recovery) before the renderer takes the terminal, so every error up to then prints
 * as plain text. Exit order (PROC-02): stop intents → close the session (harnesses, then plugin bindings and
 * their runners, then checkpoint, log, lock) → destroy the renderer → print how to resume and fork.
 */
import { TargetDirectory } from "../../controller/targets.ts";
import fs from "node:fs";
import { tokenPrefix } from "../../context/providers.ts";
import type { HarnessTarget } from "../../harness/definition.ts";
import type { HarnessRegistry } from "../../harness/registry.ts";
import { displayTitle } from "../../store/index.ts";
import { sessionRows } from "../session-rows.ts";
import { describeError } from "../../shared/errors.ts";
import { AttentionNotifier, reservedCommandNames, sanitizeTitle, startTui, titleSequence, TuiHost, type SessionSwitcher, type StartedTui, type TuiSession } from "../../tui/index.ts";
import { deferredSessionPlugins, type DeferredPlugins } from "../deferred-plugins.ts";
import { createAppContext, openSessionIn, type AppContext } from "../app-context.ts";
import type { CliIo } from "../io.ts";
import { exitHints } from "../exit-hints.ts";
import { readInboxAsync } from "../inbox.ts";
import { sessionsQuery, type OpenedSession, type SessionChoice } from "../open-session.ts";
import { lowerHelperThreads, type HelperThreads } from "../helper-threads.ts";
import { startTarget } from "../start-target.ts";
import type { TargetId } from "../../shared/ids.ts";
import { tuiRewindOf } from "../rewind-tui.ts";
import { EXIT, parse, reportError, sessionChoiceFrom, UsageError } from "./shared.ts";

const OPTIONS = {
  cwd: { type: "string" },
  continue: { type: "boolean", short: "c" },
  session: { type: "string", short: "s" },
  agent: { type: "string", short: "a" },
  root: { type: "string" },
} as const;

/** Shutdown that hangs (a wedged harness) must not keep the terminal hostage. */
const SHUTDOWN_LIMIT_MS = 15_000;
const TITLE_WAIT_MS = 3_000;
const MENTION_LIMIT = 6;

interface OpenTuiSession extends TuiSession {
  readonly opened: OpenedSession;
  readonly plugins: DeferredPlugins;
}

/** The TUI is lenient about a `defaultAgent` it cannot resolve: it starts on the first target (doctor reports it). */
function defaultTarget(registry: HarnessRegistry, defaultAgent: string): HarnessTarget {
  const match = registry.match(defaultAgent);
  if (match.kind === "match") return registry.target(match.id);
  const first = registry.listTargets()[0];
  if (first === undefined) throw new UsageError("no harness is registered");
  return first;
}

/**
 * The screen opens from a checkpoint without waiting for its ledger check; `verifyHistory` runs after the frame.
 * Plugins load and start in the background (MGR-01) once `plugins.start()` is called — after the first frame
 * for the session Baton starts with; their runners close after the harnesses, before the flush.
 */
async function open(ctx: AppContext, choice: SessionChoice): Promise<OpenTuiSession> {
  const opened = await openSessionIn(ctx, choice, {}, "deferred");
  const r = opened.recovery;
  const plugins = deferredSessionPlugins(ctx, opened, reservedCommandNames(new TargetDirectory(ctx.registry)));
  return {
    plugins,
    opened,
    sessionId: opened.ref.batonSessionId,
    cwd: opened.ref.meta.cwd,
    controller: opened.controller,
    recovered: r.turnsClosed > 0 || r.attemptsSettled > 0 || r.interactionsCancelled > 0,
    title: () => displayTitle(opened.meta()),
    rewind: tuiRewindOf(opened, { store: ctx.store, ids: ctx.ids, clock: ctx.clock, env: ctx.childEnv }),
    ...(opened.rewindRecovery.kind === "none" ? {} : { rewindRecovery: opened.rewindRecovery.message }),
    // Every registered provider answers, grouped by kind (CTX-06).
    mentions: async (query) => {
      const groups = await Promise.all(
        opened.contextProviders.list().map(async (provider) => {
          const found = await provider.search(query, { limit: MENTION_LIMIT }).catch(() => []);
          const prefix = tokenPrefix(provider.kind);
          return { group: provider.kind, items: found.map((c) => ({ id: c.id, label: c.label, ...(c.detail === undefined ? {} : { detail: c.detail }), insert: `@${prefix}:${c.id}` })) };
        }),
      );
      return groups.filter((group) => group.items.length > 0);
    },
  };
}

function switcher(ctx: AppContext, current: () => OpenTuiSession): SessionSwitcher {
  // The directory `/sessions` and `/new` use: where Baton started, until `/inbox` opens a session of another project.
  let here = ctx;
  return {
    // The open session's meta is written behind: its row shows the in-memory one.
    list: async () => {
      const open = current();
      const refs = (await here.store.listSessionsAsync(sessionsQuery(here.cwd, here.childEnv["HOME"]))).sessions;
      return sessionRows(refs.map((ref) => (ref.batonSessionId === open.sessionId ? { ...ref, meta: open.opened.meta() } : ref)));
    },
    inbox: async () => {
      const open = current();
      const rows = await readInboxAsync(here.store, {
        live: new Map([[open.sessionId, open.controller.state]]),
        onProblem: (file, message) => open.opened.log.log("warn", "inbox skipped a session", { attributes: { file, message } }),
      });
      return rows.map((row) => ({ id: row.id, cwd: row.project, title: row.id === open.sessionId ? open.title() : row.title, agent: row.agent, summary: row.summary, brief: row.brief, since: row.since }));
    },
    open: async (choice) => {
      const there = choice.kind === "id" && choice.cwd !== undefined ? { ...here, cwd: choice.cwd } : here;
      const next = await open(there, choice.kind === "new" ? { kind: "new" } : { kind: "id", id: choice.id });
      here = there;
      next.plugins.start();
      setTimeout(() => void next.opened.verifyHistory(), 0);
      return next;
    },
    close: (session) => (session as OpenTuiSession).opened.close(),
  };
}

export async function runTuiCommand(argv: readonly string[], io: CliIo): Promise<number> {
  let session: OpenTuiSession | undefined;
  // SIGTERM / SIGHUP (the terminal went away): leave the screen the normal way; main exits 128 + signal.
  const termination: Termination = { requested: false, exit: undefined };
  const stopTerminate = io.onTerminate(() => {
    termination.requested = true;
    termination.exit?.();
  });
  try {
    const { values, positionals } = parse(argv[0] === "tui" ? argv.slice(1) : argv, OPTIONS);
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const choice = sessionChoiceFrom(values);
    if (!io.stdout.isTTY || !io.stdinIsTTY) {
      io.stderr.write("baton: the terminal UI requires a real terminal (TTY). For scripts use 'baton exec' or 'baton repl'.\n");
      return EXIT.failed;
    }
    const ctx = createAppContext(io, { ...(values.cwd === undefined ? {} : { cwd: values.cwd }), ...(values.root === undefined ? {} : { home: values.root }) });
    // --agent is resolved before the session is opened, so a typo fails before anything is locked.
    const requested = values.agent === undefined ? undefined : ctx.registry.resolve(values.agent);
    session = await open(ctx, choice);
    const start = startTarget(ctx.registry, session.controller.state, requested, () => defaultTarget(ctx.registry, ctx.loaded.config.defaultAgent));
    const first = session;
    session = undefined;
    const opened = await runScreen(io, ctx, first, start.target.id, start.note, termination);
    io.stdout.write(exitHints(opened));
    return EXIT.ok;
  } catch (error) {
    return reportError(io, error);
  } finally {
    await session?.opened.close().catch(() => undefined);
    stopTerminate();
  }
}

interface Termination {
  requested: boolean;
  exit: (() => void) | undefined;
}

/** Runs the screen until exit; returns the id of the session that was open at the end (already closed). */
async function runScreen(io: CliIo, ctx: AppContext, first: OpenTuiSession, target: TargetId, note: string | undefined, termination: Termination): Promise<string> {
  let screen: StartedTui | undefined;
  const notify = ctx.loaded.config.notify;
  const attention = new AttentionNotifier({
    clock: ctx.clock,
    write: (sequence) => (io.stdout.raw ?? io.stdout).write(sequence),
    enabled: notify.enabled,
    afterMs: notify.afterSeconds * 1000,
    label: (targetId) => (targetId !== null && ctx.registry.hasTarget(targetId) ? ctx.registry.definitionOf(ctx.registry.target(targetId)).label : (targetId ?? "An agent")),
  });
  const host = new TuiHost({
    session: first,
    sessions: switcher(ctx, () => host.session as OpenTuiSession),
    initialTarget: target,
    showThoughts: ctx.loaded.config.showThoughts,
    clock: ctx.clock,
    ...(io.env["HOME"] === undefined ? {} : { home: io.env["HOME"] }),
    attention,
    setTitle: (title) => {
      // Before the renderer owns the terminal we write OSC ourselves; afterwards the renderer does.
      if (screen === undefined) (io.stdout.raw ?? io.stdout).write(titleSequence(title));
      else screen.renderer.setTerminalTitle(title);
    },
  });
  const stopInterrupt = io.onInterrupt(() => host.exit());
  termination.exit = () => host.exit();
  if (termination.requested) host.exit();
  const firstFrameFile = io.env["BATON_FIRST_FRAME_FILE"];
  let closeWaited = false;
  let helpers: HelperThreads | undefined;
  try {
    screen = await startTui(host, {
      onRendererGone: () => host.exit(),
      onFirstFrame: () => {
        if (firstFrameFile !== undefined) fs.writeFileSync(firstFrameFile, `${Date.now()}\n`);
        void first.opened.verifyHistory();
        // The frame is out: now the plugin host (a session switched to before this starts its own at once) and the
        // check that the starting agent can be found (it runs `--version` in a child process).
        setTimeout(() => {
          first.plugins.start();
          void warnIfMissing(ctx, target, host);
          helpers = lowerHelperThreads((reason) => (host.session as OpenTuiSession).opened.log.log("info", "the runtime's helper threads keep their priority", { attributes: { reason } }));
          // In a task of its own: the id library the first prompt's admission would otherwise load (≈ 2 ms).
          setTimeout(() => ctx.ids.prepare?.(), 0);
        }, 0);
      },
    });
    screen.renderer.setTerminalTitle(sanitizeTitle(titleOf(host.session)));
    screen.renderer.on("focus", () => attention.setFocused(true));
    screen.renderer.on("blur", () => attention.setFocused(false));
    if (note !== undefined) host.toast(note, "warning", 15_000);
    await host.exitRequested;
    const last = host.session as OpenTuiSession;
    host.dispose();
    attention.dispose();
    // A title being generated runs a harness process of its own; give it a moment to finish so no child
    // outlives the session (the controller does not cancel it on shutdown yet).
    const titling = last.controller.titleGeneration;
    if (titling !== undefined) await withLimit(titling.catch(() => undefined), TITLE_WAIT_MS);
    closeWaited = true;
    await withLimit(last.opened.close(), SHUTDOWN_LIMIT_MS).catch((error: unknown) => {
      io.stderr.write(`baton: closing the session: ${describeError(error)}\n`);
    });
    return last.sessionId;
  } finally {
    // After a failure this releases the session, bounded like the normal exit; after a normal exit close was
    // waited for already (up to the limit): a close still running then is not waited for a second time.
    if (!closeWaited) await withLimit((host.session as OpenTuiSession).opened.close().catch(() => undefined), SHUTDOWN_LIMIT_MS);
    helpers?.stop();
    screen?.destroy();
    stopInterrupt();
    termination.exit = undefined;
  }
}

/** After the first frame: if the agent we start with cannot be found, say so now rather than at the first prompt. */
async function warnIfMissing(ctx: AppContext, targetId: string, host: TuiHost): Promise<void> {
  try {
    const target = ctx.registry.target(targetId);
    const report = await ctx.registry.definitionOf(target).probeExecutable(target, { ...ctx.childEnv, ...target.env });
    if (report.ok) return;
    const others = ctx.registry.listTargets().filter((t) => t.id !== targetId).map((t) => `/${t.id}`);
    host.toast(`${ctx.registry.definitionOf(target).label} was not found. ${report.hint}${others.length ? ` Or switch with ${others.join(" or ")}.` : ""}`, "warning", 15_000);
  } catch {
    // a failed check must not disturb the screen; the first prompt reports the problem precisely
  }
}

function titleOf(session: TuiSession): string {
  try {
    return session.title();
  } catch {
    return "baton";
  }
}

function withLimit<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
