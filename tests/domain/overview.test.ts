import { describe, expect, it } from 'vitest';
import { DAY_MS, dailyActivity, overviewWindow } from '../../src/domain/overview.js';

const at = (iso: string) => Date.parse(iso);

describe('the overview window', () => {
  it('is the 30 UTC days ending with the day of now, whatever the hour', () => {
    for (const now of ['2026-11-23T00:00:00.000Z', '2026-11-23T13:45:10.000Z', '2026-11-23T23:59:59.999Z']) {
      const window = overviewWindow(at(now));
      expect(window).toEqual({ from: at('2026-10-25T00:00:00.000Z'), days: 30 });
      // Today is the window's last day, and now falls inside it.
      expect(at(now)).toBeGreaterThanOrEqual(window.from + 29 * DAY_MS);
      expect(at(now)).toBeLessThan(window.from + 30 * DAY_MS);
    }
  });

  it('spans month and year ends and leap days on UTC calendar dates', () => {
    const days = dailyActivity(overviewWindow(at('2028-03-01T08:00:00.000Z')), [], []).map((d) => d.date);
    expect(days).toHaveLength(30);
    expect(days[0]).toBe('2028-02-01');
    expect(days.slice(-3)).toEqual(['2028-02-28', '2028-02-29', '2028-03-01']);
    const newYear = dailyActivity(overviewWindow(at('2027-01-02T00:30:00.000Z')), [], []).map((d) => d.date);
    expect(newYear.slice(-3)).toEqual(['2026-12-31', '2027-01-01', '2027-01-02']);
  });
});

describe('daily activity', () => {
  it('zero-fills every day, oldest first, and places counts by day index', () => {
    const window = overviewWindow(at('2026-11-23T10:00:00.000Z'));
    const daily = dailyActivity(
      window,
      [
        { day: 0, count: 2 },
        { day: 29, count: 5 },
      ],
      [{ day: 28, count: 3 }],
    );
    expect(daily).toHaveLength(30);
    expect(daily[0]).toEqual({ date: '2026-10-25', signUps: 2, logins: 0 });
    expect(daily[28]).toEqual({ date: '2026-11-22', signUps: 0, logins: 3 });
    expect(daily[29]).toEqual({ date: '2026-11-23', signUps: 5, logins: 0 });
    expect(daily.slice(1, 28).every((d) => d.signUps === 0 && d.logins === 0)).toBe(true);
  });

  it('ignores counts outside the window rather than misplacing them', () => {
    const window = overviewWindow(at('2026-11-23T10:00:00.000Z'));
    const daily = dailyActivity(
      window,
      [
        { day: -1, count: 9 },
        { day: 30, count: 9 },
        { day: 1.5, count: 9 },
      ],
      [],
    );
    expect(daily.reduce((sum, d) => sum + d.signUps, 0)).toBe(0);
  });
});
