import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from '../../src/adapters/dashboard/src/csv.js';

describe('dashboard CSV', () => {
  it('quotes every cell and doubles inner quotes', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('a,b\nc')).toBe('"a,b\nc"');
    expect(csvCell(null)).toBe('""');
    expect(csvCell(undefined)).toBe('""');
    expect(csvCell(42)).toBe('"42"');
    expect(csvCell(false)).toBe('"false"');
  });

  it.each(['=SUM(A1:A9)', '+1+1', '-2+3', '@cmd', '\t=1', '\r=1'])('neutralises a cell a spreadsheet would run as a formula: %j', (value) => {
    expect(csvCell(value)).toBe(`"'${value.replace(/"/g, '""')}"`);
  });

  it('leaves cells that only contain those characters later alone', () => {
    expect(csvCell('a=b')).toBe('"a=b"');
    expect(csvCell('user@example.com')).toBe('"user@example.com"');
  });

  it('writes a header and rows with CRLF line ends', () => {
    expect(
      toCsv(
        ['code', 'note'],
        [
          ['AB-CD', '=x'],
          ['EF', 'plain'],
        ],
      ),
    ).toBe('"code","note"\r\n"AB-CD","\'=x"\r\n"EF","plain"\r\n');
  });
});
