/**
 * Mounts the real Baton screen (TuiHost + BatonApp on chat-tui) in OpenTUI's test renderer over a real
 * session in a temp BATON_HOME with scripted fake harnesses. Not a test file itself.
 */
import { afterEach } from "bun:test";
import { act } from "react";
import { testRender } from "@opentui/react/test-utils";
import { rgbToHex } from "@opentui/core";
import type { OpenedSession, SessionChoice } from "../../src/app/open-session.ts";
import { createSessionProvider } from "../../src/context/session-provider.ts";
import { sessionRows } from "../../src/app/session-rows.ts";
import { readInboxAsync } from "../../src/app/inbox.ts";
import { displayTitle } from "../../src/store/index.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { createUlidSource } from "../../src/shared/ids.ts";
import { tuiRewindOf } from "../../src/app/rewind-tui.ts";
import { BatonApp, TuiHost, type SessionSwitcher, type TuiSession } from "../../src/tui/index.ts";
import { fakeDefinition, type FakeAdapter, type FakeScript } from "../support/fake-adapter.ts";
import { makeTestHome, openTestSession, type TestHome } from "../support/session-host.ts";
import { driver, sleep, type Driver } from "./driver.ts";
import { installSyncIoGuard, type SyncIoGuard } from "./sync-io-guard.ts";
import { brand } from "../support/ids.ts";

export { tidy } from "./driver.ts";

