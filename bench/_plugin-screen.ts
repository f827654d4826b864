/**
 * The plugin loops measured to the screen (issue #16), for bench/plugin-loops.ts: the Baton screen (TuiHost +
 * BatonApp in OpenTUI's test renderer, 150x40, the renderer scheduling its own frames as the real one does:
 * a render request draws at most 1/60 s after the previous frame) over a real session with the fake harness
 * and two real plugin runners, the loops fixture (a suggestion after every turn) and the board fixture
 * (its Cards on the Board, inline at 150 columns).
 *
 * - turn end → card on screen: from the turn's `_baton_turn_summary` (appended) to the first drawn frame
 *   that shows the suggestion the loops fixture made of that turn; the ledger time of its
 *   `interaction.opened` alongside.
 * - Board publish with 100 presented Cards: one Card's spec changes → the manager publishes a Board with
 *   the new title (store change, runner `present`, the selector over 100 entries) → the first frame that
 *   shows it; and the selector alone over the 100 presented entries.
 */
import path from "node:path";
import type { OpenedSession } from "../src/app/open-session.ts";
import type { AnyEvent } from "../src/event/envelope.ts";

export interface ScreenFigures {
  /** Turn end → suggestion card drawn, ms per round. */
  readonly cardOnScreen: number[];
  /** Turn end → `interaction.opened` appended, ms per round (the same rounds). */
  readonly cardInLedger: number[];
  /** A Card's spec changed → Board published (100 presented), ms per round. */
  readonly boardPublished: number[];
  /** A Card's spec changed → the Board drawn with it, ms per round. */
  readonly boardOnScreen: number[];
  /** The selector over the published inputs (100 presented Cards), ms per call. */
  readonly boardSelect: number[];
}

const CARD = { apiVersion: "board.baton.dev/v1", kind: "Card" };
const CARDS = 100;
const WIDTH = 150;

