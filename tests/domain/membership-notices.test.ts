// The expiry notices' rule (docs/plans.md, "Expiry notices"): which are due at an instant, keyed by
// the period's active_until, so an extended membership never gets the old period's notice.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyLicense, extend, LATEST_ACTIVE_UNTIL, type Membership } from '../../src/domain/membership.js';
import { DAY_MS, daysRemaining, dueNotices, EXPIRED_LOOKBACK_MS } from '../../src/domain/membership-notices.js';
import { MINUTE_MS } from '../../src/domain/time.js';

const T = Date.parse('2026-06-08T12:00:00.000Z');
const timed = (activeUntil: number): Membership => ({ activeUntil, isLifetime: false });

describe('dueNotices', () => {
  it('expiring: while less than the notice days remain, never once active_until passed', () => {
    const m = timed(T + 7 * DAY_MS);
    expect(dueNotices(m, 0, 7, T)).toEqual([]); // exactly 7 days remain: not less
    expect(dueNotices(m, 0, 7, T + 1)).toEqual([{ kind: 'expiring', periodEnd: T + 7 * DAY_MS }]);
    expect(dueNotices(m, 0, 7, T + 7 * DAY_MS - 1)).toEqual([{ kind: 'expiring', periodEnd: T + 7 * DAY_MS }]);
    expect(dueNotices(m, 0, 7, T + 7 * DAY_MS)).toEqual([{ kind: 'expired', periodEnd: T + 7 * DAY_MS }]);
  });

  it('no expiring notice with 0 notice days', () => {
    expect(dueNotices(timed(T + MINUTE_MS), 0, 0, T)).toEqual([]);
  });

  it('expired: from the end of access until the lookback after it', () => {
    const m = timed(T);
    expect(dueNotices(m, 0, 7, T - 1)).toEqual([{ kind: 'expiring', periodEnd: T }]);
    expect(dueNotices(m, 0, 7, T)).toEqual([{ kind: 'expired', periodEnd: T }]);
    expect(dueNotices(m, 0, 7, T + EXPIRED_LOOKBACK_MS)).toEqual([{ kind: 'expired', periodEnd: T }]);
    expect(dueNotices(m, 0, 7, T + EXPIRED_LOOKBACK_MS + 1)).toEqual([]);
  });

  it('grace delays expired to active_until + grace; the period stays active_until', () => {
    const m = timed(T);
    expect(dueNotices(m, 60, 7, T)).toEqual([]);
    expect(dueNotices(m, 60, 7, T + 60 * MINUTE_MS - 1)).toEqual([]);
    expect(dueNotices(m, 60, 7, T + 60 * MINUTE_MS)).toEqual([{ kind: 'expired', periodEnd: T }]);
    expect(dueNotices(m, 60, 7, T + 60 * MINUTE_MS + EXPIRED_LOOKBACK_MS + 1)).toEqual([]);
  });

  it('lifetime and never granted memberships have none', () => {
    for (const now of [T - DAY_MS, T, T + DAY_MS]) {
      expect(dueNotices({ activeUntil: T, isLifetime: true }, 0, 7, now)).toEqual([]);
      expect(dueNotices({ activeUntil: null, isLifetime: false }, 0, 7, now)).toEqual([]);
    }
  });

  it('an extension makes a new period: the old one is never due again', () => {
    const before = timed(T + DAY_MS);
    const after = applyLicense(before, { licenseId: 'l', minutes: 30 * 24 * 60 }, T, 'adj').membership;
    expect(dueNotices(before, 0, 7, T)).toEqual([{ kind: 'expiring', periodEnd: T + DAY_MS }]);
    expect(dueNotices(after, 0, 7, T)).toEqual([]);
    expect(dueNotices(after, 0, 7, T + 25 * DAY_MS)).toEqual([{ kind: 'expiring', periodEnd: T + 31 * DAY_MS }]);
  });

  it('days remaining round up', () => {
    expect(daysRemaining(T + 7 * DAY_MS - 1, T)).toBe(7);
    expect(daysRemaining(T + 1, T)).toBe(1);
    expect(daysRemaining(T, T)).toBe(0);
  });

  it('the latest active_until kept has no overflow', () => {
    expect(dueNotices(timed(LATEST_ACTIVE_UNTIL), 525_600, 90, LATEST_ACTIVE_UNTIL - DAY_MS)).toEqual([{ kind: 'expiring', periodEnd: LATEST_ACTIVE_UNTIL }]);
  });
});

describe('dueNotices, properties', () => {
  const settings = { seed: 4242, numRuns: 2000 };
  const instant = fc.integer({ min: T - 400 * DAY_MS, max: T + 400 * DAY_MS });
  const grace = fc.integer({ min: 0, max: 525_600 });
  const days = fc.integer({ min: 0, max: 90 });

  it('a notice is due only inside its window', () => {
    fc.assert(
      fc.property(instant, grace, days, instant, (activeUntil, graceMinutes, noticeDays, now) => {
        for (const n of dueNotices(timed(activeUntil), graceMinutes, noticeDays, now)) {
          expect(n.periodEnd).toBe(activeUntil);
          if (n.kind === 'expiring') {
            expect(now).toBeLessThan(activeUntil);
            expect(activeUntil - now).toBeLessThan(noticeDays * DAY_MS);
          } else {
            const ends = activeUntil + graceMinutes * MINUTE_MS;
            expect(now).toBeGreaterThanOrEqual(ends);
            expect(now - ends).toBeLessThanOrEqual(EXPIRED_LOOKBACK_MS);
          }
        }
      }),
      settings,
    );
  });

  it('an extended membership gets nothing for its old period', () => {
    fc.assert(
      fc.property(instant, grace, days, fc.integer({ min: 1, max: 525_600 }), instant, (activeUntil, graceMinutes, noticeDays, minutes, at) => {
        const before = timed(activeUntil);
        const extended = extend(before, minutes, at);
        // From the extension on, whatever the instant, no notice names the period it replaced.
        for (const later of [at, at + MINUTE_MS, extended.activeUntil as number, (extended.activeUntil as number) + graceMinutes * MINUTE_MS]) {
          for (const n of dueNotices(extended, graceMinutes, noticeDays, later)) expect(n.periodEnd).not.toBe(activeUntil);
        }
      }),
      settings,
    );
  });

  it('each kind is due at most once per instant, and never both', () => {
    fc.assert(
      fc.property(instant, grace, days, instant, (activeUntil, graceMinutes, noticeDays, now) => {
        expect(dueNotices(timed(activeUntil), graceMinutes, noticeDays, now).length).toBeLessThanOrEqual(1);
      }),
      settings,
    );
  });
});
