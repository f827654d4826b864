/**
 * The pre-screen session picker (CLI-03/04): `baton resume` / `baton fork` without an id on a terminal.
 * chat-tui's picker over an otherwise empty screen; Enter chooses, Esc or Ctrl+C twice quits.
 * Type to filter by title, id or directory.
 */
import { createRoot } from "@opentui/react";
import { ChatApp, createChatStore, type ChatIntent, type PickerItem } from "chat-tui";
import type { SessionListing } from "./session-port.ts";
import { sessionPickerItem } from "./session-rows.ts";
import { createBatonRenderer } from "./start-tui.tsx";

/** Rows in lineage order, shown like `/sessions` shows them (TREE-01/02). */
export async function pickSession(title: string, sessions: readonly SessionListing[]): Promise<string | undefined> {
  const items: PickerItem[] = sessions.map((session) => sessionPickerItem(session));
  const store = createChatStore({
    timeline: { items: [], header: { title: "baton", hint: `${title} · type to filter · Enter opens · Esc quits` } },
    composer: { picker: { id: "pk_sessions", title, items, placeholder: "filter by title or id" }, placeholder: "" },
  });
  const renderer = await createBatonRenderer();
  const root = createRoot(renderer);
  try {
    return await new Promise<string | undefined>((resolve) => {
      const onIntent = (intent: ChatIntent): void => {
        if (intent.type === "pickerSelect") resolve(intent.itemId);
        else if (intent.type === "pickerCancel" || intent.type === "exit" || intent.type === "cancel") resolve(undefined);
      };
      root.render(<ChatApp store={store} onIntent={onIntent} commands={[]} />);
    });
  } finally {
    root.unmount();
    if (!renderer.isDestroyed) renderer.destroy();
  }
}