export async function measureOnScreen(rounds: number): Promise<ScreenFigures> {
  const [{ act, createElement }, { testRender }] = await Promise.all([
    import("react").then((react) => ({ act: react.act, createElement: react.createElement })),
    import("@opentui/react/test-utils"),
  ]);
  const { BatonApp, TuiHost } = await import("../src/tui/index.ts");
  const { systemClock } = await import("../src/shared/clock.ts");
  const { targetIdOf } = await import("../src/shared/ids.ts");
  const { displayTitle } = await import("../src/store/index.ts");
  const { createCatalog, sessionPlugins } = await import("../src/app/plugins.ts");
  const { selectBoard } = await import("../src/plugin/board.ts");
  const { fakeDefinition } = await import("../tests/support/fake-adapter.ts");
  const { makeTestHome, openTestSession } = await import("../tests/support/session-host.ts");
  const { BOARD_DIR, LOOPS_DIR, npmEnv } = await import("../tests/support/plugin-rig.ts");

  const home = makeTestHome();
  const ctx = { home: home.home, childEnv: npmEnv(path.dirname(home.home)) } as never;
  const catalog = createCatalog(ctx);
  const loops = await catalog.install(LOOPS_DIR);
  await catalog.settings.upsert(`${loops.receipt.pluginId}@${loops.receipt.marketplace}`, { enabled: false, version: loops.receipt.version, config: { turns: "propose" } });
  await catalog.enable({ pluginId: "baton-test/loops" }, async () => true);
  await catalog.install(BOARD_DIR);
  await catalog.enable({ pluginId: "baton-test/board" }, async () => true);

  const turns = Array.from({ length: rounds + 1 }, (_, i) => [{ type: "text" as const, text: `answer ${i}` }]);
  const session: OpenedSession = await openTestSession(home, { definitions: [fakeDefinition({ turns }, "fake")] });
  const plugins = sessionPlugins(ctx, session, new Set(["exit", "model"]));
  const report = await plugins.manager.start();
  if (plugins.manager.activeBindings().length !== 2) throw new Error(`the fixtures did not start: ${JSON.stringify(report)}`);
  const host = new TuiHost({
    session: { sessionId: session.ref.batonSessionId, cwd: home.cwd, controller: session.controller, recovered: false, title: () => displayTitle(session.meta()), plugins },
    sessions: { list: async () => [], open: () => Promise.reject(new Error("not in the bench")), close: async () => undefined },
    initialTarget: targetIdOf("fake"),
    showThoughts: true,
    clock: systemClock,
  });
  host.resize(WIDTH);
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  const setup = await testRender(createElement(BatonApp, { host }), { width: WIDTH, height: 40, exitOnCtrlC: false });
  await act(async () => {
    await setup.renderOnce();
    await setup.renderOnce();
  });
  // From here the renderer draws on its own (as the live one does); React commits outside act().
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;

  /** Resolves at the first frame drawn after now whose text matches; a few ms of slack per frame is the check. */
  const frameShowing = (text: string, timeoutMs = 10_000): Promise<number> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        setup.renderer.off("frame", onFrame);
        reject(new Error(`no frame showed ${JSON.stringify(text)} within ${timeoutMs} ms:\n${setup.captureCharFrame()}`));
      }, timeoutMs);
      const onFrame = (): void => {
        const at = performance.now();
        if (!setup.captureCharFrame().includes(text)) return;
        clearTimeout(timer);
        setup.renderer.off("frame", onFrame);
        resolve(at);
      };
      setup.renderer.on("frame", onFrame);
    });

  const figures: ScreenFigures = { cardOnScreen: [], cardInLedger: [], boardPublished: [], boardOnScreen: [], boardSelect: [] };
  try {
    // Turn end → card, `rounds` times (plus one warm-up round not counted).
    for (let i = 0; i <= rounds; i++) {
      const prompt = `prompt ${i}`;
      let endedAt = 0;
      let openedAt = 0;
      const stop = session.controller.subscribe((event: AnyEvent) => {
        if (event.kind === "_baton_turn_summary" && endedAt === 0) endedAt = performance.now();
        if (event.kind === "interaction.opened" && endedAt > 0 && openedAt === 0) openedAt = performance.now();
      });
      const drawn = frameShowing(`Follow up on "${prompt}" (end_turn)`);
      host.send(targetIdOf("fake"), prompt);
      const at = await drawn;
      stop();
      if (endedAt === 0 || openedAt === 0) throw new Error("the turn summary or the suggestion was not seen");
      if (i > 0) {
        figures.cardOnScreen.push(at - endedAt);
        figures.cardInLedger.push(openedAt - endedAt);
      }
      for (const p of session.controller.proposals.pending()) session.controller.proposals.dismiss(p.interactionId);
      host.publish();
      await plugins.manager.idle();
    }

    // The Board: 100 presented Cards, then one Card's title changes per round.
    const board = plugins.manager.activeBindings().find((b) => b.instance.pluginId === "baton-test/board");
    const store = board?.resources;
    if (board === undefined || store === undefined) throw new Error("no board binding");
    for (let i = 0; i < CARDS; i++) await store.create({ ...CARD, metadata: { name: `c${i}` }, spec: { title: `card ${i}`, priority: i % 10, body: "" } });
    const settled = (title: string): Promise<number> =>
      new Promise((resolve) => {
        const off = plugins.manager.onBoard((b) => {
          if (!b.sections.some((s) => s.items.some((item) => item.title === title))) return;
          off();
          resolve(performance.now());
        });
      });
    await Promise.race([settled("card 99"), Bun.sleep(10_000).then(() => Promise.reject(new Error("the 100 Cards were not presented")))]);
    await board.board?.idle();
    await frameShowing("card 99");
    const inputs = board.boardInputs();
    const presented = inputs.reduce((n, group) => n + group.entries.length, 0);
    if (presented !== CARDS) throw new Error(`${presented} Cards presented, not ${CARDS}`);
    for (let i = 0; i < 2_000; i++) {
      const s = performance.now();
      selectBoard(inputs);
      figures.boardSelect.push(performance.now() - s);
    }
    for (let i = 0; i <= rounds; i++) {
      // The top Card (priority 9, newest) gets a new title: it is on the Board and on screen.
      const title = `Ship round ${i}`;
      const published = settled(title);
      const drawn = frameShowing(title);
      const s = performance.now();
      await store.replaceSpec({ ...CARD, name: "c99" }, { title, priority: 9, body: "" });
      const [p, d] = await Promise.all([published, drawn]);
      if (i > 0) {
        figures.boardPublished.push(p - s);
        figures.boardOnScreen.push(d - s);
      }
    }
  } finally {
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    await act(async () => setup.renderer.destroy());
    host.dispose();
    await session.close();
    home.cleanup();
  }
  return figures;
}
