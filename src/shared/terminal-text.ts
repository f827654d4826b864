/**
 * Text that came from an agent or a tool, made safe to show on a terminal. The one sanitizer: the CLI's
 * output streams (every `exec`, `repl`, `export`, `sessions`, `logs` line), the TUI's mapping of the
 * projection and the harness stderr readers all use it.
 *
 * An agent's text or a tool's output may carry terminal control sequences: OSC 52 writes the clipboard,
 * OSC 0/1/2 retitle the window, `ESC[2J` clears the screen, `\r` overwrites what was printed. None of that
 * may reach the user's terminal. Complete escape sequences (CSI, OSC, DCS, SOS, PM, APC, two-byte ESC) are
 * removed, colours included; `\r\n` and a lone `\r` become `\n`; every other C0 control but `\t` and `\n`
 * becomes its visible Unicode control picture (ESC → ␛, BEL → ␇), DEL becomes ␡ and a C1 control U+FFFD.
 */

// Anything the sanitizer would change: C0 except \t and \n, DEL, C1.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const SEQUENCES = new RegExp(
  [
    // CSI (7-bit and C1): parameters, intermediates, final byte.
    "(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]",
    // OSC, DCS, SOS, PM, APC (7-bit and C1): the payload runs to BEL or ST, or (unterminated) to the next control.
    "(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d-\\u009f])[^\\u0000-\\u001f\\u007f-\\u009f]*(?:\\u0007|\\u001b\\\\|\\u009c)?",
    // Every other ESC sequence: intermediates and a final byte (ESC c, ESC 7, ESC ( B, a torn CSI's ESC [).
    "\\u001b[ -/]*[0-~]",
  ].join("|"),
  "g",
);

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function picture(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  return "\ufffd";
}

/** `text` without terminal controls (see the module comment); the same string when there was none. */
export function terminalSafe(text: string): string {
  if (!UNSAFE.test(text)) return text;
  // Line ends first, so that removing a sequence never joins a \r and a \n that were apart.
  return text.replace(/\r\n?/g, "\n").replace(SEQUENCES, "").replace(CONTROL, picture);
}

// The tail of a text that may still become a sequence (or a CRLF) once the next chunk arrives.
const INCOMPLETE = new RegExp(
  [
    "(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*$",
    "(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d-\\u009f])[^\\u0000-\\u001f\\u007f-\\u009f]*\\u001b?$",
    "\\u001b[ -/]*$",
    "\\r$",
  ].join("|"),
);

/**
 * `terminalSafe` for text that arrives in chunks (a streamed answer): a sequence split across chunks is
 * removed whole instead of leaving its payload behind. `push` returns what can be shown now and holds back a
 * tail that may still be the start of a sequence; `flush` returns that tail, made safe, when the text ends.
 */
export class TerminalSafeStream {
  private held = "";

  push(chunk: string): string {
    const text = this.held + chunk;
    const tail = INCOMPLETE.exec(text);
    this.held = tail === null ? "" : tail[0];
    return terminalSafe(tail === null ? text : text.slice(0, tail.index));
  }

  flush(): string {
    const rest = this.held;
    this.held = "";
    return terminalSafe(rest);
  }
}

const deepMemo = new WeakMap<object, unknown>();

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null || Array.isArray(value);
}

/**
 * Every string inside plain data (objects and arrays) made terminal-safe. Identity is kept: an object with
 * nothing to change is returned as is, and a given (immutable) object maps to the same result every time, so
 * views that compare by identity skip unchanged parts.
 */
export function terminalSafeDeep<T>(value: T): T {
  if (typeof value === "string") return terminalSafe(value) as T;
  if (typeof value !== "object" || value === null || !isPlain(value)) return value;
  const known = deepMemo.get(value);
  if (known !== undefined) return known as T;
  let out: object | undefined;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const before: unknown = value[i];
      const after = terminalSafeDeep(before);
      if (after === before) continue;
      copy ??= value.slice();
      copy[i] = after;
    }
    out = copy;
  } else {
    const record = value as Record<string, unknown>;
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(record)) {
      const before = record[key];
      const after = terminalSafeDeep(before);
      if (after === before) continue;
      copy ??= { ...record };
      copy[key] = after;
    }
    out = copy;
  }
  const result = (out ?? value) as T;
  deepMemo.set(value, result);
  return result;
}

/**
 * `JSON.stringify` for output that may reach a terminal: the C0 controls JSON escapes anyway, and DEL and
 * the C1 controls that it leaves raw, are written as `\u00XX` escapes. The value read back is unchanged.
 */
export function terminalJson(value: unknown, space?: number): string {
  return terminalJsonText(JSON.stringify(value, null, space));
}

/** JSON text with DEL and the C1 controls written as `\u00XX` (what `terminalJson` does), for JSON written in pieces. */
export function terminalJsonText(json: string): string {
  // eslint-disable-next-line no-control-regex
  return json.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
