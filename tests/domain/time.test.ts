import { describe, expect, it } from 'vitest';
import { MINUTE_MS, toIso, utcDate } from '../../src/domain/time.js';

describe('time', () => {
  it('a minute is 60 000 ms', () => {
    expect(MINUTE_MS).toBe(60_000);
  });

  it('toIso is ISO 8601 UTC with a Z', () => {
    expect(toIso(Date.UTC(2026, 5, 8, 12, 0, 0))).toBe('2026-06-08T12:00:00.000Z');
    expect(toIso(0)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('toIso gives each instant its own text, also instants that share a slot of its memory and ones asked again', () => {
    const base = Date.UTC(2026, 5, 8, 12, 0, 0);
    // 256 ms apart: the same slot of the remembered texts.
    for (const t of [base, base + 256, base, base + 512, base + 256, -256, 0]) expect(toIso(t)).toBe(new Date(t).toISOString());
  });

  it('utcDate is the UTC calendar date', () => {
    expect(utcDate(Date.UTC(2026, 5, 8, 23, 59, 59, 999))).toBe('2026-06-08');
    expect(utcDate(Date.UTC(2026, 5, 9))).toBe('2026-06-09');
  });
});
