import { describe, expect, it } from 'vitest';
import { bannedError, banTypes, decideBans, identifierKeys, type BanKey, type BanProof } from '../../src/domain/bans.js';

const all = { ip: '203.0.113.7', hardwareId: 'hw-1', licenseIds: ['lic-1'], userId: 'user-1' };
/** A verified user who owns hw-1. */
const proven: BanProof = { registeredHardwareIds: ['hw-1'] };
const ipKey: BanKey = { type: 'ip', value: '203.0.113.7' };
const hwKey: BanKey = { type: 'hardware_id', value: 'hw-1' };
const licKey: BanKey = { type: 'license', value: 'lic-1' };
const userKey: BanKey = { type: 'user', value: 'user-1' };

describe('identifierKeys', () => {
  it('lists every carried identifier as a ban key', () => {
    expect(identifierKeys(all)).toEqual([ipKey, hwKey, licKey, userKey]);
  });

  it('skips missing, null and empty identifiers', () => {
    expect(identifierKeys({})).toEqual([]);
    expect(identifierKeys({ ip: '203.0.113.7', hardwareId: null, licenseIds: [], userId: '' })).toEqual([ipKey]);
    expect(identifierKeys({ licenseIds: ['a', 'b'] })).toEqual([{ type: 'license', value: 'a' }, { type: 'license', value: 'b' }]);
    expect(identifierKeys({ userId: 'user-1', hardwareId: 'hw-1' })).toEqual([hwKey, userKey]);
  });

  it('covers each ban type', () => {
    expect(new Set(identifierKeys(all).map((k) => k.type))).toEqual(new Set(banTypes));
  });
});

describe('decideBans', () => {
  it('no matching ban: not banned, nothing to propagate', () => {
    expect(decideBans(all, [], true)).toEqual({ banned: false, propagate: [] });
    // Bans on other values or on identifiers the request did not carry do not hit.
    const other: BanKey[] = [
      { type: 'ip', value: '198.51.100.1' },
      { type: 'user', value: 'user-2' },
      { type: 'license', value: 'hw-1' }, // same value, different type
    ];
    expect(decideBans(all, other, true)).toEqual({ banned: false, propagate: [] });
    expect(decideBans({ ip: '203.0.113.7' }, [hwKey], true)).toEqual({ banned: false, propagate: [] });
  });

  it('a hit with propagation and a proven user bans the other carried identifiers', () => {
    expect(decideBans(all, [hwKey], true, proven)).toEqual({ banned: true, propagate: [ipKey, licKey, userKey] });
  });

  it('propagation covers only what the request carried', () => {
    expect(decideBans({ ip: '203.0.113.7', hardwareId: 'hw-1' }, [ipKey], true, proven)).toEqual({ banned: true, propagate: [hwKey] });
    expect(decideBans({ ip: '203.0.113.7' }, [ipKey], true, proven)).toEqual({ banned: true, propagate: [] });
  });

  it('several hits: none of the hit identifiers is propagated again', () => {
    expect(decideBans(all, [ipKey, userKey], true, proven)).toEqual({ banned: true, propagate: [hwKey, licKey] });
    expect(decideBans(all, [ipKey, hwKey, licKey, userKey], true, proven)).toEqual({ banned: true, propagate: [] });
  });

  it('a request that proved no user (a sign-up) bans the address it came from, never a claimed device', () => {
    expect(decideBans({ ip: '203.0.113.7', hardwareId: 'hw-1' }, [hwKey], true)).toEqual({ banned: true, propagate: [ipKey] });
    expect(decideBans({ ip: '203.0.113.7', hardwareId: 'victim-pc' }, [ipKey], true)).toEqual({ banned: true, propagate: [] });
  });

  it('a claimed hardware id is propagated only when registered to the proven user', () => {
    const claimed = { ip: '203.0.113.7', hardwareId: 'victim-pc', userId: 'user-1' };
    expect(decideBans(claimed, [userKey], true, proven)).toEqual({ banned: true, propagate: [ipKey] });
    expect(decideBans(claimed, [userKey], true, { registeredHardwareIds: ['victim-pc'] })).toEqual({
      banned: true,
      propagate: [ipKey, { type: 'hardware_id', value: 'victim-pc' }],
    });
  });

  it('a hit without propagation bans the request and nothing else', () => {
    expect(decideBans(all, [licKey], false, proven)).toEqual({ banned: true, propagate: [] });
  });

  it('banned error is BANNED', () => {
    expect(bannedError().code).toBe('BANNED');
  });
});
