import { describe, expect, it } from 'vitest';
import { bannedError, banTypes, decideBans, identifierKeys, isBanLive, replacesStoredBan, type BanKey, type BanProof, type MatchedBan } from '../../src/domain/bans.js';

const all = { ip: '203.0.113.7', hardwareId: 'hw-1', licenseIds: ['lic-1'], userId: 'user-1' };
/** A verified user who owns hw-1. */
const proven: BanProof = { registeredHardwareIds: ['hw-1'], redeemedLicenseIds: [] };
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
    expect(identifierKeys({ licenseIds: ['a', 'b'] })).toEqual([
      { type: 'license', value: 'a' },
      { type: 'license', value: 'b' },
    ]);
    expect(identifierKeys({ userId: 'user-1', hardwareId: 'hw-1' })).toEqual([hwKey, userKey]);
  });

  it('covers each ban type', () => {
    expect(new Set(identifierKeys(all).map((k) => k.type))).toEqual(new Set(banTypes));
  });
});

describe('decideBans', () => {
  const NOW = 1_000_000;
  const on = { enabled: true, toAddresses: true, ipBanHours: 24 };
  const owner = (k: BanKey, id = `ban-${k.type}`): MatchedBan => ({ ...k, id, propagatedFrom: null, expiresAt: null });
  const from = (origin: string, ...keys: BanKey[]) => keys.map((k) => ({ ...k, propagatedFrom: origin, expiresAt: k.type === 'ip' ? NOW + 24 * 3_600_000 : null }));

  it('no matching ban: not banned, nothing to propagate', () => {
    expect(decideBans(all, [], on, NOW)).toEqual({ banned: false, propagate: [] });
    // Bans on other values or on identifiers the request did not carry do not hit.
    const other: MatchedBan[] = [
      owner({ type: 'ip', value: '198.51.100.1' }),
      owner({ type: 'user', value: 'user-2' }),
      owner({ type: 'hardware_id', value: 'lic-1' }), // same value, different type
    ];
    expect(decideBans(all, other, on, NOW)).toEqual({ banned: false, propagate: [] });
    // Without a proven user, a license ban hits only the license presented.
    expect(decideBans({ ...all, userId: null }, [owner({ type: 'license', value: 'lic-2' })], on, NOW)).toEqual({ banned: false, propagate: [] });
    expect(decideBans({ ip: '203.0.113.7' }, [owner(hwKey)], on, NOW)).toEqual({ banned: false, propagate: [] });
  });

  it("a hit on an owner's ban bans the other carried identifiers, recording the origin; the IP ban expires", () => {
    expect(decideBans(all, [owner(hwKey)], on, NOW, proven)).toEqual({ banned: true, propagate: from('ban-hardware_id', ipKey, licKey, userKey) });
  });

  it('propagated IP bans expire after the hours set, or never with null', () => {
    const [ip] = decideBans(all, [owner(userKey)], { ...on, ipBanHours: 2 }, NOW, proven).propagate;
    expect(ip).toEqual({ ...ipKey, propagatedFrom: 'ban-user', expiresAt: NOW + 2 * 3_600_000 });
    const never = decideBans(all, [owner(userKey)], { ...on, ipBanHours: null }, NOW, proven).propagate;
    expect(never.every((b) => b.expiresAt === null)).toBe(true);
  });

  it('a request refused only because its address is banned propagates nothing', () => {
    expect(decideBans(all, [owner(ipKey)], on, NOW, proven)).toEqual({ banned: true, propagate: [] });
  });

  it('a propagated ban refuses but does not propagate further', () => {
    const propagatedUser: MatchedBan = { ...userKey, id: 'p-1', propagatedFrom: 'ban-x', expiresAt: null };
    expect(decideBans(all, [propagatedUser], on, NOW, proven)).toEqual({ banned: true, propagate: [] });
    // Beside an owner's ban, the owner's is the origin.
    expect(decideBans(all, [propagatedUser, owner(ipKey), owner(licKey)], on, NOW, proven)).toEqual({ banned: true, propagate: from('ban-license', hwKey) });
  });

  it('several hits: none of the hit identifiers is propagated again', () => {
    expect(decideBans(all, [owner(ipKey), owner(userKey)], on, NOW, proven)).toEqual({ banned: true, propagate: from('ban-user', hwKey, licKey) });
    expect(decideBans(all, [owner(ipKey), owner(hwKey), owner(licKey), owner(userKey)], on, NOW, proven)).toEqual({ banned: true, propagate: [] });
  });

  it('a request that proved no user (a sign-up) bans the address it came from, never a claimed device', () => {
    expect(decideBans({ ip: '203.0.113.7', hardwareId: 'hw-1' }, [owner(hwKey)], on, NOW)).toEqual({ banned: true, propagate: from('ban-hardware_id', ipKey) });
    expect(decideBans({ ip: '203.0.113.7', hardwareId: 'victim-pc' }, [owner(ipKey)], on, NOW)).toEqual({ banned: true, propagate: [] });
  });

  it('a claimed hardware id is propagated only when registered to the proven user', () => {
    const claimed = { ip: '203.0.113.7', hardwareId: 'victim-pc', userId: 'user-1' };
    expect(decideBans(claimed, [owner(userKey)], on, NOW, proven)).toEqual({ banned: true, propagate: from('ban-user', ipKey) });
    expect(decideBans(claimed, [owner(userKey)], on, NOW, { registeredHardwareIds: ['victim-pc'], redeemedLicenseIds: [] })).toEqual({
      banned: true,
      propagate: from('ban-user', ipKey, { type: 'hardware_id', value: 'victim-pc' }),
    });
  });

  it('without propagation to addresses (the default), the address is left alone and the rest still propagates', () => {
    const toPeople = { ...on, toAddresses: false };
    expect(decideBans(all, [owner(hwKey)], toPeople, NOW, proven)).toEqual({ banned: true, propagate: from('ban-hardware_id', licKey, userKey) });
    expect(decideBans({ ip: '203.0.113.7', hardwareId: 'hw-1' }, [owner(hwKey)], toPeople, NOW)).toEqual({ banned: true, propagate: [] });
  });

  it("beside a proven user, a license ban the store matched is of the user's redeemed licenses: it hits, and propagation reaches their others", () => {
    const held: BanKey = { type: 'license', value: 'lic-held' };
    const redeemed: BanProof = { ...proven, redeemedLicenseIds: ['lic-held', 'lic-other', 'lic-1'] };
    // The presented license comes after the redeemed ones, once.
    expect(decideBans(all, [owner(held)], on, NOW, redeemed)).toEqual({
      banned: true,
      propagate: from('ban-license', ipKey, hwKey, { type: 'license', value: 'lic-other' }, licKey, userKey),
    });
    // Without propagation it only refuses.
    expect(decideBans(all, [owner(held)], { ...on, enabled: false }, NOW, redeemed)).toEqual({ banned: true, propagate: [] });
    // A user ban propagates to the licenses the user redeemed.
    const member = { ip: '203.0.113.7', userId: 'user-1' };
    expect(decideBans(member, [owner(userKey)], { ...on, toAddresses: false }, NOW, redeemed)).toEqual({
      banned: true,
      propagate: from('ban-user', held, { type: 'license', value: 'lic-other' }, licKey),
    });
  });

  it('a hit without propagation bans the request and nothing else', () => {
    expect(decideBans(all, [owner(licKey)], { ...on, enabled: false }, NOW, proven)).toEqual({ banned: true, propagate: [] });
  });

  it('banned error is BANNED', () => {
    expect(bannedError().code).toBe('BANNED');
  });
});

describe('replacesStoredBan', () => {
  const NOW = 5000;
  it('an expired ban is replaced; a live one only when propagation made it and an owner bans', () => {
    expect(replacesStoredBan({ expiresAt: NOW, propagatedFrom: 'o' }, { propagatedFrom: 'o2' }, NOW)).toBe(true);
    expect(replacesStoredBan({ expiresAt: NOW + 1, propagatedFrom: 'o' }, { propagatedFrom: 'o2' }, NOW)).toBe(false);
    expect(replacesStoredBan({ expiresAt: NOW + 1, propagatedFrom: 'o' }, { propagatedFrom: null }, NOW)).toBe(true);
    expect(replacesStoredBan({ expiresAt: null, propagatedFrom: null }, { propagatedFrom: null }, NOW)).toBe(false);
    expect(replacesStoredBan({ expiresAt: null, propagatedFrom: null }, { propagatedFrom: 'o' }, NOW)).toBe(false);
    expect(isBanLive({ expiresAt: null }, NOW)).toBe(true);
  });
});
