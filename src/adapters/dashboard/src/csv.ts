// CSV written in the browser from a list already loaded. Every cell is quoted (RFC 4180: inner
// quotes doubled), and a cell that a spreadsheet would read as a formula (= + - @, and the tab
// and carriage return that some treat alike) gets a leading apostrophe.

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  // Cells are strings, numbers and dates: String() gives their text as the page shows it.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  let text = value === null || value === undefined ? '' : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

export function toCsv(header: string[], rows: unknown[][]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}
