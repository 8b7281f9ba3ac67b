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
  /** The same figure for the ceiling (or, in scale rows, for the small case), measured in the same run. */
  ceiling: number | null;
  /** value / ceiling, when there is a ceiling. */
  ratio: number | null;
  /**
   * The acceptance target; null where the row only informs. For `*_growth_mib` rows an upper bound
   * on value (strict); for `latency_ratio` rows an upper bound on ratio; otherwise a lower bound on ratio.
   */
  target: number | null;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** One row; ratio is computed here, so that it always equals value / ceiling. */
export function benchRow(fields: Omit<BenchRow, 'ratio' | 'ceiling' | 'target'> & { ceiling?: number | null; target?: number | null }): BenchRow {
  const ceiling = fields.ceiling ?? null;
  return {
    scenario: fields.scenario,
    backend: fields.backend,
    metric: fields.metric,
    unit: fields.unit,
    value: round(fields.value, 3),
    ceiling: ceiling === null ? null : round(ceiling, 3),
    ratio: ceiling === null || ceiling === 0 ? null : round(fields.value / ceiling, 3),
    target: fields.target ?? null,
  };
}

export type TargetKind = 'upper bound on value' | 'upper bound on ratio' | 'lower bound on ratio';

export function targetKind(row: Pick<BenchRow, 'metric'>): TargetKind {
  if (row.metric.endsWith('_growth_mib')) return 'upper bound on value';
  if (row.metric === 'latency_ratio') return 'upper bound on ratio';
  return 'lower bound on ratio';
}

/** Whether a row meets its target (a row without one always does). */
export function meetsTarget(row: BenchRow): boolean {
  if (row.target === null) return true;
  switch (targetKind(row)) {
    case 'upper bound on value':
      return row.value < row.target;
    case 'upper bound on ratio':
      return row.ratio !== null && row.ratio <= row.target;
    default:
      return row.ratio !== null && row.ratio >= row.target;
  }
}

/** How a row's target reads in the table: "< 100", "<= 1.5", ">= 0.5". */
export function targetText(row: BenchRow): string {
  if (row.target === null) return '';
  switch (targetKind(row)) {
    case 'upper bound on value':
      return `< ${row.target}`;
    case 'upper bound on ratio':
      return `<= ${row.target}`;
    default:
      return `>= ${row.target}`;
  }
}

/** The result cell: PASS or FAIL; a quick run is too short and small to judge a target by. */
export function resultText(row: BenchRow, quick: boolean): string {
  if (row.target === null) return '';
  if (quick) return 'n/a (quick)';
  return meetsTarget(row) ? 'PASS' : 'FAIL';
}

/** Columns padded to their widest cell; numbers (and PASS/FAIL) right-aligned. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^[-\d.]+$|^(PASS|FAIL)$/.test(r[i] ?? '')));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export async function writeRows(path: string, rows: BenchRow[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(rows, null, 2)}\n`);
}
