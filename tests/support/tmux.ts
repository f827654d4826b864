/**
 * A private tmux server for driving the real `baton` in a real terminal: `tmux -L <own socket>`, literal
 * typing and named keys with `send-keys`, screen reads with `capture-pane -p`, polling for text instead of
 * sleeping, and cleanup by killing the session and then the server by its PID.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readlinkSync, rmSync } from "node:fs";

export interface TmuxOptions {
  /** argv of the program to run in the pane. */
  readonly command: readonly string[];
  /** The complete environment of the program (nothing else is inherited). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly width?: number;
  readonly height?: number;
  /** Socket name; defaults to a unique one per instance. */
  readonly socket?: string;
}

const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

let counter = 0;

export const EXIT_MARKER = "[baton exited ";

export class Tmux {
  readonly socket: string;
  private serverPid: number | undefined;
  private socketPath: string | undefined;
  private closed = false;

  private constructor(socket: string) {
    this.socket = socket;
  }

  /** Starts the server with one session running the command; the pane stays open after it exits. */
  static start(options: TmuxOptions): Tmux {
    const tmux = new Tmux(options.socket ?? `baton-e2e-${process.pid}-${++counter}`);
    const env = Object.entries(options.env).map(([k, v]) => quote(`${k}=${v}`));
    const program = options.command.map(quote).join(" ");
    // The wrapper prints the exit status and keeps the pane readable after baton exits.
    const script = `cd ${quote(options.cwd)} && env -i ${env.join(" ")} ${program}; echo "${EXIT_MARKER}$?]"; sleep 600`;
    tmux.run(["new-session", "-d", "-s", "main", "-x", String(options.width ?? 100), "-y", String(options.height ?? 30), `sh -c ${quote(script)}`]);
    const [pid, socketPath] = tmux.run(["display-message", "-p", "-t", "main", "#{pid} #{socket_path}"]).trim().split(" ");
    tmux.serverPid = Number(pid);
    tmux.socketPath = socketPath;
    return tmux;
  }

  run(args: readonly string[]): string {
    const result = spawnSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
    return result.stdout;
  }

  /** The visible screen as text (`-e` keeps colours and attributes as escape sequences). */
  capture(options: { readonly escapes?: boolean; readonly history?: number } = {}): string {
    const args = ["capture-pane", "-p", "-t", "main"];
    if (options.escapes === true) args.push("-e");
    if (options.history !== undefined) args.push("-S", String(-options.history));
    return this.run(args);
  }

  /** Appends everything the pane's program writes from now on, raw (escape sequences included), to `file`. */
  pipeRaw(file: string): void {
    this.run(["pipe-pane", "-o", "-t", "main", `cat >> ${quote(file)}`]);
  }

  /** Types text literally (no key names). */
  type(text: string): void {
    this.run(["send-keys", "-t", "main", "-l", text]);
  }

  /** Sends named keys (Enter, Escape, Up, BTab, C-c, …). */
  keys(...keys: string[]): void {
    this.run(["send-keys", "-t", "main", ...keys]);
  }

  resize(width: number, height: number): void {
    this.run(["resize-window", "-t", "main", "-x", String(width), "-y", String(height)]);
  }

  /** The pane's title as the program set it (OSC 2). */
  title(): string {
    return this.run(["display-message", "-p", "-t", "main", "#{pane_title}"]).trim();
  }

  /**
   * Polls the screen (every 25 ms) until it matches; returns the matching screen. A capture can be torn: tmux may
   * answer between two reads of one frame the program wrote, so rows below the match still show the frame before
   * (seen in CI: a suggestion card drawn, the footer under it not yet). So the screen returned is a second
   * capture taken 15 ms after the first match, when that one still matches.
   */
  async waitFor(pattern: string | RegExp, timeoutMs = 10_000, options: { readonly history?: number } = {}): Promise<string> {
    const start = Date.now();
    const matches = (text: string): boolean => (typeof pattern === "string" ? text.includes(pattern) : pattern.test(text));
    let screen = "";
    while (Date.now() - start < timeoutMs) {
      screen = this.capture(options);
      if (matches(screen)) return this.settle(screen, matches, options);
      await Bun.sleep(25);
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(pattern)}; screen:\n${screen}`);
  }

  /** Types `prompt` into the composer, waits for it there, sends it (Enter) and waits for `reply`; returns that screen. */
  async send(prompt: string, reply: string | RegExp, timeoutMs = 30_000): Promise<string> {
    this.type(prompt);
    await this.waitFor(`› ${prompt}`);
    this.keys("Enter");
    return this.waitFor(reply, timeoutMs);
  }

  /** Polls the screen (every 25 ms) until `text` is gone; returns the screen without it (settled as `waitFor`'s is). */
  async waitGone(text: string, timeoutMs = 10_000): Promise<string> {
    const start = Date.now();
    let screen = this.capture();
    while (screen.includes(text) && Date.now() - start < timeoutMs) {
      await Bun.sleep(25);
      screen = this.capture();
    }
    if (screen.includes(text)) throw new Error(`'${text}' still on screen after ${timeoutMs} ms:\n${screen}`);
    return this.settle(screen, (later) => !later.includes(text));
  }

  /** `screen`, or a capture 15 ms later when that one still `holds` (a capture can hold part of a frame: see waitFor). */
  private async settle(screen: string, holds: (later: string) => boolean, options: { readonly history?: number } = {}): Promise<string> {
    await Bun.sleep(15);
    const later = this.capture(options);
    return holds(later) ? later : screen;
  }

  /** Kills the session, then the server by its PID, and removes its socket. */
  kill(): void {
    if (this.closed) return;
    this.closed = true;
    spawnSync("tmux", ["-L", this.socket, "kill-session", "-t", "main"], { encoding: "utf8" });
    const pid = this.serverPid;
    if (pid !== undefined && Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    if (this.socketPath !== undefined && this.socketPath.includes(this.socket)) rmSync(this.socketPath, { force: true });
  }
}

/** The card (or any box) on `screen` that holds `text`: from the top edge (╭) above it to the end of the screen. */
export function cardAround(screen: string, text: string): string {
  return screen.slice(screen.lastIndexOf("╭", screen.indexOf(text)));
}

/** PIDs of processes whose working directory is `dir` and whose executable path contains `exeIncludes`. */
export function processesIn(dir: string, exeIncludes: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`) !== dir) continue;
      if (readlinkSync(`/proc/${name}/exe`).includes(exeIncludes)) out.push(Number(name));
    } catch {
      // gone or not ours
    }
  }
  return out;
}
