/**
 * Per-target preferences (HAR-09, CFG-03): the model and effort a user chose for a target persist in
 * `$BATON_HOME/state/{model,effort}.json` and apply to new sessions; `default` removes only that target's
 * entry. Other fields in the files are preserved. A corrupt file reads as empty (and is not overwritten
 * until the next change, which rewrites it whole).
 */
import fs from "node:fs";
import path from "node:path";

export type PreferenceKind = "model" | "effort";

const FILES: Record<PreferenceKind, { file: string; key: string }> = {
  model: { file: "model.json", key: "models" },
  effort: { file: "effort.json", key: "efforts" },
};

export interface Preferences {
  get(kind: PreferenceKind, targetId: string): string | undefined;
  /** `default` clears the target's preference. */
  set(kind: PreferenceKind, targetId: string, value: string): void;
  /** Read both files now (startup), so later reads are memory only. */
  load(): void;
  /** Resolves when every change so far is on disk. */
  flush(): Promise<void>;
}

/**
 * Each file is read once, on first use (the app warms them at startup with `load()`), and kept in
 * memory; a change updates memory at once and is written behind, one write at a time (PROC-01: the
 * `/model` key press does no file I/O).
 */
export function createPreferences(batonHome: string, onWriteError: (error: unknown) => void = () => undefined): Preferences {
  const dir = path.join(batonHome, "state");
  const cache = new Map<PreferenceKind, Record<string, unknown>>();
  let writing: Promise<void> = Promise.resolve();
  const read = (kind: PreferenceKind): Record<string, unknown> => {
    const hit = cache.get(kind);
    if (hit !== undefined) return hit;
    let whole: Record<string, unknown> = {};
    try {
      const value = JSON.parse(fs.readFileSync(path.join(dir, FILES[kind].file), "utf8")) as unknown;
      if (typeof value === "object" && value !== null && !Array.isArray(value)) whole = value as Record<string, unknown>;
    } catch {
      // missing or corrupt: empty (rewritten whole by the next change)
    }
    cache.set(kind, whole);
    return whole;
  };
  const write = (kind: PreferenceKind, whole: Record<string, unknown>): void => {
    const target = path.join(dir, FILES[kind].file);
    writing = writing.then(async () => {
      try {
        if (cache.get(kind) !== whole) return; // a newer change will write
        await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
        const temp = `${target}.${process.pid}.tmp`;
        await fs.promises.writeFile(temp, `${JSON.stringify(whole, null, 2)}\n`, { mode: 0o600 });
        await fs.promises.rename(temp, target);
      } catch (error) {
        onWriteError(error);
      }
    });
  };
  return {
    load() {
      for (const kind of Object.keys(FILES) as PreferenceKind[]) read(kind);
    },
    get(kind, targetId) {
      const table = read(kind)[FILES[kind].key];
      const value = typeof table === "object" && table !== null ? (table as Record<string, unknown>)[targetId] : undefined;
      return typeof value === "string" && value.length > 0 ? value : undefined;
    },
    set(kind, targetId, value) {
      const whole = read(kind);
      const key = FILES[kind].key;
      const table = { ...((typeof whole[key] === "object" && whole[key] !== null ? whole[key] : {}) as Record<string, string>) };
      if (value === "default") delete table[targetId];
      else table[targetId] = value;
      const next = { ...whole, [key]: table };
      cache.set(kind, next);
      write(kind, next);
    },
    flush: () => writing,
  };
}
