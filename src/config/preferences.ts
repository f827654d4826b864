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
}

export function createPreferences(batonHome: string): Preferences {
  const dir = path.join(batonHome, "state");
  const read = (kind: PreferenceKind): Record<string, unknown> => {
    try {
      const value = JSON.parse(fs.readFileSync(path.join(dir, FILES[kind].file), "utf8")) as unknown;
      return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  return {
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
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const target = path.join(dir, FILES[kind].file);
      const temp = `${target}.${process.pid}.tmp`;
      fs.writeFileSync(temp, `${JSON.stringify({ ...whole, [key]: table }, null, 2)}\n`, { mode: 0o600 });
      fs.renameSync(temp, target);
    },
  };
}
