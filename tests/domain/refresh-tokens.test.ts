import { describe, expect, it } from 'vitest';
import { decideRefresh, refreshExpiry, requireRememberedMachine, type RefreshTokenState } from '../../src/domain/refresh-tokens.js';
import { expectDomainError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const DAY = 86_400_000;
const presented = { applicationId: 'app-1', hardwareId: 'hw-1' };
const token = (over: Partial<RefreshTokenState> = {}): RefreshTokenState => ({ applicationId: 'app-1', hardwareId: 'hw-1', expiresAt: NOW + DAY, spentAt: null, revokedAt: null, ...over });

describe('decideRefresh', () => {
  it('rotates an unspent, unrevoked, unexpired token of the application on its machine', () => {
    expect(decideRefresh(token(), presented, NOW)).toBe('rotate');
  });

  it('expires at its instant: still good a millisecond before', () => {
    expect(decideRefresh(token({ expiresAt: NOW + 1 }), presented, NOW)).toBe('rotate');
    expect(decideRefresh(token({ expiresAt: NOW }), presented, NOW)).toBe('invalid');
  });

  it('a spent token is a reuse, whatever machine presents it and even once expired', () => {
    expect(decideRefresh(token({ spentAt: NOW - 1 }), presented, NOW)).toBe('reuse');
    expect(decideRefresh(token({ spentAt: NOW - 1 }), { ...presented, hardwareId: 'hw-2' }, NOW)).toBe('reuse');
    expect(decideRefresh(token({ spentAt: NOW - 2, expiresAt: NOW - 1 }), presented, NOW)).toBe('reuse');
    expect(decideRefresh(token({ spentAt: NOW - 2, revokedAt: NOW - 1 }), presented, NOW)).toBe('reuse');
  });

  it('unknown, another application, revoked or another machine: invalid, and nothing to revoke', () => {
    expect(decideRefresh(null, presented, NOW)).toBe('invalid');
    expect(decideRefresh(token({ applicationId: 'app-2' }), presented, NOW)).toBe('invalid');
    // Another application's spent token is not this application's to judge.
    expect(decideRefresh(token({ applicationId: 'app-2', spentAt: NOW - 1 }), presented, NOW)).toBe('invalid');
    expect(decideRefresh(token({ revokedAt: NOW - 1 }), presented, NOW)).toBe('invalid');
    expect(decideRefresh(token(), { ...presented, hardwareId: 'hw-2' }, NOW)).toBe('invalid');
  });

  it('a chain of rotations: each token rotates once, then is a reuse', () => {
    let current = token();
    let now = NOW;
    for (let i = 0; i < 5; i++) {
      expect(decideRefresh(current, presented, now)).toBe('rotate');
      const spent = { ...current, spentAt: now };
      now += DAY / 2;
      expect(decideRefresh(spent, presented, now)).toBe('reuse');
      current = token({ expiresAt: refreshExpiry(now - DAY / 2, 1) });
    }
  });
});

describe('refreshExpiry and requireRememberedMachine', () => {
  it('each token lasts ttl days from its issue', () => {
    expect(refreshExpiry(NOW, 30)).toBe(NOW + 30 * DAY);
    expect(refreshExpiry(NOW, 1)).toBe(NOW + DAY);
  });

  it('remember needs a hardware id, named in the refusal', () => {
    const e = expectDomainError(() => requireRememberedMachine(null), 'VALIDATION_FAILED');
    expect(e.details.errors?.[0]?.field).toBe('hardware_id');
    expect(requireRememberedMachine('hw-1')).toBe('hw-1');
  });
});
