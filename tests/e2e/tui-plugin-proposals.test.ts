/**
 * The loop end to end (issue #16) in the real terminal UI (tmux) with the real Codex against the mock model:
 * the loops fixture's Turn controller proposes after a turn, the card says who suggests it, `e` loads it into
 * the composer, the user edits it and sends it, and the edited text is what the model receives; `t` on the
 * next card offers the configured targets.
 */
import { expect, test } from "bun:test";
import { waitUntil } from "../support/baton-process.ts";
import { codexTuiFile } from "../support/codex-tui.ts";
import { inputMessages } from "../support/mock-responses/index.ts";
import { LOOPS_DIR } from "../support/plugin-rig.ts";
import { cardAround, EXIT_MARKER } from "../support/tmux.ts";

const tui = codexTuiFile();

test("a plugin proposes after a Codex turn; the user edits the suggestion and sends it; the model gets the edited text", async () => {
  const { t, mock } = await tui.start({
    codex: { approvalPolicy: "on-request", sandboxMode: "read-only" },
    plugins: [{ dir: LOOPS_DIR, config: { turns: "propose" } }],
    // The first turn, the session title (generated after it, on its own request), then the edited suggestion's turn.
    replies: [{ kind: "text", text: "First answer." }, { kind: "text", text: '{"title":"Greet the mock model"}' }, { kind: "text", text: "Second answer." }],
    width: 130,
    height: 40,
  });
  await t.waitFor(/Message Codex .*Ctrl\+J newline/, 30_000);
  await t.send("say hi", "First answer.");
  // The card and the footer's count are one frame: wait for both (a capture may hold part of a frame).
  let screen = await t.waitFor(/Suggested by baton-test\/loops[\s\S]*\b1 suggestion\b/, 30_000);
  const card = cardAround(screen, "Suggested by baton-test/loops");
  expect(card).toContain("Loops follow-up · baton-test/loops");
  expect(card).toContain('Follow up on "say hi" (end_turn)');
  expect(card).toContain("Enter send · e edit");
  expect(screen).toMatch(/\b1 suggestion\b/);
  // The title's request (sent after the first turn) takes its reply before the suggestion's turn can.
  await waitUntil(async () => (await mock.requests()).length === 2, 30_000, "the title's request");

  // e: the card hides and its text is in the composer; the user adds to it and sends it.
  t.keys("e");
  screen = await t.waitGone("Suggested by baton-test/loops");
  expect(screen).toMatch(/│ › Follow up on "say hi" \(end_turn\)/);
  t.type(" and keep it short");
  await t.waitFor('› Follow up on "say hi" (end_turn) and keep it short');
  t.keys("Enter");
  await t.waitFor("Second answer.", 30_000);
  // The card of the second turn's suggestion: the first one is resolved, never shown again.
  screen = await t.waitFor('Follow up on "Follow up on "say hi" (end_turn) and keep it short" (end_turn)', 30_000);
  expect(screen.match(/Suggested by baton-test\/loops/g)).toHaveLength(1);
  // t: the configured targets to choose from, the card's own marked; Esc leaves the card as it was.
  t.keys("t");
  screen = await t.waitFor("Send the suggestion to");
  expect(screen).toMatch(/❯ Codex ✓/);
  expect(screen).toContain("Claude Code");
  t.keys("Escape");
  await t.waitGone("Send the suggestion to");
  await t.waitFor("Enter send · e edit · t target");

  const requests = await mock.requests();
  expect(requests).toHaveLength(3);
  const sent = inputMessages(requests[2]!).filter((m) => m.role === "user").map((m) => m.text);
  expect(sent.at(-1)).toBe('Follow up on "say hi" (end_turn) and keep it short');
  expect(sent).toContain("say hi");
  await t.waitFor(/codex · (\S+ · )?idle/, 20_000);
  t.keys("C-d");
  await t.waitFor(`${EXIT_MARKER}0]`, 20_000);
}, 150_000);
