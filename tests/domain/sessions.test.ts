import { describe, expect, it } from 'vitest';
import { assertLegacySeatsEnforceable, isSessionLive, LEGACY_SESSION_HOLD_MS, planLegacyHold, planSession, sessionRejection, type SessionState } from '../../src/domain/sessions.js';
import { expectDomainError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const TTL = 300_000;

const session = (id: string, hardwareId: string | null, over: Partial<SessionState> = {}): SessionState => ({
  id,
  hardwareId,
  expiresAt: NOW + TTL,
  revokedAt: null,
  leaseExpiresAt: null,
  ...over,
});

describe('isSessionLive', () => {
  it('is live before expiry and expired at the boundary', () => {
    const s = session('s', 'hw', { expiresAt: NOW });
    expect(isSessionLive(s, NOW - 1)).toBe(true);
    expect(isSessionLive(s, NOW)).toBe(false);
    expect(isSessionLive(s, NOW + 1)).toBe(false);
  });

  it('a revoked session is not live even before expiry', () => {
    expect(isSessionLive(session('s', 'hw', { revokedAt: NOW - 1 }), NOW)).toBe(false);
    expect(isSessionLive(session('s', 'hw', { revokedAt: NOW + 1 }), NOW)).toBe(false);
  });

  it('a session with a lease dies at its end, before its own expiry, and stops counting', () => {
    const s = session('s', 'hw', { leaseExpiresAt: NOW });
    expect(isSessionLive(s, NOW - 1)).toBe(true);
    expect(isSessionLive(s, NOW)).toBe(false);
    expect(sessionRejection(s, NOW)?.code).toBe('SESSION_EXPIRED');
    // A dead session leaves its seat: a second machine gets in under a cap of one.
    expect(planSession([s], 'hw-2', 1, NOW)).toEqual({ replace: [] });
    expect(() => planSession([s], 'hw-2', 1, NOW - 1)).toThrow();
  });
});

describe('planSession', () => {
  it('no sessions: allowed, nothing to replace', () => {
    expect(planSession([], 'hw-1', 1, NOW)).toEqual({ replace: [] });
    expect(planSession([], null, 1, NOW)).toEqual({ replace: [] });
  });

  it("logging in again on the same hardware replaces that device's live sessions", () => {
    const existing = [session('a1', 'hw-a'), session('a2', 'hw-a'), session('b1', 'hw-b')];
    expect(planSession(existing, 'hw-a', 2, NOW)).toEqual({ replace: ['a1', 'a2'] });
  });

  it('with cap 1, re-login from the same device replaces instead of being refused', () => {
    expect(planSession([session('a1', 'hw-a')], 'hw-a', 1, NOW)).toEqual({ replace: ['a1'] });
  });

  it('cap reached from other devices: SESSION_LIMIT_REACHED', () => {
    expectDomainError(() => planSession([session('a1', 'hw-a')], 'hw-b', 1, NOW), 'SESSION_LIMIT_REACHED');
    const two = [session('a1', 'hw-a'), session('b1', 'hw-b')];
    expectDomainError(() => planSession(two, 'hw-c', 2, NOW), 'SESSION_LIMIT_REACHED');
    expect(planSession(two, 'hw-c', 3, NOW)).toEqual({ replace: [] });
  });

  it('expired and revoked sessions do not count and are not replaced', () => {
    const existing = [session('old', 'hw-a', { expiresAt: NOW }), session('gone', 'hw-b', { revokedAt: NOW - 1000 }), session('older', 'hw-c', { expiresAt: NOW - 1 })];
    expect(planSession(existing, 'hw-d', 1, NOW)).toEqual({ replace: [] });
    expect(planSession(existing, 'hw-a', 1, NOW)).toEqual({ replace: [] });
  });

  it('a session expiring later becomes free at its expiry', () => {
    const existing = [session('a1', 'hw-a', { expiresAt: NOW + TTL })];
    expectDomainError(() => planSession(existing, 'hw-b', 1, NOW + TTL - 1), 'SESSION_LIMIT_REACHED');
    expect(planSession(existing, 'hw-b', 1, NOW + TTL)).toEqual({ replace: [] });
  });

  it('a null hardware id never replaces, not even sessions without hardware', () => {
    const existing = [session('n1', null), session('a1', 'hw-a')];
    expect(planSession(existing, null, 3, NOW)).toEqual({ replace: [] });
    expectDomainError(() => planSession([session('n1', null)], null, 1, NOW), 'SESSION_LIMIT_REACHED');
  });

  it('sessions without hardware are not replaced by a login with hardware', () => {
    expectDomainError(() => planSession([session('n1', null)], 'hw-a', 1, NOW), 'SESSION_LIMIT_REACHED');
  });

  it('replacing frees room: two devices, cap 2, re-login on one', () => {
    const existing = [session('a1', 'hw-a'), session('b1', 'hw-b')];
    expect(planSession(existing, 'hw-b', 2, NOW)).toEqual({ replace: ['b1'] });
  });
});

describe('sessionRejection', () => {
  it('a live session is accepted', () => {
    expect(sessionRejection(session('s', 'hw'), NOW)).toBeNull();
  });

  it('an unknown session is SESSION_EXPIRED', () => {
    expect(sessionRejection(null, NOW)?.code).toBe('SESSION_EXPIRED');
  });

  it('an expired session is SESSION_EXPIRED, from its expiry instant on', () => {
    const s = session('s', 'hw', { expiresAt: NOW });
    expect(sessionRejection(s, NOW - 1)).toBeNull();
    expect(sessionRejection(s, NOW)?.code).toBe('SESSION_EXPIRED');
  });

  it('a revoked session is SESSION_EXPIRED', () => {
    expect(sessionRejection(session('s', 'hw', { revokedAt: NOW }), NOW)?.code).toBe('SESSION_EXPIRED');
  });
});

describe('planLegacyHold', () => {
  const NOW = 50_000;
  const HERE = '198.51.100.1';
  const s = (id: string, hardwareId: string | null, legacy: boolean, expiresAt = NOW + 1, revokedAt: number | null = null, address: string | null = legacy ? HERE : null) => ({
    id,
    hardwareId,
    legacy,
    expiresAt,
    revokedAt,
    address,
    leaseExpiresAt: null,
  });
  const at = (hardwareId: string | null, address = HERE) => ({ hardwareId, address });

  it('holds on the live legacy seat of the same hardware id and address', () => {
    expect(planLegacyHold([s('a', 'hw-1', true), s('b', 'hw-2', false)], at('hw-1'), 1, NOW)).toEqual({ kind: 'extend', id: 'a' });
    expect(planLegacyHold([s('a', null, true)], at(null), 1, NOW)).toEqual({ kind: 'extend', id: 'a' });
  });

  it("opens a seat under the cap, replacing the same device's token sessions like a login", () => {
    expect(planLegacyHold([s('a', 'hw-1', false)], at('hw-1'), 1, NOW)).toEqual({ kind: 'open', replace: ['a'] });
    expect(planLegacyHold([s('a', 'hw-1', true, NOW)], at('hw-2'), 1, NOW)).toEqual({ kind: 'open', replace: [] });
  });

  it('refuses a new seat past the cap, counting token and legacy sessions alike', () => {
    expectDomainError(() => planLegacyHold([s('a', 'hw-1', true)], at('hw-2'), 1, NOW), 'SESSION_LIMIT_REACHED');
    expectDomainError(() => planLegacyHold([s('a', 'hw-1', false), s('b', 'hw-2', true)], at(null), 2, NOW), 'SESSION_LIMIT_REACHED');
  });

  it('the same asserted hardware id from another address is another machine: it neither shares nor replaces the seat', () => {
    const held = [s('a', 'hw-1', true)];
    expectDomainError(() => planLegacyHold(held, at('hw-1', '203.0.113.7'), 1, NOW), 'SESSION_LIMIT_REACHED');
    expect(planLegacyHold(held, at('hw-1', '203.0.113.7'), 2, NOW)).toEqual({ kind: 'open', replace: [] });
  });

  it('holds for 10 seconds', () => {
    expect(LEGACY_SESSION_HOLD_MS).toBe(10_000);
  });
});

describe('assertLegacySeatsEnforceable', () => {
  it('refuses legacy seats without device authentication, where nothing but an optional asserted id would name a machine', () => {
    expectDomainError(() => assertLegacySeatsEnforceable(false), 'LEGACY_AUTH_NEEDS_DEVICE_AUTH');
    expect(() => assertLegacySeatsEnforceable(true)).not.toThrow();
  });
});
