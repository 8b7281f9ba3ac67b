import { describe, expect, it } from 'vitest';
import { licenseFileExpiry } from '../../src/domain/license-file.js';

const NOW = Date.parse('2026-06-08T12:00:00.250Z');
const DAY = 24 * 3600_000;

describe('licenseFileExpiry', () => {
  it('is the TTL when the membership runs longer, the membership when it ends sooner', () => {
    const membership = { isLifetime: false, activeUntil: NOW + 30 * DAY };
    expect(licenseFileExpiry(NOW, 14 * 24 * 60, membership)).toBe(Date.parse('2026-06-22T12:00:00.000Z'));
    expect(licenseFileExpiry(NOW, 60 * 24 * 60, membership)).toBe(Date.parse('2026-07-08T12:00:00.000Z'));
  });

  it('is the TTL alone for a lifetime membership, whatever time lies underneath it', () => {
    expect(licenseFileExpiry(NOW, 60, { isLifetime: true, activeUntil: NOW + 60_000 })).toBe(Date.parse('2026-06-08T13:00:00.000Z'));
  });

  it("ends with the base plan's grace at the latest, also when issued during it", () => {
    const ended = { isLifetime: false, activeUntil: NOW - 60_000 };
    expect(licenseFileExpiry(NOW, 14 * 24 * 60, ended, 30)).toBe(Date.parse('2026-06-08T12:29:00.000Z'));
    expect(licenseFileExpiry(NOW, 10, { isLifetime: false, activeUntil: NOW + DAY }, 60)).toBe(Date.parse('2026-06-08T12:10:00.000Z'));
  });

  it('is rounded down to a whole second, as the file carries it', () => {
    expect(licenseFileExpiry(NOW, 525_600, { isLifetime: false, activeUntil: NOW + DAY + 999 })).toBe(Date.parse('2026-06-09T12:00:01.000Z'));
  });
});
