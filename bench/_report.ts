/**
 * The one output format of the benches (issue #18): a line per figure — `figure  value  budget  ratio  OK|OVER`
 * (`info` when a figure has no budget) — and a closing `summary:` line that `npm run bench` collects.
 */
export interface Samples {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function samples(values: readonly number[]): Samples {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length === 0 ? NaN : sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] ?? NaN, max: sorted.at(-1) ?? NaN };
}

/** `412 ms (398–440)`: the median and the spread of the rounds. */
export function withSpread(s: Samples, unit: string, digits = 0): string {
  return `${s.median.toFixed(digits)} ${unit} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
}

/** A table's lines: every column right-aligned to its widest cell or header, two spaces apart. */
export function tableLines(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => cell.padStart(widths[i] ?? 0)).join("  ");
  return [line(headers), ...rows.map(line)];
}

export class BenchReport {
  private readonly over: string[] = [];
  private ok = 0;

  constructor(private readonly name: string) {}

  /** A figure with no budget: printed as `info`. */
  info(figure: string, value: string): void {
    process.stdout.write(`${figure.padEnd(52)} ${value.padStart(26)}  ${"".padStart(12)}  ${"".padStart(6)}  info\n`);
  }

  /** A figure against its budget; `ratio` is value ÷ budget (≤ 1 is within). */
  figure(figure: string, value: string, budget: string, ratio: number): boolean {
    const within = Number.isFinite(ratio) && ratio <= 1;
    if (within) this.ok++;
    else this.over.push(figure.trim());
    process.stdout.write(`${figure.padEnd(52)} ${value.padStart(26)}  ${budget.padStart(12)}  ${ratio.toFixed(2).padStart(6)}  ${within ? "OK" : "OVER"}\n`);
    return within;
  }

  /** The closing line; returns whether every budget was met. */
  summary(): boolean {
    const total = this.ok + this.over.length;
    process.stdout.write(`summary: ${this.name}: ${this.ok} of ${total} budgets OK${this.over.length > 0 ? `; OVER: ${this.over.join("; ")}` : ""}\n`);
    return this.over.length === 0;
  }
}