export interface BatonMounted extends Driver {
  readonly host: TuiHost;
  readonly home: TestHome;
  readonly titles: string[];
  /** Every adapter the fake definitions built, by target id. */
  adapters(targetId?: string): FakeAdapter[];
  /** Type a line and press Enter. */
  submit(text: string): Promise<void>;
  resize(width: number, height: number): Promise<void>;
  /** Re-render until the frame contains `text` (or matches), polling real time. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Poll (with renders) until `predicate` holds. */
  until(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  /** Hex foreground colour of the first span containing `needle` (on a line containing `line`, if given). */
  colourOf(needle: string, line?: string): string | undefined;
  /** Every session opened (the first one and any switched to). */
  readonly opened: OpenedSession[];
  destroy(): Promise<void>;
}

export interface BatonMountOptions {
  readonly script?: FakeScript | (() => FakeScript);
  /** A second fake target with its own script. */
  readonly second?: FakeScript | (() => FakeScript);
  /** Id of the second target (default "other"). */
  readonly secondId?: string;
  readonly secondColor?: string;
  readonly width?: number;
  readonly height?: number;
  readonly choice?: SessionChoice;
  readonly home?: TestHome;
  readonly showThoughts?: boolean;
  /** Arm this guard around every key press and render (PROC-01). */
  readonly guard?: SyncIoGuard;
  /** Open like the real screen: the checkpoint's ledger check deferred to `opened[i].verifyHistory()`. */
  readonly verifyCheckpoint?: "sync" | "deferred";
  /** File checkpoints (and `/rewind`) on: the home's cwd should then be a git worktree. */
  readonly fileCheckpoints?: boolean;
  readonly env?: Record<string, string>;
  /** Timeline items shown and mapped at first (TuiHost's `timelineWindow`). */
  readonly timelineWindow?: number;
}

export async function mountBaton(options: BatonMountOptions = {}): Promise<BatonMounted> {
  const home = options.home ?? makeTestHome();
  const first = fakeDefinition(options.script ?? { turns: [] }, "fake");
  const secondDef =
    options.second === undefined ? undefined : Object.assign(fakeDefinition(options.second, options.secondId ?? "other"), options.secondColor === undefined ? {} : { color: options.secondColor });
  const definitions = secondDef === undefined ? [first] : [first, secondDef];
  const opened: OpenedSession[] = [];
  const wrap = (session: OpenedSession): TuiSession & { opened: OpenedSession } => ({
    opened: session,
    sessionId: session.ref.batonSessionId,
    cwd: session.ref.meta.cwd,
    controller: session.controller,
    recovered: session.recovery.turnsClosed > 0,
    title: () => displayTitle(session.meta()),
    rewind: tuiRewindOf(session, { store: home.store, ids: createUlidSource(), clock: systemClock, env: {} }),
    mentions: async (query) => {
      const found = await createSessionProvider(home.store, session.ref.batonSessionId).search(query, { limit: 6 });
      return found.length === 0 ? [] : [{ group: "session", items: found.map((c) => ({ id: c.id, label: c.label, insert: `@session:${c.id}` })) }];
    },
  });
  // `cwd`: an /inbox row of another project opens there, and /sessions and /new use it from then on (as the app does).
  let here = home.cwd;
  const open = async (choice: SessionChoice & { readonly cwd?: string }): Promise<TuiSession & { opened: OpenedSession }> => {
    const { cwd, ...chosen } = choice as SessionChoice & { readonly cwd?: string };
    const session = await openTestSession(home, {
      definitions,
      choice: chosen,
      cwd: cwd ?? here,
      ...(options.verifyCheckpoint ? { verifyCheckpoint: options.verifyCheckpoint } : {}),
      ...(options.fileCheckpoints ? { fileCheckpoints: true } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
    opened.push(session);
    here = cwd ?? here;
    return wrap(session);
  };
  const sessions: SessionSwitcher = {
    // As the app does: the open session's row shows its in-memory meta (meta.json is written behind).
    list: async () => {
      const open = host.session as TuiSession & { opened: OpenedSession };
      const refs = (await home.store.listSessionsAsync({ cwd: here })).sessions;
      return sessionRows(refs.map((ref) => (ref.batonSessionId === open.sessionId ? { ...ref, meta: open.opened.meta() } : ref)));
    },
    // As the app does (src/app/commands/tui.ts): every project's waiting sessions, the open one from memory.
    inbox: async () => {
      const open = host.session as TuiSession & { opened: OpenedSession };
      const rows = await readInboxAsync(home.store, { live: new Map([[open.sessionId, open.controller.state]]), onProblem: () => undefined });
      return rows.map((row) => ({ id: row.id, cwd: row.project, title: row.title, agent: row.agent, summary: row.summary, brief: row.brief, since: row.since }));
    },
    open: (choice) => open(choice),
    close: (session) => (session as TuiSession & { opened: OpenedSession }).opened.close(),
  };
  const titles: string[] = [];
  const session = await open(options.choice ?? { kind: "new" });
  const width = options.width ?? 100;
  const height = options.height ?? 30;
  const host = new TuiHost({
    session,
    sessions,
    initialTarget: brand.target("fake"),
    showThoughts: options.showThoughts ?? true,
    clock: systemClock,
    setTitle: (title) => titles.push(title),
    ...(options.timelineWindow === undefined ? {} : { timelineWindow: options.timelineWindow }),
  });
  host.resize(width);
  const setup = await testRender(<BatonApp host={host} />, { width, height, exitOnCtrlC: false });
  const drive = driver(setup, options.guard);
  await drive.render();
  await drive.render();
  const { render, frame } = drive;
  return {
    ...drive,
    host,
    home,
    titles,
    opened,
    adapters: (targetId = "fake") => (targetId === "fake" ? first.adapters : (secondDef?.adapters ?? [])),
    async submit(text) {
      await drive.type(text);
      await drive.keys((input) => input.pressEnter());
    },
    async resize(w, h) {
      await act(async () => {
        setup.resize(w, h);
        host.resize(w);
      });
      await render();
      await render();
    },
    async waitFor(text, timeoutMs = 3000) {
      const start = Date.now();
      for (;;) {
        await render();
        const current = frame();
        if (typeof text === "string" ? current.includes(text) : text.test(current)) return current;
        if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${String(text)} in frame:\n${current}`);
        await act(async () => {
          await sleep(10);
        });
      }
    },
    async until(predicate, timeoutMs = 3000) {
      const start = Date.now();
      while (!predicate()) {
        if (Date.now() - start > timeoutMs) throw new Error("timed out waiting for a condition");
        await act(async () => {
          await sleep(10);
        });
        await render();
      }
    },
    colourOf(needle, lineText) {
      for (const line of setup.captureSpans().lines) {
        if (lineText !== undefined && !line.spans.map((span) => span.text).join("").includes(lineText)) continue;
        for (const span of line.spans) if (span.text.includes(needle)) return rgbToHex(span.fg);
      }
      return undefined;
    },
    async destroy() {
      await act(async () => {
        setup.renderer.destroy();
      });
      host.dispose();
      for (const s of opened) await s.close().catch(() => undefined);
      if (options.home === undefined) home.cleanup();
    },
  };
}

export interface BatonScreens {
  /** A home (removed after the test), e.g. to open another session in before the screen mounts. */
  home(): TestHome;
  /** Install the sync-I/O guard (PROC-01); it is restored after the test. */
  guard(): SyncIoGuard;
  mount(options?: BatonMountOptions): Promise<BatonMounted>;
}

/**
 * The screens, guards and homes of one test file, torn down in its afterEach: the guards restored first (teardown's
 * own fs calls are no key's), then the screens destroyed, then the homes removed.
 */
export function batonScreens(): BatonScreens {
  let guards: SyncIoGuard[] = [];
  let screens: BatonMounted[] = [];
  let homes: TestHome[] = [];
  afterEach(async () => {
    for (const guard of guards) guard.restore();
    for (const screen of screens) await screen.destroy();
    for (const home of homes) home.cleanup();
    guards = [];
    screens = [];
    homes = [];
  });
  return {
    home() {
      const home = makeTestHome();
      homes.push(home);
      return home;
    },
    guard() {
      const guard = installSyncIoGuard();
      guards.push(guard);
      return guard;
    },
    async mount(options) {
      const screen = await mountBaton(options);
      screens.push(screen);
      return screen;
    },
  };
}
