/**
 * The Baton screen's host over a test session, as the screen benches mount it (tui, stall, plugins,
 * plugin-loops): fake target, thoughts shown, the system clock, 120 columns. Imported lazily, as each bench
 * imports the TUI only after its session is built.
 */
import type { TuiPlugins } from "../src/tui/index.ts";
import type { openTestSession } from "../tests/support/session-host.ts";
import { brand } from "../tests/support/ids.ts";

type BenchSession = Awaited<ReturnType<typeof openTestSession>>;

export async function screenHost(session: BenchSession, cwd: string, plugins?: TuiPlugins) {
  const { TuiHost } = await import("../src/tui/index.ts");
  const { systemClock } = await import("../src/shared/clock.ts");
  const { displayTitle } = await import("../src/store/index.ts");
  const host = new TuiHost({
    session: { sessionId: session.ref.batonSessionId, cwd, controller: session.controller, recovered: false, title: () => displayTitle(session.meta()), ...(plugins === undefined ? {} : { plugins }) },
    sessions: { list: async () => [], open: () => Promise.reject(new Error("not in the bench")), close: async () => undefined },
    initialTarget: brand.target("fake"),
    showThoughts: true,
    clock: systemClock,
  });
  host.resize(120);
  return host;
}
