// Result rows shared by the benchmarks (one row per scenario and metric), a plain-text table,
// and writing rows to a JSON file.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface BenchRow {
  scenario: string;
  /** What the server ran on, e.g. "sqlite+local". */
  backend: string;
  metric: string;
  unit: string;
  value: number;
  /** A reference figure to compare with, when there is one. */
  ceiling: number | null;
  /** value / ceiling, when there is a ceiling. */
  ratio: number | null;
  /** The acceptance target, e.g. "< 100", in the row's unit; null when the metric is informational. */
  target: string | null;
}

/** Whether a value meets a target of the form "< n", "<= n", "> n" or ">= n" (null: nothing to meet). */
export function meetsTarget(value: number, target: string | null): boolean {
  if (target === null) return true;
  const match = /^\s*(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/.exec(target);
  if (match === null) throw new Error(`unreadable target ${JSON.stringify(target)}`);
  const bound = Number(match[2]);
  switch (match[1]) {
    case '<':
      return value < bound;
    case '<=':
      return value <= bound;
    case '>':
      return value > bound;
    default:
      return value >= bound;
  }
}

/** Columns padded to their widest cell; numbers (and PASS/FAIL) right-aligned. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^[-\d.]+$|^(PASS|FAIL)$/.test(r[i] ?? '')));
  const line = (cells: string[]) => cells.map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export async function writeRows(path: string, rows: BenchRow[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(rows, null, 2)}\n`);
}
