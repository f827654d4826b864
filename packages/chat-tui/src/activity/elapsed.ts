/** Elapsed-time formatting for the activity line. Pure. */

/** `mm:ss`, or `h:mm:ss` from one hour on. Negative spans count as zero. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, "0");
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

export const SPINNER_FRAMES: readonly string[] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Spinner frame for an elapsed time; advances once per tick second. */
export function spinnerFrame(ms: number): string {
  const i = Math.max(0, Math.floor(ms / 1000)) % SPINNER_FRAMES.length;
  return SPINNER_FRAMES[i] ?? "⠋";
}
